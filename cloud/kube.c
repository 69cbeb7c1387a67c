/*
 * kube.c: Kubernetes clients for EKS clusters (see kube.h).  The CA
 * arrives base64 in DescribeCluster and is decoded by
 * aws_eks_cluster_access(), the only decoder of it in the tree.
 *
 * A process remembers the endpoint and CA of the clusters its pipelines
 * reach (a ring of SW_KUBE_MEMO entries), so a stage that knows which
 * endpoint its cluster has opens a client without asking EKS again.  A
 * store beyond it (the poller's: the cluster's record in the database)
 * shares them between processes and replicas, so a poller that takes
 * over an operation or a cluster's watch does not ask either.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/json.h"
#include "lib/alloc.h"
#include "cloud/aws_api.h"
#include "cloud/kube.h"
#include "lib/limits.h"

/* One remembered cluster: what its DescribeCluster gave. */
struct kube_memo {
	char cluster[SW_KUBE_MAX_NAME];
	char *endpoint;
	char *pem;
	size_t pemlen;
};

static struct kube_memo memo[SW_KUBE_MEMO];
static size_t memo_next;
static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;
/* Beyond the memo: what the other processes learnt (sw_kube_set_store). */
static struct sw_kube_store store;

void
sw_kube_set_store(const struct sw_kube_store *s)
{
	if (s != NULL)
		store = *s;
	else
		memset(&store, 0, sizeof(store));
}

/* The memo of cluster, or NULL.  Called with memo_lock held. */
static struct kube_memo *
memo_find(const char *cluster)
{
	size_t i;

	for (i = 0; i < SW_KUBE_MEMO; i++)
		if (memo[i].endpoint != NULL &&
		    strcmp(memo[i].cluster, cluster) == 0)
			return &memo[i];
	return NULL;
}

/* Remember endpoint and pem for cluster (copied); a name too long to
 * keep is not remembered. */
static void
memo_put(
    const char *cluster, const char *endpoint, const char *pem, size_t pemlen)
{
	struct kube_memo *m;
	char *ep, *ca;

	if (strlen(cluster) >= SW_KUBE_MAX_NAME)
		return;
	ep = sw_strdup(endpoint);
	ca = sw_malloc(pemlen + 1);
	if (ep == NULL || ca == NULL) {
		free(ep);
		free(ca);
		return;
	}
	memcpy(ca, pem, pemlen);
	ca[pemlen] = '\0';
	pthread_mutex_lock(&memo_lock);
	if ((m = memo_find(cluster)) == NULL) {
		m = &memo[memo_next];
		memo_next = (memo_next + 1) % SW_KUBE_MEMO;
	}
	free(m->endpoint);
	free(m->pem);
	memcpy(m->cluster, cluster, strlen(cluster) + 1);
	m->endpoint = ep;
	m->pem = ca;
	m->pemlen = pemlen;
	pthread_mutex_unlock(&memo_lock);
}

/* What EKS said of cluster: into the memo, and the store when it
 * holds something else. */
static void
learn(const char *cluster, const char *endpoint, const char *pem, size_t pemlen)
{
	char *ep = NULL, *ca = NULL;
	size_t calen = 0;

	memo_put(cluster, endpoint, pem, pemlen);
	if (store.put == NULL)
		return;
	if (store.get != NULL &&
	    store.get(store.arg, cluster, &ep, &ca, &calen) == SW_OK &&
	    strcmp(ep, endpoint) == 0 && calen == pemlen &&
	    memcmp(ca, pem, pemlen) == 0) {
		free(ep);
		free(ca);
		return;
	}
	free(ep);
	free(ca);
	/* a CA with a NUL in it is not PEM: not kept */
	if (memchr(pem, '\0', pemlen) == NULL)
		(void)store.put(store.arg, cluster, endpoint, pem);
}

/* A client for endpoint with CA pem, EKS tokens for cluster. */
static sw_err
kube_setup(struct aws_ctx *ctx, const char *cluster, const char *endpoint,
    const char *pem, size_t pemlen, struct sw_kube *kb, struct aws_error *err)
{
	sw_err e;

	e = k8s_init(&kb->k, endpoint, pem, pemlen, 0);
	if (e != SW_OK) {
		sw_fmt_text(err->message, sizeof(err->message),
		    "cannot set up "
		    "a "
		    "Kubernetes client for cluster %s",
		    cluster);
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

sw_err
sw_kube_connect(struct aws_ctx *ctx, const char *cluster, struct sw_kube *kb,
    struct aws_error *err)
{
	char *endpoint = NULL, *pem = NULL;
	size_t pemlen = 0;
	sw_err e;

	memset(kb, 0, sizeof(*kb));
	memset(err, 0, sizeof(*err));
	e = aws_eks_cluster_access(ctx, cluster, &endpoint, &pem, &pemlen, err);
	if (e != SW_OK) {
		if (strcmp(err->code, "ClusterNotReady") == 0)
			return SW_ECONFLICT;
		return e == SW_EUPSTREAM ? aws_error_sw(err) : e;
	}
	learn(cluster, endpoint, pem, pemlen);
	e = kube_setup(ctx, cluster, endpoint, pem, pemlen, kb, err);
	free(endpoint);
	free(pem);
	return e;
}

sw_err
sw_kube_connect_known(struct aws_ctx *ctx, const char *cluster,
    const char *endpoint, struct sw_kube *kb, struct aws_error *err, int *asked)
{
	struct kube_memo *m;
	char *ep = NULL, *pem = NULL;
	size_t pemlen = 0;
	sw_err e;

	*asked = 0;
	memset(kb, 0, sizeof(*kb));
	memset(err, 0, sizeof(*err));
	pthread_mutex_lock(&memo_lock);
	if ((m = memo_find(cluster)) != NULL &&
	    (endpoint == NULL || strcmp(m->endpoint, endpoint) == 0) &&
	    (ep = sw_strdup(m->endpoint)) != NULL &&
	    (pem = sw_malloc(m->pemlen + 1)) != NULL) {
		memcpy(pem, m->pem, m->pemlen + 1);
		pemlen = m->pemlen;
	}
	pthread_mutex_unlock(&memo_lock);
	if (pem == NULL && store.get != NULL) {
		/* what another process (or replica) learnt */
		free(ep);
		ep = NULL;
		if (store.get(store.arg, cluster, &ep, &pem, &pemlen) ==
			SW_OK &&
		    (endpoint == NULL || strcmp(ep, endpoint) == 0))
			memo_put(cluster, ep, pem, pemlen);
		else {
			free(pem);
			pem = NULL;
		}
	}
	if (pem == NULL) {
		free(ep);
		*asked = 1;
		return sw_kube_connect(ctx, cluster, kb, err);
	}
	e = kube_setup(ctx, cluster, ep, pem, pemlen, kb, err);
	free(ep);
	free(pem);
	return e;
}

sw_err
sw_kube_remember(const char *cluster, json_object *doc)
{
	struct aws_error err;
	char *endpoint = NULL, *pem = NULL;
	size_t pemlen = 0;
	sw_err e;

	memset(&err, 0, sizeof(err));
	if ((e = aws_cluster_access_of(
		 doc, cluster, &endpoint, &pem, &pemlen, &err)) != SW_OK)
		return e;
	learn(cluster, endpoint, pem, pemlen);
	free(endpoint);
	free(pem);
	return SW_OK;
}

void
sw_kube_forget(const char *cluster)
{
	struct kube_memo *m;

	pthread_mutex_lock(&memo_lock);
	if ((m = memo_find(cluster)) != NULL) {
		free(m->endpoint);
		free(m->pem);
		m->endpoint = m->pem = NULL;
	}
	pthread_mutex_unlock(&memo_lock);
	if (store.put != NULL)
		(void)store.put(store.arg, cluster, NULL, NULL);
}

void
sw_kube_close(struct sw_kube *kb)
{
	k8s_free(&kb->k);
	free(kb->src);
	kb->src = NULL;
}

/* The controller of obj (an ownerReferences entry, borrowed), or NULL. */
static json_object *
controller_of(json_object *obj)
{
	json_object *meta = NULL, *refs = NULL, *ref, *c;
	size_t i;

	if (!json_object_object_get_ex(obj, "metadata", &meta) ||
	    !json_object_object_get_ex(meta, "ownerReferences", &refs) ||
	    !json_object_is_type(refs, json_type_array))
		return NULL;
	for (i = 0; i < json_object_array_length(refs); i++) {
		ref = json_object_array_get_idx(refs, i);
		if (json_object_object_get_ex(ref, "controller", &c) &&
		    json_object_get_boolean(c))
			return ref;
	}
	return NULL;
}

/* The path of the object ref names in namespace ns: its kind's plural
 * is the kind in lower case with an "s" (ReplicaSet, Deployment,
 * InferenceEndpointConfig, JumpStartModel); a kind named otherwise is
 * not found, and so not ours. */
static sw_err
owner_path(char *out, size_t outsz, json_object *ref, const char *ns)
{
	const char *api = sw_json_get_str(ref, "apiVersion");
	const char *kind = sw_json_get_str(ref, "kind");
	char plural[64];
	size_t i, n;

	if (api == NULL || kind == NULL || (n = strlen(kind)) == 0 ||
	    n >= sizeof(plural) - 1)
		return SW_EINVAL;
	for (i = 0; i < n; i++)
		plural[i] = (char)(kind[i] >= 'A' && kind[i] <= 'Z'
			? kind[i] - 'A' + 'a'
			: kind[i]);
	plural[n] = 's';
	plural[n + 1] = '\0';
	return k8s_path(
	    out, outsz, api, ns, plural, sw_json_get_str(ref, "name"));
}

int
sw_kube_controlled_by_us(struct sw_kube *kb, json_object *obj)
{
	const char *ns = sw_json_path_str(obj, "metadata.namespace");
	json_object *cur = json_object_get(obj), *next, *ref;
	struct k8s_error ke;
	char path[1024];
	int depth, ours = 0;

	for (depth = 0; cur != NULL && depth <= SW_KUBE_OWNER_DEPTH; depth++) {
		if ((ours = sw_kube_pod_ours(cur)))
			break;
		next = NULL;
		memset(&ke, 0, sizeof(ke));
		if ((ref = controller_of(cur)) != NULL &&
		    owner_path(path, sizeof(path), ref, ns) == SW_OK)
			(void)k8s_get(&kb->k, path, &next, &ke);
		json_object_put(cur);
		cur = next;
	}
	json_object_put(cur);
	return ours;
}

int
sw_kube_pod_ours(json_object *pod)
{
	json_object *labels = NULL, *meta = NULL, *v = NULL;

	return json_object_object_get_ex(pod, "metadata", &meta) &&
	    json_object_object_get_ex(meta, "labels", &labels) &&
	    json_object_object_get_ex(labels, SW_KUBE_MANAGED_BY, &v) &&
	    json_object_is_type(v, json_type_string) &&
	    strcmp(json_object_get_string(v), SW_KUBE_MANAGER) == 0;
}
