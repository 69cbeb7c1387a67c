/*
 * test-ekstoken.c: EKS bearer tokens against the eks-get-token vectors
 * (token and presigned URL byte for byte, with and without a session
 * token), and the 14-minute cache.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "cloud/ekstoken.h"
#include "t/tap.h"
#include "t/unit/awstest.h"

static time_t fake_now;

static time_t
fake_clock(void)
{
	return fake_now;
}

static void
test_vector(const char *shared, const char *name)
{
	struct aws_creds cr;
	struct tm tm;
	json_object *c, *k;
	char path[4096], token[SW_EKS_TOKEN_MAX + 1];
	char url[SW_EKS_TOKEN_MAX], *want_tok, *want_url;
	sw_err rc;

	snprintf(path, sizeof(path),
	    "%s/testdata/sigv4/eks-get-token/%s/"
	    "context.json",
	    shared, name);
	c = json_object_from_file(path);
	snprintf(path, sizeof(path),
	    "%s/testdata/sigv4/eks-get-token/%s/"
	    "token.txt",
	    shared, name);
	want_tok = awstest_slurp(path, NULL);
	snprintf(path, sizeof(path),
	    "%s/testdata/sigv4/eks-get-token/%s/"
	    "presigned-url.txt",
	    shared, name);
	want_url = awstest_slurp(path, NULL);
	if (!ok(c != NULL && want_tok != NULL && want_url != NULL,
		"%s: vector readable", name))
		goto out;
	memset(&cr, 0, sizeof(cr));
	k = json_object_object_get(c, "credentials");
	snprintf(cr.access_key, sizeof(cr.access_key), "%s",
	    json_object_get_string(json_object_object_get(k, "access_key_id")));
	snprintf(cr.secret_key, sizeof(cr.secret_key), "%s",
	    json_object_get_string(
		json_object_object_get(k, "secret_access_key")));
	if (json_object_object_get(k, "token") != NULL)
		snprintf(cr.token, sizeof(cr.token), "%s",
		    json_object_get_string(json_object_object_get(k, "token")));
	memset(&tm, 0, sizeof(tm));
	strptime(json_object_get_string(json_object_object_get(c, "timestamp")),
	    "%Y-%m-%dT%H:%M:%SZ", &tm);
	rc = ekstoken_build(&cr, "https://sts.us-west-2.amazonaws.com",
	    json_object_get_string(json_object_object_get(c, "region")),
	    json_object_get_string(json_object_object_get(c, "cluster_name")),
	    timegm(&tm), token, sizeof(token), url, sizeof(url));
	is_int(rc, SW_OK, "token builds");
	want_url[strcspn(want_url, "\r\n")] = '\0';
	want_tok[strcspn(want_tok, "\r\n")] = '\0';
	is_str(url, want_url, "presigned URL matches aws eks get-token");
	is_str(token, want_tok, "token matches aws eks get-token");
	ok(strncmp(token, "k8s-aws-v1.", 11) == 0 &&
		strchr(token, '=') == NULL && strchr(token, '+') == NULL &&
		strlen(token) <= 4096,
	    "k8s-aws-v1., base64url, no padding, "
	    "at most 4 KiB");
out:
	json_object_put(c);
	free(want_tok);
	free(want_url);
}

static void
test_cache(void)
{
	struct aws_ctx ctx;
	struct eks_token cache;
	struct eks_token_source src;
	struct aws_error err;
	char t1[SW_EKS_TOKEN_MAX + 1];
	char t2[SW_EKS_TOKEN_MAX + 1];

	aws_ctx_init(&ctx, "us-west-2");
	creds_set_static(&ctx.creds, "AKIDEXAMPLE", "secret", NULL);
	ctx.clock = fake_clock;
	fake_now = 1440938160;
	memset(&cache, 0, sizeof(cache));
	is_int(ekstoken_get(&ctx, &cache, "demo", t1, sizeof(t1), &err), SW_OK,
	    "token from context");
	fake_now += 13 * 60;
	ekstoken_get(&ctx, &cache, "demo", t2, sizeof(t2), &err);
	is_str(t2, t1, "reused for 13 minutes");
	ekstoken_get(&ctx, &cache, "other", t2, sizeof(t2), &err);
	ok(strcmp(t2, t1) != 0, "another cluster gets its own token");
	ekstoken_get(&ctx, &cache, "demo", t1, sizeof(t1), &err);
	fake_now += 14 * 60;
	ekstoken_get(&ctx, &cache, "demo", t2, sizeof(t2), &err);
	ok(strcmp(t2, t1) != 0, "replaced after 14 minutes");
	memset(&src, 0, sizeof(src));
	src.ctx = &ctx;
	snprintf(src.cluster, sizeof(src.cluster), "demo");
	is_int(ekstoken_k8s_fn(&src, 0, t1, sizeof(t1)), SW_OK,
	    "k8s token source");
	is_str(t1, t2, "same clock, same token");
	ok(ekstoken_get(&ctx, &cache, "", t1, sizeof(t1), &err) == SW_EINVAL,
	    "empty cluster name refused");
	aws_ctx_free(&ctx);
}

int
main(void)
{
	const char *shared;

	if ((shared = awstest_shared()) == NULL)
		skip_all("../shared absent");
	test_vector(shared, "us-west-2-no-session-token");
	test_vector(shared, "us-west-2-session-token");
	test_cache();
	return tap_done();
}
