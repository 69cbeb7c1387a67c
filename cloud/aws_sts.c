/*
 * aws_sts.c: STS calls.  GetCallerIdentity answers "who am I" for the
 * pre-flight checks and the account id for ARNs we build; AssumeRole
 * gives the credentials of a role session made for a person, or of
 * Slipway's role in a member account (with its external id).
 */
#include <stdio.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/json.h"

#include "cloud/aws_api.h"

#define SVC AWS_SVC_STS

sw_err
aws_sts_get_caller_identity(struct aws_ctx *ctx, char *account,
    size_t accountsz, char *arn, size_t arnsz, struct aws_error *err)
{
	json_object *out = NULL, *v;
	sw_err rc;

	if ((rc = aws_call(ctx, SVC, "GetCallerIdentity", NULL, &out, err)) !=
	    SW_OK)
		return rc;
	rc = SW_EUPSTREAM;
	if (!json_object_object_get_ex(out, "Account", &v) ||
	    (size_t)snprintf(account, accountsz, "%s",
		json_object_get_string(v)) >= accountsz)
		goto out;
	if (!json_object_object_get_ex(out, "Arn", &v) ||
	    (size_t)snprintf(arn, arnsz, "%s", json_object_get_string(v)) >=
		arnsz)
		goto out;
	rc = SW_OK;
out:
	json_object_put(out);
	return rc;
}

/* Copy the string member key of o into buf; -1 when absent or too long. */
static int
sts_copy(json_object *o, const char *key, char *buf, size_t bufsz)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    (size_t)snprintf(buf, bufsz, "%s", json_object_get_string(v)) >=
		bufsz)
		return -1;
	return 0;
}

sw_err
aws_sts_assume_role(struct aws_ctx *ctx, const char *role_arn,
    const char *session_name, const char *source_identity, int duration_s,
    struct aws_creds *c, struct aws_error *err)
{
	return aws_sts_assume_role_ext(ctx, role_arn, session_name,
	    source_identity, NULL, duration_s, c, err);
}

sw_err
aws_sts_assume_role_ext(struct aws_ctx *ctx, const char *role_arn,
    const char *session_name, const char *source_identity,
    const char *external_id, int duration_s, struct aws_creds *c,
    struct aws_error *err)
{
	json_object *in, *out = NULL, *cr;
	char exp[64];
	sw_err rc;

	memset(c, 0, sizeof(*c));
	in = sw_jo("RoleArn", sw_js(role_arn), "RoleSessionName",
	    sw_js(session_name), "SourceIdentity",
	    source_identity ? sw_js(source_identity) : NULL, "ExternalId",
	    external_id ? sw_js(external_id) : NULL, "DurationSeconds",
	    sw_ji(duration_s), NULL);
	rc = aws_call(ctx, SVC, "AssumeRole", in, &out, err);
	json_object_put(in);
	if (rc != SW_OK)
		return rc;
	rc = SW_EUPSTREAM;
	if (!json_object_object_get_ex(out, "Credentials", &cr) ||
	    sts_copy(cr, "AccessKeyId", c->access_key, sizeof(c->access_key)) ==
		-1 ||
	    sts_copy(cr, "SecretAccessKey", c->secret_key,
		sizeof(c->secret_key)) == -1 ||
	    sts_copy(cr, "SessionToken", c->token, sizeof(c->token)) == -1 ||
	    sts_copy(cr, "Expiration", exp, sizeof(exp)) == -1 ||
	    (c->expiration = creds_parse_time(exp)) == -1) {
		memset(c, 0, sizeof(*c));
		goto out;
	}
	sw_fmt_text(c->source, sizeof(c->source), "assume-role");
	rc = SW_OK;
out:
	json_object_put(out);
	return rc;
}
