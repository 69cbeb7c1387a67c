/*
 * ekstoken.h: the bearer token EKS accepts from IAM principals, as
 * "aws eks get-token" makes it: "k8s-aws-v1." + unpadded base64url of
 * a presigned STS GetCallerIdentity URL whose signature covers an
 * x-k8s-aws-id header naming the cluster (X-Amz-Expires=60).  STS
 * honours such a URL for 15 minutes, so a cached token is replaced
 * after SW_EKS_TOKEN_REFRESH (14 minutes).
 */
#ifndef SW_EKSTOKEN_H
#define SW_EKSTOKEN_H

#include <stddef.h>
#include <time.h>

#include "cloud/aws.h"
#include "cloud/creds.h"
#include "lib/err.h"
#include "lib/limits.h"

/* A cached token for one cluster; plain data, nothing to free. */
struct eks_token {
	char cluster[101]; /* EKS names: 1-100 characters */
	char token[SW_EKS_TOKEN_MAX + 1];
	time_t made; /* 0: empty */
};

/*
 * Build a token (pure function): sts_url is the STS base URL
 * ("https://sts.us-west-2.amazonaws.com"), region its signing region,
 * when the signing time.  The token is written into out (NUL-ended);
 * the presigned URL into url when url is not NULL.
 */
sw_err ekstoken_build(const struct aws_creds *, const char *sts_url,
    const char *region, const char *cluster, time_t when, char *out,
    size_t outsz, char *url, size_t urlsz);
/*
 * The token for cluster from ctx's credentials and STS endpoint,
 * reusing cache while it is younger than SW_EKS_TOKEN_REFRESH.  cache
 * is the caller's (zero it before first use).
 */
sw_err ekstoken_get(struct aws_ctx *, struct eks_token *cache,
    const char *cluster, char *out, size_t outsz, struct aws_error *);

/* Glue for cloud/k8s.c: a token source for one cluster. */
struct eks_token_source {
	struct aws_ctx *ctx; /* borrowed */
	struct eks_token cache;
	char cluster[101];
};

/* k8s_token_fn for an eks_token_source (arg); force drops the cache. */
sw_err ekstoken_k8s_fn(void *arg, int force, char *out, size_t outsz);

#endif
