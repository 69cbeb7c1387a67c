/*
 * ekstoken.c: EKS bearer tokens (see ekstoken.h).  Presigning is
 * cloud/sigv4.c's; this file adds the request shape, the base64url
 * wrapping and the cache.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "lib/buf.h"
#include "cloud/ekstoken.h"
#include "cloud/sigv4.h"

#define EKS_TOKEN_PREFIX "k8s-aws-v1."
#define EKS_ID_HEADER "x-k8s-aws-id"
#define EKS_STS_QUERY "Action=GetCallerIdentity&Version=2011-06-15"

/* Unpadded base64url of len bytes into out (outsz incl. the NUL). */
static sw_err
eks_b64url(const unsigned char *in, size_t len, char *out, size_t outsz)
{
	size_t need = 4 * ((len + 2) / 3) + 1, i;
	int n;

	if (need > outsz || len > (size_t)SW_EKS_TOKEN_MAX)
		return SW_ETOOBIG;
	n = EVP_EncodeBlock((unsigned char *)out, in, (int)len);
	if (n < 0)
		return SW_EINTERNAL;
	while (n > 0 && out[n - 1] == '=')
		n--;
	out[n] = '\0';
	for (i = 0; i < (size_t)n; i++) {
		if (out[i] == '+')
			out[i] = '-';
		else if (out[i] == '/')
			out[i] = '_';
	}
	return SW_OK;
}

sw_err
ekstoken_build(const struct aws_creds *cr, const char *sts_url,
    const char *region, const char *cluster, time_t when, char *out,
    size_t outsz, char *urlout, size_t urlsz)
{
	struct http_request req;
	struct sigv4_params sp;
	char *url = NULL;
	size_t plen = strlen(EKS_TOKEN_PREFIX);
	sw_err rc;

	memset(&req, 0, sizeof(req));
	if (cluster == NULL || *cluster == '\0' || strlen(cluster) > 100 ||
	    strpbrk(cluster, "\r\n") != NULL || outsz <= plen)
		return SW_EINVAL;
	if ((rc = http_request_init(
		 &req, "GET", sts_url, "/", EKS_STS_QUERY)) != SW_OK ||
	    (rc = http_headers_add(&req.headers, EKS_ID_HEADER, cluster)) !=
		SW_OK)
		goto out;
	memset(&sp, 0, sizeof(sp));
	sp.access_key = cr->access_key;
	sp.secret_key = cr->secret_key;
	sp.session_token = cr->token;
	sp.region = region;
	sp.service = "sts";
	sp.when = when;
	sp.expires = SW_EKS_TOKEN_EXPIRES;
	if ((rc = sigv4_presign(&req, &sp, NULL)) != SW_OK)
		goto out;
	if ((url = http_request_url(&req)) == NULL) {
		rc = SW_ENOMEM;
		goto out;
	}
	memcpy(out, EKS_TOKEN_PREFIX, plen);
	if ((rc = eks_b64url((const unsigned char *)url, strlen(url),
		 out + plen, outsz - plen)) != SW_OK)
		goto out;
	if (urlout != NULL &&
	    (size_t)snprintf(urlout, urlsz, "%s", url) >= urlsz)
		rc = SW_ETOOBIG;
out:
	free(url);
	http_request_free(&req);
	return rc;
}

sw_err
ekstoken_get(struct aws_ctx *ctx, struct eks_token *cache, const char *cluster,
    char *out, size_t outsz, struct aws_error *err)
{
	struct aws_creds cr;
	char sts[SW_AWS_MAX_URL], reg[SW_AWS_MAX_NAME];
	time_t now = ctx->clock();
	sw_err rc;

	aws_error_clear(err);
	if (cache->made != 0 && strcmp(cache->cluster, cluster) == 0 &&
	    now >= cache->made && now - cache->made < SW_EKS_TOKEN_REFRESH) {
		if ((size_t)snprintf(out, outsz, "%s", cache->token) >= outsz)
			return SW_ETOOBIG;
		return SW_OK;
	}
	if ((rc = creds_get(&ctx->creds, &cr, err)) != SW_OK)
		return rc;
	/*
	 * The token names the regional STS host even when STS calls go
	 * elsewhere (a sandbox, a VPC endpoint): the cluster's
	 * authenticator accepts only sts.<region>.amazonaws.com URLs and
	 * makes the call itself.
	 */
	if ((rc = aws_endpoint(ctx, AWS_SVC_STS, sts, sizeof(sts), reg,
		 sizeof(reg))) != SW_OK)
		goto out;
	cache->made = 0;
	if ((rc = sw_fmt(sts, sizeof(sts), "https://sts.%s.amazonaws.com",
		 reg)) != SW_OK ||
	    (rc = ekstoken_build(&cr, sts, reg, cluster, now, cache->token,
		 sizeof(cache->token), NULL, 0)) != SW_OK)
		goto out;
	if ((rc = sw_fmt(cache->cluster, sizeof(cache->cluster), "%s",
		 cluster)) != SW_OK)
		goto out;
	cache->made = now;
	if ((size_t)snprintf(out, outsz, "%s", cache->token) >= outsz)
		rc = SW_ETOOBIG;
out:
	memset(&cr, 0, sizeof(cr));
	return rc;
}

sw_err
ekstoken_k8s_fn(void *arg, int force, char *out, size_t outsz)
{
	struct eks_token_source *src = arg;
	struct aws_error err;

	if (force)
		src->cache.made = 0;
	return ekstoken_get(
	    src->ctx, &src->cache, src->cluster, out, outsz, &err);
}
