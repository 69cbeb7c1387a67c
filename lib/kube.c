/*
 * kube.c: Kubernetes clients for EKS clusters (see kube.h).  The CA
 * arrives base64 in DescribeCluster and is decoded by
 * aws_eks_cluster_access(), the only decoder of it in the tree.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/alloc.h"
#include "lib/aws_api.h"
#include "lib/kube.h"

sw_err
sw_kube_connect(struct aws_ctx *ctx, const char *cluster, struct sw_kube *kb,
    struct aws_error *err)
{
	char *endpoint = NULL, *pem = NULL;
	size_t pemlen = 0;
	sw_err e;

	memset(kb, 0, sizeof(*kb));
	memset(err, 0, sizeof(*err));
	e = aws_eks_cluster_access(ctx, cluster, &endpoint, &pem, &pemlen,
	    err);
	if (e != SW_OK) {
		if (strcmp(err->code, "ClusterNotReady") == 0)
			return SW_ECONFLICT;
		return e == SW_EUPSTREAM ? aws_error_sw(err) : e;
	}
	e = k8s_init(&kb->k, endpoint, pem, pemlen, 0);
	free(endpoint);
	free(pem);
	if (e != SW_OK) {
		snprintf(err->message, sizeof(err->message), "cannot set up a "
		    "Kubernetes client for cluster %s", cluster);
		sw_kube_close(kb);
		return e;
	}
	if ((kb->src = sw_calloc(1, sizeof(*kb->src))) == NULL) {
		sw_kube_close(kb);
		return SW_ENOMEM;
	}
	kb->src->ctx = ctx;
	if (snprintf(kb->src->cluster, sizeof(kb->src->cluster), "%s",
	    cluster) >= (int)sizeof(kb->src->cluster)) {
		sw_kube_close(kb);
		return SW_EINVAL;
	}
	k8s_set_token_fn(&kb->k, ekstoken_k8s_fn, kb->src);
	return SW_OK;
}

void
sw_kube_close(struct sw_kube *kb)
{
	k8s_free(&kb->k);
	free(kb->src);
	kb->src = NULL;
}
