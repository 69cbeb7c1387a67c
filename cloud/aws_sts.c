/*
 * aws_sts.c: STS calls.  GetCallerIdentity answers "who am I" for the
 * pre-flight checks and the account id for ARNs we build.
 */
#include <stdio.h>

#include "cloud/aws_api.h"

#define SVC	AWS_SVC_STS


sw_err
aws_sts_get_caller_identity(struct aws_ctx *ctx, char *account,
    size_t accountsz, char *arn, size_t arnsz, struct aws_error *err)
{
	json_object	*out = NULL, *v;
	sw_err		 rc;

	if ((rc = aws_call(ctx, SVC, "GetCallerIdentity", NULL, &out,
	    err)) != SW_OK)
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
