/*
 * inference_managed.c: endpoints the HyperPod inference operator runs.
 * inference_deploy with kind managed writes an InferenceEndpointConfig
 * (v1: a vLLM-based LMCache worker, the model source, kvCacheSpec,
 * intelligentRoutingSpec, autoScalingSpec, tlsConfig); kind jumpstart
 * writes a JumpStartModel.  The operator (facts 2) turns either into
 * model-server pods, a Service and, with autoscaling, a KEDA
 * ScaledObject, all owned by the custom resource.
 *
 * What the operator needs from AWS comes and goes with the endpoint:
 * the S3 bucket its TLS certificate is written to (tlsConfig), and an
 * inline policy on the operator's execution role (made by feature_set
 * inference_operator) that lets it write that bucket and read the
 * model's.  inference_delete removes the resource, empties and deletes
 * the bucket and deletes the policy, so nothing is left behind.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "handlers/inference.h"
#include "handlers/manifests.h"
#include "handlers/workloads.h"
#include "cloud/aws.h"
#include "cloud/aws_api.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "cloud/k8s.h"
#include "pipelines/pipelines.h"

#define INF_GROUP "inference.sagemaker.aws.amazon.com"
#define INF_API INF_GROUP "/v1"
#define LMCACHE_IMAGE "lmcache/vllm-openai:v0.3.1"
#define WORKER_PORT 8000
#define AMP_PREFIX "https://aps-workspaces."
#define WORKER_GPUS 1 /* what a managed worker asks for */

/* clang-format off */
const struct inf_kind inf_kinds[] = {
	{ "managed", "InferenceEndpointConfig", "inferenceendpointconfigs" },
	{ "jumpstart", "JumpStartModel", "jumpstartmodels" },
	{ NULL, NULL, NULL }
};
/* clang-format on */

/* The TLS bucket of an endpoint: one per (region, cluster, namespace,
 * endpoint), short enough for S3 whatever the names' lengths. */
sw_err
inf_tls_bucket(const char *region, const char *cluster, const char *ns,
    const char *name, char *out, size_t outsz)
{
	const char *parts[4] = { region, cluster, ns, name };
	uint64_t h = 1469598103934665603ULL;
	size_t i;
	const char *c;

	for (i = 0; i < 4; i++) {
		for (c = parts[i]; c != NULL && *c != '\0'; c++) {
			h ^= (unsigned char)*c;
			h *= 1099511628211ULL;
		}
		h ^= '/';
		h *= 1099511628211ULL;
	}
	return sw_fmt(
	    out, outsz, "slipway-inference-tls-%016llx", (unsigned long long)h);
}

/* The operator's execution role and this endpoint's policy on it. */
static sw_err
iam_names(const char *cluster, const char *ns, const char *name, char *role,
    size_t rolesz, char *policy, size_t policysz)
{
	sw_name(role, rolesz, cluster, SW_ROLE_INFERENCE);
	return sw_fmt(policy, policysz, "slipway-inference-%s-%s", ns, name);
}

/* The model source as the CRD's modelSourceConfig; NULL with a field
 * error when uri does not fit type. */
static json_object *
model_source(struct sw_req *r, json_object *src, const char *region)
{
	const char *type = sw_json_get_str(src, "type");
	const char *uri = sw_json_get_str(src, "uri");
	char bucket[64];
	const char *slash;
	size_t n;

	if (strcmp(type, "s3") == 0) {
		if (strncmp(uri, "s3://", 5) != 0 || uri[5] == '\0' ||
		    uri[5] == '/') {
			sw_ferr_add(&r->ferrs, "model_source.uri", "pattern",
			    "an s3 source is s3://bucket/prefix");
			return NULL;
		}
		slash = strchr(uri + 5, '/');
		n = slash ? (size_t)(slash - uri - 5) : strlen(uri + 5);
		if (n < 3 || n >= sizeof(bucket)) {
			sw_ferr_add(&r->ferrs, "model_source.uri", "pattern",
			    "the bucket name must have 3 to 63 characters");
			return NULL;
		}
		memcpy(bucket, uri + 5, n);
		bucket[n] = '\0';
		return sw_jo("modelSourceType", sw_js("s3"), "s3Storage",
		    sw_jo("bucketName", sw_js(bucket), "region", sw_js(region),
			NULL),
		    "modelLocation",
		    slash && slash[1] ? sw_js(slash + 1) : NULL, NULL);
	}
	if (strcmp(type, "fsx") == 0) {
		if (strncmp(uri, "fs-", 3) != 0) {
			sw_ferr_add(&r->ferrs, "model_source.uri", "pattern",
			    "an fsx source is fs-<id>[/path]");
			return NULL;
		}
		slash = strchr(uri, '/');
		n = slash ? (size_t)(slash - uri) : strlen(uri);
		if (n >= sizeof(bucket)) {
			sw_ferr_add(&r->ferrs, "model_source.uri", "pattern",
			    "file system id too long");
			return NULL;
		}
		memcpy(bucket, uri, n);
		bucket[n] = '\0';
		return sw_jo("modelSourceType", sw_js("fsx"), "fsxStorage",
		    sw_jo("fileSystemId", sw_js(bucket), NULL), "modelLocation",
		    slash && slash[1] ? sw_js(slash + 1) : NULL, NULL);
	}
	slash = strchr(uri, '/');
	if (slash == NULL || slash == uri || slash[1] == '\0' ||
	    strchr(slash + 1, '/') != NULL) {
		sw_ferr_add(&r->ferrs, "model_source.uri", "pattern",
		    "a huggingface source is org/model");
		return NULL;
	}
	return sw_jo("modelSourceType", sw_js("huggingface"),
	    "huggingFaceModel", sw_jo("modelId", sw_js(uri), NULL), NULL);
}

/* autoscaling -> autoScalingSpec with a Prometheus trigger. */
static json_object *
scaling_spec(json_object *as, const char *name)
{
	json_object *th = sw_json_get(as, "threshold");

	return sw_jo("minReplicaCount",
	    sw_ji(sw_json_get_int(as, "min_replicas", 1)), "maxReplicaCount",
	    sw_ji(sw_json_get_int(as, "max_replicas", 1)), "pollingInterval",
	    sw_ji(30), "cooldownPeriod", sw_ji(300), "prometheusTrigger",
	    sw_jo("serverAddress", sw_js(sw_json_get_str(as, "prometheus_url")),
		"query",
		sw_jsf("sum(vllm:num_requests_waiting{"
		       "model_name=\"%s\"})",
		    name),
		"targetValue",
		json_object_new_double(th ? json_object_get_double(th) : 8),
		NULL),
	    NULL);
}

/* The cross-field rules of a managed or JumpStart body (which members
 * go with which kind is the operation table's, api/ops/inference.c). */
static void
check_body(struct sw_req *r, json_object *a, int managed)
{
	json_object *as = sw_json_get(a, "autoscaling");
	const char *kind = managed ? "managed" : "jumpstart";
	const char *url;

	if (sw_json_get(a, "engine") != NULL &&
	    strcmp(sw_json_get_str(a, "engine"), "vllm") != 0)
		sw_ferr_add(&r->ferrs, "engine", "kind",
		    "the operator's KV "
		    "cache and routing support only vLLM-based servers");
	if (sw_json_get(a, "instance_type") == NULL)
		sw_ferr_add(&r->ferrs, "instance_type", "required",
		    "%s "
		    "endpoints name their HyperPod instance type",
		    kind);
	if (strcmp(sw_json_get_str(a, "exposure"), "service") != 0)
		sw_ferr_add(&r->ferrs, "exposure", "kind",
		    "%s endpoints get "
		    "the operator's ClusterIP Service",
		    kind);
	if (managed && sw_json_get(a, "model_source") == NULL)
		sw_ferr_add(&r->ferrs, "model_source", "required",
		    "where the "
		    "operator loads the model from");
	if (!managed && sw_json_get(a, "model_id") == NULL)
		sw_ferr_add(&r->ferrs, "model_id", "required",
		    "the JumpStart "
		    "model id");
	if (sw_json_get(sw_json_get(a, "kv_cache"), "l2") != NULL &&
	    strcmp(sw_json_get_str(sw_json_get(a, "kv_cache"), "l2"),
		"redis") == 0 &&
	    sw_json_get(sw_json_get(a, "kv_cache"), "redis_url") == NULL)
		sw_ferr_add(&r->ferrs, "kv_cache.redis_url", "required",
		    "an l2 redis cache needs its URL");
	if (as != NULL) {
		if (sw_json_get(a, "replicas") != NULL)
			sw_ferr_add(&r->ferrs, "replicas", "autoscaling",
			    "the "
			    "autoscaler sets replicas; give "
			    "autoscaling.min_replicas");
		url = sw_json_get_str(as, "prometheus_url");
		if (url == NULL ||
		    strncmp(url, AMP_PREFIX, strlen(AMP_PREFIX)) != 0 ||
		    strstr(url, "/workspaces/ws-") == NULL)
			sw_ferr_add(&r->ferrs, "autoscaling.prometheus_url",
			    "pattern",
			    "the operator's Prometheus trigger "
			    "takes an Amazon Managed Prometheus workspace URL, "
			    "https://aps-workspaces.<region>.amazonaws.com/"
			    "workspaces/ws-...");
	}
}

/* The custom resource for a managed or JumpStart body; NULL with a
 * field error. */
static json_object *
build_cr(struct sw_req *r, json_object *a, int managed, const char *region,
    const char *ns, const char *bucket)
{
	const char *name = sw_json_get_str(a, "endpoint_name");
	json_object *kv = sw_json_get(a, "kv_cache"),
		    *rt = sw_json_get(a, "routing"),
		    *as = sw_json_get(a, "autoscaling"), *src = NULL, *spec,
		    *labels, *kvspec = NULL;
	const char *l2 = sw_json_get_str(kv, "l2");
	if (managed &&
	    (src = model_source(r, sw_json_get(a, "model_source"), region)) ==
		NULL)
		return NULL;
	if (kv != NULL)
		kvspec = sw_jo("enableL1Cache",
		    sw_jb(sw_json_get_bool(kv, "l1", 1)), "enableL2Cache",
		    sw_jb(l2 != NULL), "l2CacheSpec",
		    l2 ? sw_jo("l2CacheBackend", sw_js(l2), "l2CacheLocalUrl",
			     sw_json_get(kv, "redis_url")
				 ? sw_js(sw_json_get_str(kv, "redis_url"))
				 : NULL,
			     NULL)
		       : NULL,
		    NULL);
	spec = sw_jo("replicas",
	    as == NULL ? sw_ji(sw_json_get_int(a, "replicas", 1)) : NULL,
	    "kvCacheSpec", kvspec, "intelligentRoutingSpec",
	    rt ? sw_jo("enabled", sw_jb(1), "routingStrategy",
		     sw_js(sw_json_get_str(rt, "strategy")), NULL)
	       : NULL,

	    "autoScalingSpec", as ? scaling_spec(as, name) : NULL, "tlsConfig",
	    sw_jo(
		"tlsCertificateOutputS3Uri", sw_jsf("s3://%s/", bucket), NULL),
	    NULL);
	if (managed) {
		json_object_object_add(spec, "modelName", sw_js(name));
		json_object_object_add(spec, "endpointName", sw_js(""));
		json_object_object_add(spec, "instanceType",
		    sw_js(sw_json_get_str(a, "instance_type")));
		json_object_object_add(
		    spec, "invocationEndpoint", sw_js("v1/chat/completions"));
		json_object_object_add(spec, "modelSourceConfig", src);
		json_object_object_add(spec, "worker",
		    sw_jo("image", sw_js(LMCACHE_IMAGE), "args",
			sw_ja(sw_js("/opt/ml/model"),
			    sw_js("--served-model-name"), sw_js(name),
			    sw_js("--max-model-len"), sw_js("4096")),
			"modelInvocationPort",
			sw_jo("containerPort", sw_ji(WORKER_PORT), "name",
			    sw_js("http"), NULL),
			"modelVolumeMount",
			sw_jo("name", sw_js("model-weights"), "mountPath",
			    sw_js("/opt/ml/model"), NULL),
			"resources", wl_accel_resources(WORKER_GPUS, 0), NULL));
	} else {
		json_object_object_add(spec, "model",
		    sw_jo("modelId", sw_js(sw_json_get_str(a, "model_id")),
			"modelVersion",
			sw_json_get(a, "model_version")
			    ? sw_js(sw_json_get_str(a, "model_version"))
			    : NULL,
			"acceptEula",
			sw_jb(sw_json_get_bool(a, "accept_eula", 0)), NULL));
		json_object_object_add(spec, "server",
		    sw_jo("instanceType",
			sw_js(sw_json_get_str(a, "instance_type")), NULL));
	}
	labels = sw_jo(WL_MANAGED, sw_js("slipway"), WL_INF, sw_js(name),
	    WL_ROLE, sw_js("managed"), NULL);
	return sw_jo("apiVersion", sw_js(INF_API), "kind",
	    sw_js(managed ? "InferenceEndpointConfig" : "JumpStartModel"),
	    "metadata",
	    sw_jo("name", sw_js(name), "namespace", sw_js(ns), "labels", labels,
		"annotations",
		sw_jo(INF_SERVED,
		    sw_js(managed ? name : sw_json_get_str(a, "model_id")),
		    NULL),
		NULL),
	    "spec", spec, NULL);
}

/* The operator's policy for this endpoint's buckets. */
static json_object *
operator_policy(const char *tls_bucket, json_object *cr)
{
	const char *mb =
	    sw_json_path_str(cr, "spec.modelSourceConfig.s3Storage.bucketName");
	json_object *st;

	st = sw_ja(sw_jo("Sid", sw_js("TlsCertificateOutput"), "Effect",
	    sw_js("Allow"), "Action",
	    sw_ja(sw_js("s3:PutObject"), sw_js("s3:GetObject"),
		sw_js("s3:ListBucket"), sw_js("s3:GetBucketLocation")),
	    "Resource",
	    sw_ja(sw_jsf("arn:aws:s3:::%s", tls_bucket),
		sw_jsf("arn:aws:s3:::%s/*", tls_bucket)),
	    NULL));

	if (mb != NULL)
		json_object_array_add(st,
		    sw_jo("Sid", sw_js("ModelSource"), "Effect", sw_js("Allow"),
			"Action",
			sw_ja(sw_js("s3:GetObject"), sw_js("s3:ListBucket")),
			"Resource",
			sw_ja(sw_jsf("arn:aws:s3:::%s", mb),
			    sw_jsf("arn:aws:s3:::%s/*", mb)),
			NULL));
	return sw_jo("Version", sw_js("2012-10-17"), "Statement", st, NULL);
}

sw_err
inf_managed_build(struct sw_req *r, int managed, const char *region,
    char bucket[64], json_object **cr, json_object **policy)
{
	json_object *a = r->args;

	*cr = *policy = NULL;
	check_body(r, a, managed);
	if (inf_tls_bucket(region, sw_json_get_str(a, "name"),
		wl_str_or(a, "namespace", "default"),
		sw_json_get_str(a, "endpoint_name"), bucket, 64) != SW_OK)
		return sw_req_fail(r, SW_EINTERNAL,
		    "no room for the TLS "
		    "bucket name");
	if (r->ferrs.n == 0)
		*cr = build_cr(r, a, managed, region,
		    wl_str_or(a, "namespace", "default"), bucket);
	if (r->ferrs.n > 0 || *cr == NULL) {
		json_object_put(*cr);
		*cr = NULL;
		if (r->ferrs.n == 0)
			return sw_req_fail(r, SW_EINTERNAL,
			    "cannot build the "
			    "endpoint");
		return sw_req_fail(r, SW_EINVAL, "%s: %s", r->ferrs.e[0].field,
		    r->ferrs.e[0].msg);
	}
	*policy = operator_policy(bucket, *cr);
	return SW_OK;
}

/* An AWS refusal as the request's problem. */
static sw_err
aws_fail(
    struct sw_req *r, const char *what, sw_err e, const struct aws_error *err)
{
	return sw_req_fail(r,
	    e == SW_ETHROTTLED || e == SW_EUNAVAIL || e == SW_EFORBIDDEN
		? e
		: SW_EUPSTREAM,
	    "%s: %s: %s", what, err->code[0] ? err->code : "error",
	    err->message);
}

/*
 * What the endpoint costs (handlers/cost.c): its replicas (the
 * autoscaler's minimum when it has one) on its instance type, each the
 * worker's GPUs, or for JumpStart a whole instance.
 */
static json_object *
managed_cost(struct sw_req *r, int managed)
{
	json_object *a = r->args, *as = sw_json_get(a, "autoscaling");
	int64_t replicas = as != NULL ? sw_json_get_int(as, "min_replicas", 1)
				      : sw_json_get_int(a, "replicas", 1);

	return h_endpoint_cost(r, sw_json_get_str(a, "name"),
	    sw_json_get_str(a, "instance_type"), replicas,
	    managed ? WORKER_GPUS : 0);
}

sw_err
inf_deploy_managed(struct sw_req *r, struct sw_kube *kb, int managed)
{
	json_object *a = r->args, *cr = NULL, *in = NULL, *out = NULL,
		    *refs = NULL, *pol = NULL;
	const char *cluster = sw_json_get_str(a, "name");
	const char *name = sw_json_get_str(a, "endpoint_name");
	const char *ns = wl_str_or(a, "namespace", "default");
	struct aws_ctx *aws = h_aws(r);
	char bucket[64], role[128], policy[160];
	struct aws_error err;
	int have;
	sw_err e;

	if (inf_managed_build(r, managed, aws->region, bucket, &cr, &pol) !=
	    SW_OK)
		return r->err;
	if ((have = wl_crd_present(r, kb,
		 managed ? "inferenceendpointconfigs." INF_GROUP
			 : "jumpstartmodels." INF_GROUP)) <= 0) {
		if (have == 0)
			wl_need_feature(r, "kind", "inference_operator",
			    "the HyperPod inference operator");
		goto out;
	}
	if (iam_names(cluster, ns, name, role, sizeof(role), policy,
		sizeof(policy)) != SW_OK) {
		sw_req_fail(r, SW_EINVAL,
		    "endpoint %s: the IAM policy name "
		    "is too long",
		    name);
		goto out;
	}
	if (r->dry_run) {
		wl_answer_plan(r, sw_ja(json_object_get(cr)),
		    sw_jo("endpoint", sw_js(name), "kind",
			sw_js(managed ? "managed" : "jumpstart"), "cost",
			managed_cost(r, managed), "aws",
			sw_ja(sw_jo("create", sw_js("S3 bucket"), "name",
				  sw_js(bucket), NULL),
			    sw_jo("create", sw_js("IAM role policy"), "role",
				sw_js(role), "name", sw_js(policy), "document",
				json_object_get(pol), NULL)),
			NULL));
		goto out;
	}
	if ((aws = h_aws_for(r, &err, &e)) == NULL) {
		aws_fail(r, "STS AssumeRole", e, &err);
		goto out;
	}
	memset(&err, 0, sizeof(err));
	e = aws_s3_create_bucket(aws, bucket, &err);
	if (e != SW_OK && strcmp(err.code, "BucketAlreadyOwnedByYou") != 0) {
		aws_fail(r, "S3 CreateBucket", e, &err);
		goto out;
	}
	in = sw_jo("RoleName", sw_js(role), "PolicyName", sw_js(policy),
	    "PolicyDocument",
	    sw_js(json_object_to_json_string_ext(
		pol, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)),
	    NULL);
	memset(&err, 0, sizeof(err));
	if ((e = aws_call(aws, AWS_SVC_IAM, "PutRolePolicy", in, &out, &err)) !=
	    SW_OK) {
		if (strcmp(err.code, "NoSuchEntity") == 0)
			wl_need_feature(r, "kind", "inference_operator",
			    "the inference operator's execution role");
		else
			aws_fail(r, "IAM PutRolePolicy", e, &err);
		goto out;
	}
	refs =
	    sw_ja(sw_jo("kind", sw_js("S3Bucket"), "name", sw_js(bucket), NULL),
		sw_jo("kind", sw_js("IAMRolePolicy"), "name", sw_js(policy),
		    "role", sw_js(role), NULL));
	if (wl_apply_one(r, kb, cr, NULL) != SW_OK)
		goto out;
	json_object_array_add(refs, wl_manifest_ref(cr));
	wl_answer_applied(r, 200,
	    sw_jo("endpoint", sw_js(name), "namespace", sw_js(ns), "kind",
		sw_js(managed ? "managed" : "jumpstart"), "tls_bucket",
		sw_js(bucket), NULL),
	    refs);
	refs = NULL;
out:
	json_object_put(refs);
	json_object_put(pol);
	json_object_put(in);
	json_object_put(out);
	json_object_put(cr);
	return r->err;
}

int
inf_managed_find(struct sw_req *r, struct sw_kube *kb, const char *ns,
    const char *name, json_object **obj, const struct inf_kind **kind)
{
	const struct inf_kind *k;
	json_object *items;
	char sel[160];
	size_t n;

	*obj = NULL;
	*kind = NULL;
	if (sw_fmt(sel, sizeof(sel), "%s=slipway,%s=%s", WL_MANAGED, WL_INF,
		name) != SW_OK) {
		sw_req_fail(r, SW_EINVAL, "endpoint name %s is too long", name);
		return -1;
	}
	for (k = inf_kinds; k->kind != NULL; k++) {
		if (wl_list_objs(r, kb, INF_API, ns, k->plural, sel, &items) !=
		    SW_OK)
			return -1;
		n = json_object_array_length(items);
		if (n > 0) {
			*obj = json_object_get(
			    json_object_array_get_idx(items, 0));
			*kind = k;
		}
		json_object_put(items);
		if (n > 1) {
			json_object_put(*obj);
			*obj = NULL;
			sw_ferr_add(&r->ferrs, "namespace", "required",
			    "endpoint %s exists in more than one namespace; "
			    "name one",
			    name);
			sw_req_fail(
			    r, SW_ECONFLICT, "endpoint %s is ambiguous", name);
			return -1;
		}
		if (n == 1)
			return 1;
	}
	return 0;
}

sw_err
inf_managed_service(
    struct sw_req *r, struct sw_kube *kb, json_object *cr, json_object **svc)
{
	const char *uid = sw_json_path_str(cr, "metadata.uid");
	json_object *items, *it, *refs;
	size_t i, j;

	*svc = NULL;
	if (wl_list_objs(r, kb, "v1",
		sw_json_path_str(cr, "metadata.namespace"), "services", NULL,
		&items) != SW_OK)
		return r->err;
	for (i = 0; *svc == NULL && i < json_object_array_length(items); i++) {
		it = json_object_array_get_idx(items, i);
		refs = sw_json_path(it, "metadata.ownerReferences");
		for (j = 0; refs && j < json_object_array_length(refs); j++)
			if (uid != NULL &&
			    sw_json_get_str(
				json_object_array_get_idx(refs, j), "uid") &&
			    strcmp(uid,
				sw_json_get_str(
				    json_object_array_get_idx(refs, j),
				    "uid")) == 0)
				*svc = json_object_get(it);
	}
	json_object_put(items);
	if (*svc == NULL)
		return sw_req_fail(r, SW_EUNAVAIL,
		    "the inference operator has "
		    "not made endpoint %s's Service yet",
		    sw_json_path_str(cr, "metadata.name"));
	return SW_OK;
}

json_object *
inf_managed_summary(json_object *cr, const struct inf_kind *k)
{
	const char *state = sw_json_path_str(cr, "status.state");
	int64_t want = sw_json_get_int(sw_json_get(cr, "spec"), "replicas", 1);
	int64_t avail =
	    sw_json_get_int(sw_json_get(cr, "status"), "replicas", 0);

	return sw_jo("endpoint", sw_js(sw_json_path_str(cr, "metadata.name")),
	    "namespace", sw_js(sw_json_path_str(cr, "metadata.namespace")),
	    "kind", sw_js(k->name), "resource", sw_js(k->kind), "state",
	    state ? sw_js(state) : sw_js("DeploymentPending"), "message",
	    sw_json_path_str(cr, "status.conditions[0].message")
		? sw_js(sw_json_path_str(cr, "status.conditions[0].message"))
		: NULL,
	    "replicas", sw_ji(want), "ready_replicas", sw_ji(avail), "ready",
	    sw_jb(state != NULL && strcmp(state, "DeploymentComplete") == 0),
	    NULL);
}

sw_err
inf_delete_managed(struct sw_req *r, struct sw_kube *kb, json_object *cr,
    const struct inf_kind *k)
{
	const char *ns = sw_json_path_str(cr, "metadata.namespace");
	const char *name = sw_json_path_str(cr, "metadata.name");
	json_object *refs, *in = NULL, *out = NULL, *list = NULL, *c;
	struct aws_ctx *aws = h_aws(r);
	char bucket[64], role[128], policy[160];
	struct aws_error err;
	size_t i;
	int d;
	sw_err e;

	if (inf_tls_bucket(aws->region, sw_json_get_str(r->args, "name"), ns,
		name, bucket, sizeof(bucket)) != SW_OK ||
	    iam_names(sw_json_get_str(r->args, "name"), ns, name, role,
		sizeof(role), policy, sizeof(policy)) != SW_OK)
		return sw_req_fail(r, SW_EINTERNAL,
		    "endpoint %s: names too "
		    "long",
		    name);
	refs = sw_ja(sw_jo("kind", sw_js(k->kind), "name", sw_js(name),
			 "namespace", sw_js(ns), NULL),
	    sw_jo("kind", sw_js("S3Bucket"), "name", sw_js(bucket), NULL),
	    sw_jo("kind", sw_js("IAMRolePolicy"), "name", sw_js(policy), "role",
		sw_js(role), NULL));
	if (r->dry_run) {
		sw_req_reply(r, 200,
		    sw_jo("deletes", refs, "dry_run", sw_jb(1), "endpoint",
			sw_js(name), NULL));
		return SW_OK;
	}
	/* Nothing is deleted unless AWS will act for the caller. */
	if ((aws = h_aws_for(r, &err, &e)) == NULL) {
		json_object_put(refs);
		return aws_fail(r, "STS AssumeRole", e, &err);
	}
	if ((d = wl_delete_obj(r, kb, INF_API, ns, k->plural, name)) < 0)
		goto out;
	/* The bucket holds the operator's certificates: empty it first. */
	memset(&err, 0, sizeof(err));
	e = aws_s3_list_objects_v2(aws, bucket, NULL, NULL, &list, &err);
	if (e == SW_OK) {
		c = sw_json_get(list, "Contents");
		for (i = 0; c && i < json_object_array_length(c); i++) {
			memset(&err, 0, sizeof(err));
			if ((e = aws_s3_delete_object(aws, bucket,
				 sw_json_get_str(
				     json_object_array_get_idx(c, i), "Key"),
				 &err)) != SW_OK) {
				aws_fail(r, "S3 DeleteObject", e, &err);
				goto out;
			}
		}
		memset(&err, 0, sizeof(err));
		if ((e = aws_s3_delete_bucket(aws, bucket, &err)) != SW_OK &&
		    strcmp(err.code, "NoSuchBucket") != 0) {
			aws_fail(r, "S3 DeleteBucket", e, &err);
			goto out;
		}
	} else if (strcmp(err.code, "NoSuchBucket") != 0) {
		aws_fail(r, "S3 ListObjectsV2", e, &err);
		goto out;
	}
	in = sw_jo("RoleName", sw_js(role), "PolicyName", sw_js(policy), NULL);
	memset(&err, 0, sizeof(err));
	if ((e = aws_call(aws, AWS_SVC_IAM, "DeleteRolePolicy", in, &out,
		 &err)) != SW_OK &&
	    strcmp(err.code, "NoSuchEntity") != 0) {
		aws_fail(r, "IAM DeleteRolePolicy", e, &err);
		goto out;
	}
	sw_req_reply(
	    r, 200, sw_jo("deleted", refs, "endpoint", sw_js(name), NULL));
	refs = NULL;
out:
	json_object_put(refs);
	json_object_put(list);
	json_object_put(in);
	json_object_put(out);
	return r->err;
}

sw_err
inf_scale_managed(struct sw_req *r, struct sw_kube *kb, json_object *cr,
    const struct inf_kind *k)
{
	json_object *a = r->args, *as = sw_json_get(a, "autoscaling"), *patch;
	const char *ns = sw_json_path_str(cr, "metadata.namespace");
	const char *name = sw_json_path_str(cr, "metadata.name");
	const char *url;
	char path[512];
	struct k8s_error ke;
	sw_err e;

	if (as != NULL) {
		url = sw_json_get_str(as, "prometheus_url");
		if (strncmp(url, AMP_PREFIX, strlen(AMP_PREFIX)) != 0 ||
		    strstr(url, "/workspaces/ws-") == NULL) {
			sw_ferr_add(&r->ferrs, "autoscaling.prometheus_url",
			    "pattern",
			    "the operator's Prometheus trigger "
			    "takes an Amazon Managed Prometheus workspace "
			    "URL");
			return sw_req_fail(r, SW_EINVAL, "%s: %s",
			    r->ferrs.e[0].field, r->ferrs.e[0].msg);
		}
	}
	/* A fixed count drops the autoscaler; an autoscaler owns replicas. */
	patch = sw_jo("spec",
	    as != NULL ? sw_jo("autoScalingSpec", scaling_spec(as, name), NULL)
		       : sw_jo("replicas",
			     sw_ji(sw_json_get_int(a, "replicas", 1)), NULL),
	    NULL);
	if (as == NULL)
		json_object_object_add(
		    sw_json_get(patch, "spec"), "autoScalingSpec", NULL);
	if (r->dry_run) {
		sw_req_reply(r, 200,
		    sw_jo("dry_run", sw_jb(1), "endpoint", sw_js(name),
			"namespace", sw_js(ns), "kind", sw_js(k->kind), "patch",
			patch, NULL));
		return SW_OK;
	}
	if (k8s_path(path, sizeof(path), INF_API, ns, k->plural, name) !=
	    SW_OK) {
		json_object_put(patch);
		return sw_req_fail(r, SW_EINTERNAL, "bad path for %s", name);
	}
	memset(&ke, 0, sizeof(ke));
	e = k8s_merge_patch(&kb->k, path, patch, NULL, &ke);
	json_object_put(patch);
	if (e != SW_OK)
		return sw_req_fail(r,
		    e == SW_EINVAL || e == SW_EFORBIDDEN ? SW_EUPSTREAM : e,
		    "Kubernetes patch %s: %s", name,
		    ke.message[0] ? ke.message : "failed");
	wl_answer_applied(r, 200,
	    sw_jo("endpoint", sw_js(name), "namespace", sw_js(ns), "kind",
		sw_js(k->name), "replicas",
		as == NULL ? sw_ji(sw_json_get_int(a, "replicas", 1)) : NULL,
		"autoscaling", as != NULL ? sw_jb(1) : NULL, NULL),
	    sw_ja(sw_jo("kind", sw_js(k->kind), "name", sw_js(name),
		"namespace", sw_js(ns), NULL)));
	return SW_OK;
}
