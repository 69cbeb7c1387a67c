/*
 * config.h: the runtime configuration every process reads from
 * <state-dir>/config.json, written by `slipway start` from its options
 * and the operator's slipway.conf (sw_conf_file_load).  Holds the port,
 * region, allowed browser origins and the AWS endpoint overrides (the
 * sandbox's loopback URL, or none for real AWS).  Endpoints are
 * configuration only: no request can point Slipway at another host.
 */
#ifndef SW_CONF_H
#define SW_CONF_H

#include <json-c/json.h>

#include "lib/err.h"

/* Room for the database: state.db's path or a postgresql:// URL. */
#define SW_CONF_DB_MAX 600

struct sw_config {
	char state_dir[512];
	char db_path[SW_CONF_DB_MAX]; /* file or URL */
	int port;
	char region[32];
	int sandbox; /* backend is slipway-sandbox */
	json_object *root; /* whole file; owned */
};

/* Directory from $SLIPWAY_STATE_DIR, or dflt when unset. */
const char *sw_config_state_dir(const char *dflt);

/* Load <dir>/config.json; a missing file gives defaults. */
sw_err sw_config_load(const char *dir, struct sw_config *);
void sw_config_free(struct sw_config *);

/*
 * The operator's slipway.conf ("key = value" lines, see slipway.conf(5)):
 * parse path into *out (a new object, keys as in config.json: region,
 * port, workers, endpoints {service: url}, log_format, allowed_origins
 * [..]).  SW_ENOTFOUND when there is no file; SW_EINVAL with "line N:
 * why" in why for an unknown key or a bad value.  The caller frees *out
 * with json_object_put().
 */
sw_err sw_conf_file_load(
    const char *path, json_object **out, char *why, size_t whysz);

/*
 * The permissions boundary every IAM role Slipway creates carries
 * (config.json's iam_permissions_boundary, from slipway.conf or
 * $SLIPWAY_IAM_PERMISSIONS_BOUNDARY), or NULL when none is configured.
 */
const char *sw_config_boundary(const struct sw_config *);
/*
 * The role every AWS call made for a person is made through (config.json's
 * person_role_arn, from slipway.conf): assumed with SourceIdentity set to
 * the person, so CloudTrail names who asked.  NULL when none is
 * configured: the service's own credentials are used.
 */
const char *sw_config_person_role(const struct sw_config *);
/*
 * Slipway's own AWS account (config.json's account_id, from slipway.conf,
 * else the sandbox's), or NULL when not configured.
 */
const char *sw_config_account(const struct sw_config *);
/*
 * The role Slipway assumes in member account (12 digits), into out:
 * member.<account>.role_arn, else arn:aws:iam::<account>:role/ and
 * member.role_name (default SW_MEMBER_ROLE_NAME, the name
 * cfn/member-role.yaml gives it).
 */
#define SW_MEMBER_ROLE_NAME "SlipwayMember"
sw_err sw_config_member_role(
    const struct sw_config *, const char *account, char *out, size_t outsz);
/* The external id the member roles require (member.external_id), or
 * NULL. */
const char *sw_config_member_external_id(const struct sw_config *);
/* True when v is an IAM role ARN (arn:<partition>:iam::<account>:role/
 * <path/name>). */
int sw_conf_role_arn_ok(const char *v);
/* True when v is a customer managed policy ARN
 * (arn:<partition>:iam::<account>:policy/<path/name>). */
int sw_conf_policy_arn_ok(const char *v);

/* The services an endpoint.<name> key may name, NULL-terminated, and
 * the AWS_ENDPOINT_URL_ suffix of each (same order). */
extern const char *const sw_conf_services[];
extern const char *const sw_conf_service_env[];

/* True when origin (e.g. "http://127.0.0.1:3099") is one of the
 * configured allowed_origins, exactly: it may make state-changing
 * requests with a session cookie.  host is not consulted. */
int sw_config_origin_allowed(
    const struct sw_config *, const char *origin, const char *host);

/* True when host[:port] names the loopback interface (localhost,
 * 127.0.0.1, [::1]; any port). */
int sw_host_is_loopback(const char *host);

/* True when a Host header may reach us (DNS rebinding): absent, a
 * loopback name (localhost, 127.0.0.1, [::1], any port) or the host of
 * an allowed origin. */
int sw_config_host_allowed(const struct sw_config *, const char *host);

#endif
