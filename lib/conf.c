/*
 * conf.c: read <state-dir>/config.json (see conf.h), and parse the
 * operator's slipway.conf, which `slipway start` folds into it and
 * `slipway doctor` checks: one table of keys, each with its check.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/buf.h"
#include "lib/alloc.h"
#include "lib/conf.h"
#include "lib/db.h"
#include "lib/auth.h"
#include "lib/json.h"
#include "lib/jwt.h"
#include "lib/limits.h"
#include "lib/log.h"

const char *
sw_config_state_dir(const char *dflt)
{
	const char *d = getenv("SLIPWAY_STATE_DIR");

	return d != NULL && d[0] != '\0' ? d : dflt;
}

sw_err
sw_config_load(const char *dir, struct sw_config *c)
{
	char path[600], why[128];
	FILE *f;
	char *text = NULL;
	long len;
	sw_err e = SW_OK;

	memset(c, 0, sizeof(*c));
	c->port = SW_DEFAULT_PORT;
	memcpy(c->region, "us-west-2", sizeof("us-west-2"));
	if (sw_fmt(c->state_dir, sizeof(c->state_dir), "%s", dir) != SW_OK ||
	    sw_fmt(c->db_path, sizeof(c->db_path), "%s/state.db", dir) !=
		SW_OK ||
	    sw_fmt(path, sizeof(path), "%s/config.json", dir) != SW_OK) {
		sw_error("state directory %s: path too long", dir);
		c->root = json_object_new_object();
		return SW_EINVAL;
	}
	if ((f = fopen(path, "r")) == NULL) {
		c->root = json_object_new_object();
		return SW_OK;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 ||
	    len > SW_MAX_BODY || fseek(f, 0, SEEK_SET) != 0 ||
	    (text = sw_malloc((size_t)len + 1)) == NULL ||
	    fread(text, 1, (size_t)len, f) != (size_t)len) {
		e = SW_EINTERNAL;
		goto out;
	}
	if ((e = sw_json_parse(
		 text, (size_t)len, &c->root, why, sizeof(why))) != SW_OK) {
		sw_error("%s: %s", path, why);
		goto out;
	}
	c->port = (int)sw_json_get_int(c->root, "port", SW_DEFAULT_PORT);
	if (sw_json_get_str(c->root, "region") != NULL &&
	    (e = sw_fmt(c->region, sizeof(c->region), "%s",
		 sw_json_get_str(c->root, "region"))) != SW_OK)
		sw_error("%s: region name too long", path);
	c->sandbox = sw_json_get_bool(c->root, "sandbox", 0);
	/* database: a postgresql:// URL in place of state.db */
	if (sw_json_get_str(c->root, "database") != NULL &&
	    (e = sw_fmt(c->db_path, sizeof(c->db_path), "%s",
		 sw_json_get_str(c->root, "database"))) != SW_OK)
		sw_error("%s: database URL too long", path);
out:
	free(text);
	fclose(f);
	if (c->root == NULL)
		c->root = json_object_new_object();
	return e;
}

void
sw_config_free(struct sw_config *c)
{
	json_object_put(c->root);
	c->root = NULL;
}

int
sw_config_origin_allowed(
    const struct sw_config *c, const char *origin, const char *host)
{
	json_object *list = sw_json_get(c->root, "allowed_origins");
	size_t i;

	/* Exactly the configured origins.  The Host header is not a
	 * witness: a request forging both would pass a comparison. */
	(void)host;
	if (origin == NULL)
		return 0;
	if (list == NULL || !json_object_is_type(list, json_type_array))
		return 0;
	for (i = 0; i < json_object_array_length(list); i++) {
		json_object *o = json_object_array_get_idx(list, i);

		if (json_object_is_type(o, json_type_string) &&
		    strcmp(json_object_get_string(o), origin) == 0)
			return 1;
	}
	return 0;
}

int
sw_host_is_loopback(const char *h)
{
	static const char *const names[] = { "localhost", "127.0.0.1", "[::1]",
		NULL };
	size_t i, n;

	for (i = 0; names[i] != NULL; i++) {
		n = strlen(names[i]);
		if (strncasecmp(h, names[i], n) == 0 &&
		    (h[n] == '\0' ||
			(h[n] == ':' && h[n + 1] != '\0' &&
			    strspn(h + n + 1, "0123456789") ==
				strlen(h + n + 1))))
			return 1;
	}
	return 0;
}

int
sw_config_host_allowed(const struct sw_config *c, const char *host)
{
	json_object *list = sw_json_get(c->root, "allowed_origins");
	size_t i;

	if (host == NULL || sw_host_is_loopback(host))
		return 1;
	for (i = 0;
	     list != NULL && json_object_is_type(list, json_type_array) &&
	     i < json_object_array_length(list);
	     i++) {
		const char *o =
		    json_object_get_string(json_object_array_get_idx(list, i));
		const char *p = o ? strstr(o, "://") : NULL;

		if (p != NULL && strcasecmp(p + 3, host) == 0)
			return 1;
	}
	return 0;
}

const char *const sw_conf_services[] = { "sts", "ec2", "iam", "eks",
	"sagemaker", "s3", "fsx", "service_quotas", "pricing", "sns",
	"eventbridge", NULL };
const char *const sw_conf_service_env[] = { "STS", "EC2", "IAM", "EKS",
	"SAGEMAKER", "S3", "FSX", "SERVICE_QUOTAS", "PRICING", "SNS",
	"EVENTBRIDGE", NULL };

/* An https URL, or http to loopback (a sandbox); no spaces. */
static int
conf_url_ok(const char *v)
{
	size_t i;

	for (i = 0; v[i] != '\0'; i++)
		if (isspace((unsigned char)v[i]) || v[i] == '"')
			return 0;
	if (strncmp(v, "https://", 8) == 0 && v[8] != '\0')
		return 1;
	return strncmp(v, "http://127.0.0.1:", 17) == 0 ||
	    strncmp(v, "http://localhost:", 17) == 0;
}

static int
conf_int(const char *v, long lo, long hi, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(v, &end, 10);
	return errno == 0 && end != v && *end == '\0' && *out >= lo &&
	    *out <= hi;
}

static int
conf_region_ok(const char *v)
{
	size_t i;

	if (v[0] == '\0' || strlen(v) > 31)
		return 0;
	for (i = 0; v[i] != '\0'; i++)
		if (!islower((unsigned char)v[i]) &&
		    !isdigit((unsigned char)v[i]) && v[i] != '-')
			return 0;
	return 1;
}

/* True when v is arn:<partition>:iam::<12 digits>:<kind>/<path/name>,
 * kind with its colon and slash (":policy/", ":role/"). */
static int
iam_arn_ok(const char *v, const char *kind)
{
	const char *p;
	size_t i, k = strlen(kind);

	if (v == NULL || strncmp(v, "arn:aws", 7) != 0 || strlen(v) > 2048)
		return 0;
	for (p = v + 7; *p != '\0' && *p != ':'; p++)
		if (!(*p == '-' || (*p >= 'a' && *p <= 'z')))
			return 0;
	if (strncmp(p, ":iam::", 6) != 0)
		return 0;
	p += 6;
	for (i = 0; i < 12; i++)
		if (p[i] < '0' || p[i] > '9')
			return 0;
	if (strncmp(p + 12, kind, k) != 0 || p[12 + k] == '\0')
		return 0;
	for (p += 12 + k; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			(*p >= '0' && *p <= '9') || strchr("+=,.@_/-", *p)))
			return 0;
	return 1;
}

int
sw_conf_policy_arn_ok(const char *v)
{
	return iam_arn_ok(v, ":policy/");
}

int
sw_conf_role_arn_ok(const char *v)
{
	return iam_arn_ok(v, ":role/");
}

const char *
sw_config_person_role(const struct sw_config *c)
{
	const char *v =
	    c != NULL ? sw_json_get_str(c->root, "person_role_arn") : NULL;

	return v != NULL && v[0] != '\0' ? v : NULL;
}

const char *
sw_config_account(const struct sw_config *c)
{
	const char *v;

	if (c == NULL)
		return NULL;
	if ((v = sw_json_get_str(c->root, "account_id")) == NULL)
		v = sw_json_get_str(
		    sw_json_get(c->root, "sandbox_info"), "account_id");
	return v != NULL && v[0] != '\0' ? v : NULL;
}

sw_err
sw_config_member_role(
    const struct sw_config *c, const char *account, char *out, size_t outsz)
{
	json_object *m = c != NULL ? sw_json_get(c->root, "member") : NULL;
	const char *arn = sw_json_get_str(sw_json_get(m, "roles"), account);
	const char *name = sw_json_get_str(m, "role_name");

	if (arn != NULL)
		return sw_fmt(out, outsz, "%s", arn);
	return sw_fmt(out, outsz, "arn:aws:iam::%s:role/%s", account,
	    name != NULL ? name : SW_MEMBER_ROLE_NAME);
}

const char *
sw_config_member_external_id(const struct sw_config *c)
{
	return c != NULL
	    ? sw_json_get_str(sw_json_get(c->root, "member"), "external_id")
	    : NULL;
}

const char *
sw_config_boundary(const struct sw_config *c)
{
	const char *v = c != NULL
	    ? sw_json_get_str(c->root, "iam_permissions_boundary")
	    : NULL;

	return v != NULL && v[0] != '\0' ? v : NULL;
}

/* A word of 1..n characters of set. */
static int
conf_word(const char *v, size_t n, const char *set)
{
	size_t len = strlen(v);

	return len > 0 && len <= n && strspn(v, set) == len;
}

#define CLAIM_CHARS \
	"abcdefghijklmnopqrstuvwxyz" \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.:/-"

/* oidc.algorithms: RS256 and/or ES256, space or comma separated. */
static const char *
conf_oidc_algs(json_object *oidc, const char *v)
{
	json_object *list = json_object_new_array();
	char one[16];
	const char *p = v;
	size_t n;

	json_object_object_add(oidc, "algorithms", list);
	while (*p != '\0') {
		n = strcspn(p, " ,");
		if (n == 0 || n >= sizeof(one)) {
			p += n > 0 ? n : 1;
			continue;
		}
		memcpy(one, p, n);
		one[n] = '\0';
		if (strcasecmp(one, "none") == 0 ||
		    strncasecmp(one, "HS", 2) == 0)
			return "none and HMAC algorithms are never accepted";
		if (sw_jwt_alg_bit(one) == 0)
			return "algorithms are RS256 and ES256";
		json_object_array_add(list, json_object_new_string(one));
		p += n;
	}
	return json_object_array_length(list) > 0
	    ? NULL
	    : "name at least one algorithm (RS256, ES256)";
}

/* oidc.<key> = value into out's "oidc" object. */
static const char *
conf_oidc(json_object *out, const char *k, const char *v)
{
	json_object *oidc = sw_json_get(out, "oidc");
	long n;

	if (oidc == NULL) {
		oidc = json_object_new_object();
		json_object_object_add(out, "oidc", oidc);
	}
	if (strcmp(k, "issuer") == 0) {
		if (!conf_url_ok(v) || strlen(v) > 255)
			return "the issuer is an https URL (http only to "
			       "127.0.0.1 or localhost)";
	} else if (strcmp(k, "audience") == 0 || strcmp(k, "client_id") == 0 ||
	    strcmp(k, "client_secret") == 0) {
		if (!conf_word(v, 255, CLAIM_CHARS "~+=@"))
			return "1 to 255 characters, no spaces or quotes";
	} else if (strcmp(k, "algorithms") == 0)
		return conf_oidc_algs(oidc, v);
	else if (strcmp(k, "user_claim") == 0 ||
	    strcmp(k, "groups_claim") == 0) {
		if (!conf_word(v, 64, CLAIM_CHARS))
			return "a claim name (e.g. sub, email, groups)";
	} else if (strcmp(k, "clock_skew") == 0) {
		if (!conf_int(v, 0, SW_OIDC_SKEW_MAX, &n))
			return "clock_skew is 0 to 300 seconds";
		sw_json_add_int(oidc, "clock_skew", n);
		return NULL;
	} else if (strcmp(k, "scope") == 0) {
		if (sw_scope_parse(v) == SW_SCOPE_NONE)
			return "scope is read, write or admin";
	} else
		return "no such key (issuer audience client_id client_secret "
		       "algorithms user_claim groups_claim clock_skew scope)";
	sw_json_add_str(oidc, k, v);
	return NULL;
}

/*
 * team.<team>.<role>.iam_role_arn = <role ARN>: the IAM role the team's
 * members of that role assume for kubectl, into out's "team_iam"
 * {team: {role: arn}}; the cluster's team access (team_access_set)
 * gives it an EKS access entry.  rest is "<role>.iam_role_arn".
 */
static const char *
conf_team_iam(
    json_object *out, const char *team, const char *rest, const char *v)
{
	const char *dot = strchr(rest, '.');
	json_object *all, *one;
	char role[32];
	size_t n = (size_t)(dot - rest);

	if (n >= sizeof(role) || strcmp(dot + 1, "iam_role_arn") != 0)
		return "team.<team>.<role>.iam_role_arn is the only key below "
		       "a role";
	memcpy(role, rest, n);
	role[n] = '\0';
	if (sw_role_parse(role) == SW_ROLE_NONE)
		return "team.<team>.<role>.iam_role_arn: the role is viewer, "
		       "operator or platform-admin";
	if (!sw_conf_role_arn_ok(v))
		return "team.<team>.<role>.iam_role_arn is an IAM role ARN "
		       "(arn:aws:iam::<account>:role/<name>)";
	if ((all = sw_json_get(out, "team_iam")) == NULL) {
		all = json_object_new_object();
		json_object_object_add(out, "team_iam", all);
	}
	if ((one = sw_json_get(all, team)) == NULL) {
		one = json_object_new_object();
		json_object_object_add(all, team, one);
	}
	sw_json_add_str(one, role, v);
	return NULL;
}

/*
 * team.<team>.<role> = group[, group...]: the provider groups whose
 * members have role in team, into out's "teams" {team: {role:
 * [group...]}}.
 */
static const char *
conf_team(json_object *out, const char *k, const char *v)
{
	const char *dot = strchr(k, '.'), *p = v;
	json_object *teams, *team, *list;
	char name[64], one[128];
	size_t n;

	n = dot != NULL ? (size_t)(dot - k) : 0;
	if (n == 0 || n > SW_MAX_TEAM || k[0] == '-' || k[n - 1] == '-' ||
	    strspn(k, "abcdefghijklmnopqrstuvwxyz0123456789-") < n)
		return "team.<team>.<role>: a team is 1 to 39 of [a-z0-9-] "
		       "(its namespace is hyperpod-ns-<team>)";
	if (sw_role_parse(dot + 1) == SW_ROLE_NONE &&
	    strchr(dot + 1, '.') == NULL)
		return "team.<team>.<role>: the role is viewer, operator or "
		       "platform-admin";
	memcpy(name, k, n);
	name[n] = '\0';
	if (strchr(dot + 1, '.') != NULL)
		return conf_team_iam(out, name, dot + 1, v);
	if ((teams = sw_json_get(out, "teams")) == NULL) {
		teams = json_object_new_object();
		json_object_object_add(out, "teams", teams);
	}
	if ((team = sw_json_get(teams, name)) == NULL) {
		team = json_object_new_object();
		json_object_object_add(teams, name, team);
	}
	list = json_object_new_array();
	json_object_object_add(team, dot + 1, list);
	while (*p != '\0') {
		p += strspn(p, " ,");
		if ((n = strcspn(p, " ,")) == 0)
			break;
		if (n >= sizeof(one))
			return "a group name is too long";
		memcpy(one, p, n);
		one[n] = '\0';
		json_object_array_add(list, json_object_new_string(one));
		p += n;
	}
	return json_object_array_length(list) > 0
	    ? NULL
	    : "name at least one provider group";
}

/*
 * member.role_name = <name>, member.external_id = <id>, member.<account>.
 * role_arn = <arn>: how Slipway reaches a member account (sts:AssumeRole
 * of that role, with that external id), into out's "member" object
 * {"role_name", "external_id", "roles": {account: arn}}.
 */
static const char *
conf_member(json_object *out, const char *k, const char *v)
{
	json_object *m, *roles;
	char account[13];

	if ((m = sw_json_get(out, "member")) == NULL) {
		m = json_object_new_object();
		json_object_object_add(out, "member", m);
	}
	if (strcmp(k, "role_name") == 0) {
		if (v[0] == '\0' || strlen(v) > 64 ||
		    strspn(v,
			"abcdefghijklm"
			"nopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+=,.@_-") !=
			strlen(v))
			return "member.role_name is an IAM role name (1 to 64 "
			       "of [A-Za-z0-9+=,.@_-])";
		sw_json_add_str(m, "role_name", v);
		return NULL;
	}
	if (strcmp(k, "external_id") == 0) {
		if (strlen(v) < 2 || strlen(v) > 1224)
			return "member.external_id is 2 to 1224 characters";
		sw_json_add_str(m, "external_id", v);
		return NULL;
	}
	if (strlen(k) != 21 || strspn(k, "0123456789") != 12 ||
	    strcmp(k + 12, ".role_arn") != 0)
		return "member.<account>.role_arn: the account is 12 digits";
	if (!sw_conf_role_arn_ok(v) || strncmp(strstr(v, "::") + 2, k, 12))
		return "member.<account>.role_arn is an IAM role ARN of that "
		       "account (arn:aws:iam::<account>:role/<name>)";
	memcpy(account, k, 12);
	account[12] = '\0';
	if ((roles = sw_json_get(m, "roles")) == NULL) {
		roles = json_object_new_object();
		json_object_object_add(m, "roles", roles);
	}
	sw_json_add_str(roles, account, v);
	return NULL;
}

/* One key = value into out; NULL, or why the line is refused. */
static const char *
conf_set(json_object *out, const char *k, const char *v)
{
	json_object *eps, *list;
	long n;
	size_t i;

	if (strcmp(k, "region") == 0) {
		if (!conf_region_ok(v))
			return "region is not a region name (e.g. us-west-2)";
		sw_json_add_str(out, "region", v);
	} else if (strcmp(k, "port") == 0) {
		if (!conf_int(v, 1, 65535, &n))
			return "port must be 1..65535";
		sw_json_add_int(out, "port", n);
	} else if (strcmp(k, "listen") == 0) {
		/* loopback (SSM port forwarding to this host), or every
		 * address (behind a load balancer; the security group
		 * admits only it) */
		if (strcmp(v, "127.0.0.1") != 0 && strcmp(v, "0.0.0.0") != 0)
			return "listen is 127.0.0.1 (this host only) or "
			       "0.0.0.0 (behind a load balancer)";
		sw_json_add_str(out, "listen", v);
	} else if (strcmp(k, "workers") == 0) {
		if (!conf_int(v, 1, SW_MAX_WORKERS, &n))
			return "workers is out of range";
		sw_json_add_int(out, "workers", n);
	} else if (strcmp(k, "ledger_interval") == 0) {
		if (!conf_int(v, 1, 86400, &n))
			return "ledger_interval must be 1..86400 (seconds)";
		sw_json_add_int(out, "ledger_interval", n);
	} else if (strcmp(k, "watch_interval") == 0) {
		if (!conf_int(v, 1, 86400, &n))
			return "watch_interval must be 1..86400 (seconds)";
		sw_json_add_int(out, "watch_interval", n);
	} else if (strcmp(k, "watch_rate") == 0) {
		if (!conf_int(v, 1, 1000, &n))
			return "watch_rate must be 1..1000 (clusters a second)";
		sw_json_add_int(out, "watch_rate", n);
	} else if (strcmp(k, "training_plan.warn_before") == 0) {
		if (!conf_int(v, 60, 30 * 86400, &n))
			return "training_plan.warn_before must be 60..2592000 "
			       "(seconds)";
		sw_json_add_int(out, "training_plan_warn_before", n);
	} else if (strcmp(k, "iam_permissions_boundary") == 0) {
		if (!sw_conf_policy_arn_ok(v))
			return "iam_permissions_boundary is a managed policy "
			       "ARN (arn:aws:iam::<account>:policy/<name>)";
		sw_json_add_str(out, "iam_permissions_boundary", v);
	} else if (strcmp(k, "person_role_arn") == 0) {
		if (!sw_conf_role_arn_ok(v))
			return "person_role_arn is an IAM role ARN "
			       "(arn:aws:iam::<account>:role/<name>)";
		sw_json_add_str(out, "person_role_arn", v);
	} else if (strncmp(k, "oidc.", 5) == 0) {
		return conf_oidc(out, k + 5, v);
	} else if (strncmp(k, "team.", 5) == 0) {
		return conf_team(out, k + 5, v);
	} else if (strncmp(k, "member.", 7) == 0) {
		return conf_member(out, k + 7, v);
	} else if (strcmp(k, "account_id") == 0) {
		if (strlen(v) != 12 || strspn(v, "0123456789") != 12)
			return "account_id is Slipway's own AWS account (12 "
			       "digits)";
		sw_json_add_str(out, "account_id", v);
	} else if (strcmp(k, "public_url") == 0) {
		if (!conf_url_ok(v) || strlen(v) > 255)
			return "public_url is an https URL (http only to "
			       "127.0.0.1 or localhost)";
		sw_json_add_str(out, "public_url", v);
	} else if (strcmp(k, "database") == 0) {
		if (!sw_db_is_pg_url(v) || strlen(v) >= SW_CONF_DB_MAX)
			return "database is a postgresql:// URL (leave it out "
			       "for the SQLite file in the state directory)";
		sw_json_add_str(out, "database", v);
	} else if (strcmp(k, "sandbox_join") == 0) {
		if (v[0] != '/' || strlen(v) >= 512)
			return "sandbox_join is the absolute path of another "
			       "stack's sandbox/sandbox.json";
		sw_json_add_str(out, "sandbox_join", v);
	} else if (strcmp(k, "log_format") == 0) {
		if (strcmp(v, "text") != 0 && strcmp(v, "json") != 0)
			return "log_format must be text or json";
		sw_json_add_str(out, "log_format", v);
	} else if (strcmp(k, "allowed_origins") == 0) {
		char one[256];
		const char *p = v, *q;

		list = json_object_new_array();
		json_object_object_add(out, "allowed_origins", list);
		while (*p != '\0') {
			for (q = p; *q != '\0' && *q != ' '; q++)
				;
			if ((size_t)(q - p) >= sizeof(one))
				return "an origin is too long";
			memcpy(one, p, (size_t)(q - p));
			one[q - p] = '\0';
			if (strncmp(one, "http://", 7) != 0 &&
			    strncmp(one, "https://", 8) != 0)
				return "an origin is scheme://host[:port]";
			json_object_array_add(
			    list, json_object_new_string(one));
			for (p = q; *p == ' '; p++)
				;
		}
	} else if (strcmp(k, "endpoint") == 0 ||
	    strncmp(k, "endpoint.", 9) == 0) {
		if (!conf_url_ok(v))
			return "an endpoint is https://host[:port] (http only "
			       "to 127.0.0.1 or localhost)";
		if ((eps = sw_json_get(out, "endpoints")) == NULL) {
			eps = json_object_new_object();
			json_object_object_add(out, "endpoints", eps);
		}
		if (k[8] == '\0') {
			sw_json_add_str(eps, "*", v);
			return NULL;
		}
		for (i = 0; sw_conf_services[i] != NULL; i++)
			if (strcmp(k + 9, sw_conf_services[i]) == 0)
				break;
		if (sw_conf_services[i] == NULL)
			return "no such service (sts ec2 iam eks sagemaker s3 "
			       "fsx service_quotas pricing sns eventbridge)";
		sw_json_add_str(eps, sw_conf_services[i], v);
	} else
		return "unknown key";
	return NULL;
}

sw_err
sw_conf_file_load(const char *path, json_object **out, char *why, size_t whysz)
{
	char line[1024], *k, *v, *e;
	const char *bad;
	FILE *f;
	int lineno = 0;

	*out = NULL;
	why[0] = '\0';
	if ((f = fopen(path, "r")) == NULL) {
		sw_fmt_text(why, whysz, "%s: %s", path, strerror(errno));
		return errno == ENOENT ? SW_ENOTFOUND : SW_EINVAL;
	}
	*out = json_object_new_object();
	while (fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		if (strchr(line, '\n') == NULL && !feof(f)) {
			sw_fmt_text(why, whysz, "line %d: too long", lineno);
			goto bad;
		}
		if ((e = strchr(line, '#')) != NULL)
			*e = '\0';
		for (k = line; isspace((unsigned char)*k); k++)
			;
		e = k + strlen(k);
		while (e > k && isspace((unsigned char)e[-1]))
			*--e = '\0';
		if (*k == '\0')
			continue;
		if ((v = strchr(k, '=')) == NULL) {
			sw_fmt_text(why, whysz,
			    "line %d: not key = "
			    "value",
			    lineno);
			goto bad;
		}
		for (e = v; e > k && isspace((unsigned char)e[-1]); e--)
			;
		*e = '\0';
		for (v++; isspace((unsigned char)*v); v++)
			;
		if ((bad = conf_set(*out, k, v)) != NULL) {
			sw_fmt_text(why, whysz,
			    "line %d: %s: "
			    "%s",
			    lineno, k, bad);
			goto bad;
		}
	}
	fclose(f);
	return SW_OK;
bad:
	fclose(f);
	json_object_put(*out);
	*out = NULL;
	return SW_EINVAL;
}
