/*
 * cluster.c: the cluster.create pipeline.
 *
 *   network       VPC, 2 public + 2 private subnets, internet gateway,
 *                 NAT gateway, route tables, security group
 *   eks           cluster role, EKS control plane (CREATING -> ACTIVE)
 *   access        OIDC provider, access entry for Slipway's identity
 *   select        endpoint, CA and reachability of the Kubernetes API
 *   dependencies  EKS add-ons; HyperPod's health-monitoring agent
 *   hyperpod      compute subnets, execution role, lifecycle script,
 *                 HyperPod cluster (Creating -> InService)
 *   storage       S3 Mountpoint PV/PVC "s3-claim"
 *   verify        every node Running in HyperPod and Ready in Kubernetes,
 *                 then the NVIDIA and EFA device plugins by their Helm
 *                 Jobs (a Job's pod needs a node), followed to Complete
 *
 * Every stage is a sequence of ensure-steps (see pipeline.h).  The
 * network stage and compute-subnet placement are in network.c, the
 * device plugins and health agent in components.c (cluster.h).
 */
#include <stdio.h>
#include <string.h>

#include "cloud/aws_api.h"
#include "lib/json.h"
#include "pipelines/cluster.h"
#include "pipelines/helm.h"
#include "pipelines/pipelines.h"
#include "pipelines/stepkit.h"
#include "pipelines/volumes.h"

/* ---- eks --------------------------------------------------------------- */

static const char *const eks_policies[] = {
	"arn:aws:iam::aws:policy/AmazonEKSClusterPolicy", NULL
};

/* Role name, which AWS service principal may assume, with managed
 * policies; its ARN recorded under key. */
static enum sw_step_rc
ensure_service_role(struct sw_step *s, const char *key, const char *name,
    const char *principal, const char *const *managed)
{
	json_object *trust = sw_trust_service(principal);
	enum sw_step_rc rc;

	rc = sw_ensure_role(s,
	    &(struct sw_role){
		.key = key, .name = name, .trust = trust, .managed = managed });
	json_object_put(trust);
	return rc;
}

static enum sw_step_rc
stage_eks(struct sw_step *s)
{
	const char *net = "network", *status;
	char role[128];
	struct aws_error err;
	json_object *out;
	enum sw_step_rc rc;

	sw_name(role, sizeof(role), CLUSTER(s), SW_ROLE_EKS);
	TRY(ensure_service_role(
	    s, "cluster_role_arn", role, "eks.amazonaws.com", eks_policies));
	if (s->plan && sw_res_get(s, "create_requested") == NULL) {
		/* A plan names the create only when there is none yet. */
		memset(&err, 0, sizeof(err));
		rc = sw_step_aws(s, AWS_SVC_EKS, "DescribeCluster",
		    sw_jo("name", sw_js(CLUSTER(s)), NULL), &out, &err);
		if (rc == STEP_DONE) {
			json_object_put(out);
			sw_res_set(s, "create_requested", "existing");
		} else if (strcmp(err.code, "ResourceNotFoundException") != 0)
			return rc;
		s->msg[0] = '\0';
	}
	if (sw_res_get(s, "create_requested") == NULL) {
		/* Created, or found by its name: the create answers
		 * ResourceInUseException when the cluster exists. */
		memset(&err, 0, sizeof(err));
		rc = sw_step_aws(s, AWS_SVC_EKS, "CreateCluster",
		    sw_jo("name", sw_js(CLUSTER(s)), "version",
			sw_js(sw_json_get_str(s->params, "kubernetes_version")),
			"roleArn", sw_js(sw_res_get(s, "cluster_role_arn")),
			"resourcesVpcConfig",
			sw_jo("subnetIds",
			    sw_ja(
				sw_js(sw_res_from(s, net, "private_subnet_0")),
				sw_js(sw_res_from(s, net, "private_subnet_1")),
				sw_js(sw_res_from(s, net, "public_subnet_0")),
				sw_js(sw_res_from(s, net, "public_subnet_1"))),
			    "securityGroupIds",
			    sw_ja(sw_js(
				sw_res_from(s, net, "security_group_id"))),
			    "endpointPublicAccess", sw_jb(1),
			    "endpointPrivateAccess", sw_jb(1), NULL),
			"accessConfig",
			sw_jo("authenticationMode", sw_js("API_AND_CONFIG_MAP"),
			    "bootstrapClusterCreatorAdminPermissions", sw_jb(1),
			    NULL),
			"clientRequestToken", sw_js(s->op_id), "tags",
			sw_tag_map(s), NULL),
		    &out, &err);
		if (rc == STEP_FAIL &&
		    strcmp(err.code, "ResourceInUseException") == 0) {
			s->msg[0] = '\0';
			sw_res_set(s, "create_requested", "existing");
		} else if (rc != STEP_DONE)
			return rc;
		else {
			json_object_put(out);
			sw_res_set(s, "create_requested", "created");
			if (!s->plan)
				return sw_wait_first(s, SW_WAIT_EKS_CLUSTER,
				    "EKS cluster %s is CREATING", CLUSTER(s));
		}
	}
	if (s->plan)
		return sw_plan_wait(s, SW_WAIT_EKS_CLUSTER);
	TRY(sw_step_aws(s, AWS_SVC_EKS, "DescribeCluster",
	    sw_jo("name", sw_js(CLUSTER(s)), NULL), &out, NULL));
	status = sw_keep(s, sw_json_path_str(out, "cluster.status"));
	if (status != NULL && strcmp(status, "ACTIVE") == 0) {
		sw_res_set(
		    s, "cluster_arn", sw_json_path_str(out, "cluster.arn"));
		sw_res_set(
		    s, "endpoint", sw_json_path_str(out, "cluster.endpoint"));
		sw_res_set(s, "oidc_issuer",
		    sw_json_path_str(out, "cluster.identity.oidc.issuer"));
		sw_res_set(s, "kubernetes_version",
		    sw_json_path_str(out, "cluster.version"));
		/* Later stages reach its API server without asking again. */
		(void)sw_kube_remember(CLUSTER(s), out);
		json_object_put(out);
		return STEP_DONE;
	}
	json_object_put(out);
	if (status != NULL && strcmp(status, "FAILED") == 0)
		return sw_step_fail(s, "EKS cluster %s FAILED", CLUSTER(s));
	return sw_wait_next(s, SW_WAIT_EKS_CLUSTER, "EKS cluster %s is %s",
	    CLUSTER(s), status ? status : "unknown");
}

/* ---- access ------------------------------------------------------------ */

/* The IAM OIDC provider of issuer, recorded when listed. */
static enum sw_step_rc
find_oidc_provider(struct sw_step *s, const char *issuer)
{
	json_object *out, *list;
	const char *arn;
	size_t i;

	TRY(sw_step_aws(s, AWS_SVC_IAM, "ListOpenIDConnectProviders",
	    sw_jo(NULL, NULL), &out, NULL));
	list = sw_out_array(out, "OpenIDConnectProviderList",
	    "ListOpenIDConnectProvidersResult.OpenIDConnectProviderList", NULL);
	for (i = 0; list && i < json_object_array_length(list); i++) {
		arn =
		    sw_json_get_str(json_object_array_get_idx(list, i), "Arn");
		if (arn != NULL && strstr(arn, issuer + 8) != NULL)
			sw_res_set(s, "oidc_provider_arn", arn);
	}
	json_object_put(out);
	return STEP_DONE;
}

static enum sw_step_rc
stage_access(struct sw_step *s)
{
	const char *issuer = sw_res_from(s, "eks", "oidc_issuer"), *arn;
	json_object *out, *list;
	char me[256], account[32];
	struct aws_error err;
	enum sw_step_rc rc;
	size_t i;

	issuer = sw_planned(s, issuer, "https://oidc.eks.planned/id/planned");
	if (issuer == NULL)
		return sw_step_fail(s, "the EKS cluster has no OIDC issuer");
	/* A plan, or a run that sent the create before, looks the
	 * provider up; a first run creates it. */
	if (sw_res_get(s, "oidc_provider_arn") == NULL &&
	    (s->plan || sw_res_get(s, "oidc_create_sent") != NULL))
		TRY(find_oidc_provider(s, issuer));
	if (sw_res_get(s, "oidc_provider_arn") == NULL) {
		sw_res_set(s, "oidc_create_sent", "1");
		memset(&err, 0, sizeof(err));
		rc = sw_step_aws(s, AWS_SVC_IAM, "CreateOpenIDConnectProvider",
		    sw_jo("Url", sw_js(issuer), "ClientIDList",
			sw_ja(sw_js("sts.amazonaws.com")), "ThumbprintList",
			sw_ja(
			    sw_js("9e99a48a9960b14926bb7f3b02e22da2b0ab7280")),
			"Tags", sw_tag_list(s), NULL),
		    &out, &err);
		if (rc == STEP_FAIL &&
		    strcmp(err.code, "EntityAlreadyExists") == 0) {
			/* Made before: find it by listing. */
			s->msg[0] = '\0';
			TRY(find_oidc_provider(s, issuer));
			if (sw_res_get(s, "oidc_provider_arn") == NULL)
				return sw_step_fail(s,
				    "the OIDC provider "
				    "of %s exists but is not listed",
				    issuer);
		} else if (rc != STEP_DONE)
			return rc;
		else {
			arn = sw_planned(s,
			    sw_out_str(out, "OpenIDConnectProviderArn",
				"CreateOpenIDConnectProviderResult."
				"OpenIDConnectProviderArn",
				NULL),
			    "oidc-planned");
			if (arn != NULL)
				sw_res_set(s, "oidc_provider_arn", arn);
			json_object_put(out);
			if (arn == NULL)
				return sw_step_fail(
				    s, "CreateOpenIDConnectProvider: no ARN");
		}
	}
	/* Slipway's own identity must be able to reach the cluster.  A
	 * cluster this operation created gave its creator an admin entry
	 * (bootstrapClusterCreatorAdminPermissions): our identity, unless
	 * the operation was made for a person through the person role. */
	if (s->plan || sw_res_get(s, "access_entry") != NULL)
		return STEP_DONE;
	if (s->aws == s->svc_aws &&
	    strcmp(sw_res_from(s, "eks", "create_requested") ?: "",
		"created") == 0) {
		sw_res_set(s, "access_entry", "cluster creator");
		return STEP_DONE;
	}
	memset(&err, 0, sizeof(err));
	if (aws_sts_get_caller_identity(s->svc_aws, account, sizeof(account),
		me, sizeof(me), &err) != SW_OK)
		return sw_step_wait(
		    s, sw_poll_ms(s, 10000), "sts: %s", err.code);
	TRY(sw_step_aws(s, AWS_SVC_EKS, "ListAccessEntries",
	    sw_jo("clusterName", sw_js(CLUSTER(s)), NULL), &out, NULL));
	list = sw_json_get(out, "accessEntries");
	for (i = 0; list && i < json_object_array_length(list); i++)
		if (strcmp(json_object_get_string(
			       json_object_array_get_idx(list, i)),
			me) == 0)
			sw_res_set(s, "access_entry", me);
	json_object_put(out);
	if (sw_res_get(s, "access_entry") != NULL)
		return STEP_DONE;
	TRY(sw_step_aws_ok(s, AWS_SVC_EKS, "CreateAccessEntry",
	    sw_jo("clusterName", sw_js(CLUSTER(s)), "principalArn", sw_js(me),
		NULL),
	    &out, "ResourceInUseException"));
	json_object_put(out);
	TRY(sw_step_aws(s, AWS_SVC_EKS, "AssociateAccessPolicy",
	    sw_jo("clusterName", sw_js(CLUSTER(s)), "principalArn", sw_js(me),
		"policyArn",
		sw_js("arn:aws:eks::aws:cluster-access-policy/"
		      "AmazonEKSClusterAdminPolicy"),
		"accessScope", sw_jo("type", sw_js("cluster"), NULL), NULL),
	    &out, NULL));
	json_object_put(out);
	sw_res_set(s, "access_entry", me);
	return STEP_DONE;
}

/* ---- select ------------------------------------------------------------ */

static enum sw_step_rc
stage_select(struct sw_step *s)
{
	struct sw_kube kb;
	struct k8s_error err;
	json_object *ver = NULL;
	sw_err e;

	if (s->plan)
		return STEP_DONE;
	TRY(sw_kube_open(s, CLUSTER(s), &kb));
	memset(&err, 0, sizeof(err));
	s->calls_made++;
	e = k8s_get(&kb.k, "/version", &ver, &err);
	sw_kube_close(&kb);
	if (e != SW_OK) {
		json_object_put(ver);
		if (e == SW_EFORBIDDEN)
			return sw_step_fail(s,
			    "the Kubernetes API refused "
			    "Slipway's identity: %s",
			    err.message);
		return sw_step_wait(s, sw_poll_ms(s, 15000),
		    "Kubernetes API "
		    "not reachable yet: %s",
		    err.message);
	}
	sw_res_set(s, "kubernetes_version", sw_json_get_str(ver, "gitVersion"));
	sw_res_set(s, "reachable", "yes");
	json_object_put(ver);
	return STEP_DONE;
}

/* ---- dependencies ------------------------------------------------------ */

static const char *const addons[] = { "vpc-cni", "coredns", "kube-proxy",
	"eks-pod-identity-agent", "aws-mountpoint-s3-csi-driver", NULL };

static enum sw_step_rc
stage_dependencies(struct sw_step *s)
{
	char flag[96];
	struct aws_error err;
	json_object *out, *in;
	const char *status;
	enum sw_step_rc rc;
	int i, waiting = 0, created = 0;

	for (i = 0; addons[i] != NULL; i++) {
		if (sw_fmt(flag, sizeof(flag), "addon.%s", addons[i]) != SW_OK)
			return sw_step_fail(
			    s, "add-on name %s too long", addons[i]);
		if (sw_res_get(s, flag) != NULL &&
		    strcmp(sw_res_get(s, flag), "ACTIVE") == 0)
			continue;
		/* Read only what was asked for: an add-on not created yet is
		 * created (ResourceInUseException: it exists, follow it). */
		memset(&err, 0, sizeof(err));
		rc = s->plan || sw_res_get(s, flag) == NULL
		    ? STEP_FAIL
		    : sw_step_aws(s, AWS_SVC_EKS, "DescribeAddon",
			  sw_jo("clusterName", sw_js(CLUSTER(s)), "addonName",
			      sw_js(addons[i]), NULL),
			  &out, &err);
		if (rc == STEP_DONE) {
			status =
			    sw_keep(s, sw_json_path_str(out, "addon.status"));
			sw_res_set(s, flag, status ? status : "?");
			if (status != NULL &&
			    (strcmp(status, "CREATE_FAILED") == 0 ||
				strcmp(status, "DEGRADED") == 0)) {
				json_object_put(out);
				return sw_step_fail(
				    s, "add-on %s is %s", addons[i], status);
			}
			waiting +=
			    status == NULL || strcmp(status, "ACTIVE") != 0;
			json_object_put(out);
			continue;
		}
		if (!s->plan && sw_res_get(s, flag) != NULL &&
		    strcmp(err.code, "ResourceNotFoundException"))
			return rc;
		s->msg[0] = '\0';
		/* One DescribeAddonVersions for all of them. */
		TRY(sw_addon_versions(s, addons));
		in = sw_jo("clusterName", sw_js(CLUSTER(s)), "addonName",
		    sw_js(addons[i]), "resolveConflicts", sw_js("OVERWRITE"),
		    "clientRequestToken", sw_js(flag), NULL);
		if ((rc = sw_addon_version(s, addons[i], in)) != STEP_DONE) {
			json_object_put(in);
			return rc;
		}
		TRY(sw_step_aws_ok(s, AWS_SVC_EKS, "CreateAddon", in, &out,
		    "ResourceInUseException"));
		json_object_put(out);
		sw_res_set(s, flag, "CREATING");
		sw_plan_wait(s, SW_WAIT_ADDON);
		waiting++;
		created++;
	}
	if (waiting && !s->plan) {
		if (created)
			return sw_wait_first(s, SW_WAIT_ADDON,
			    "waiting for %d "
			    "EKS add-on(s)",
			    waiting);
		return sw_wait_next(s, SW_WAIT_ADDON,
		    "waiting for %d EKS "
		    "add-on(s)",
		    waiting);
	}
	return sw_apply_health_agent(s);
}

/* ---- hyperpod ---------------------------------------------------------- */

static const char *const exec_policies[] = {
	"arn:aws:iam::aws:policy/AmazonSageMakerClusterInstanceRolePolicy", NULL
};

static const char lifecycle_script[] =
    "#!/bin/bash\n"
    "# on_create.sh: run by HyperPod on each new node (EKS orchestrator).\n"
    "set -euo pipefail\n"
    "echo \"slipway: node $(hostname) initialised at $(date -u +%FT%TZ)\"\n"
    "if [ -d /opt/sagemaker ]; then\n"
    "  mkdir -p /opt/sagemaker/checkpoints\n"
    "fi\n";

json_object *
sw_hp_instance_groups(struct sw_step *s, json_object *groups,
    const char *exec_role, const char *lc_uri)
{
	json_object *arr = json_object_new_array(), *g, *spec, *dh;
	const char *cap, *az, *sg;
	char key[96];
	size_t i;

	sg = sw_res_from(s, "network", "security_group_id");
	if (sg == NULL)
		sg = sw_json_get_str(s->params, "security_group_id");
	sg = sw_planned(s, sg, "sg-planned");
	for (i = 0; i < json_object_array_length(groups); i++) {
		g = json_object_array_get_idx(groups, i);
		cap = sw_json_get_str(g, "capacity_type");
		az = sw_json_get_str(g, "availability_zone");
		/* A zone name too long has no subnet recorded: the group
		 * goes out with the planned stand-in and AWS refuses it. */
		if (sw_fmt(key, sizeof(key), "compute_subnet.%s", az) != SW_OK)
			key[0] = '\0';
		spec = sw_jo("InstanceGroupName",
		    sw_js(sw_json_get_str(g, "name")), "InstanceType",
		    sw_js(sw_json_get_str(g, "instance_type")), "InstanceCount",
		    sw_ji(sw_json_get_int(g, "count", 1)), "ExecutionRole",
		    sw_js(exec_role), "LifeCycleConfig",
		    sw_jo("SourceS3Uri", sw_js(lc_uri), "OnCreate",
			sw_js("on_create.sh"), NULL),
		    "ThreadsPerCore",
		    sw_ji(sw_json_get_int(g, "threads_per_core", 1)),
		    "InstanceStorageConfigs",
		    sw_ja(sw_jo("EbsVolumeConfig",
			sw_jo("VolumeSizeInGB",
			    sw_ji(sw_json_get_int(g, "volume_size_gb", 500)),
			    NULL),
			NULL)),
		    "OverrideVpcConfig",
		    sw_jo("SecurityGroupIds", sw_ja(sw_js(sg)), "Subnets",
			sw_ja(sw_js(sw_json_get_str(g, "subnet_id")
				? sw_json_get_str(g, "subnet_id")
				: sw_planned(s, sw_res_get(s, key),
				      "subnet-planned"))),
			NULL),
		    NULL);
		if (cap != NULL && strcmp(cap, "spot") == 0)
			json_object_object_add(spec, "CapacityRequirements",
			    sw_jo("Spot", json_object_new_object(), NULL));
		else if (cap != NULL && strcmp(cap, "on-demand") == 0)
			json_object_object_add(spec, "CapacityRequirements",
			    sw_jo("OnDemand", json_object_new_object(), NULL));
		if (sw_json_get_str(g, "training_plan_arn") != NULL)
			json_object_object_add(spec, "TrainingPlanArn",
			    sw_js(sw_json_get_str(g, "training_plan_arn")));
		if (sw_json_get_bool(g, "efa_only", 0))
			json_object_object_add(spec, "NetworkInterface",
			    sw_jo("InterfaceType", sw_js("efa-only"), NULL));
		if ((dh = sw_json_get(s->params, "deep_health_checks")) !=
			NULL &&
		    json_object_array_length(dh) > 0)
			json_object_object_add(spec, "OnStartDeepHealthChecks",
			    json_object_get(dh));
		json_object_array_add(arr, spec);
	}
	return arr;
}

void
sw_lifecycle_bucket(struct sw_step *s, int ask, char *out, size_t sz)
{
	const char *acct = s->plan && !ask ? NULL : sw_account_id(s);

	/* A name cut short would name another bucket: none at all makes
	 * the call that uses it fail. */
	if (sw_fmt(out, sz, "sagemaker-slipway-%s-%s", acct ? acct : "account",
		s->aws->region) != SW_OK)
		out[0] = '\0';
}

enum sw_step_rc
sw_ensure_lifecycle(struct sw_step *s, char *uri, size_t urisz)
{
	char bucket[128], key[160];
	struct aws_error err;

	sw_lifecycle_bucket(s, 0, bucket, sizeof(bucket));
	if (sw_fmt(key, sizeof(key), "lifecycle/%s/on_create.sh", CLUSTER(s)) !=
		SW_OK ||
	    sw_fmt(uri, urisz, "s3://%s/lifecycle/%s/", bucket, CLUSTER(s)) !=
		SW_OK)
		return sw_step_fail(s, "lifecycle script location too long");
	if (s->plan) {
		json_object_array_add(s->calls,
		    sw_jo("stage", sw_js(s->stage), "service", sw_js("s3"),
			"operation", sw_js("PutObject"), "input",
			sw_jo("Bucket", sw_js(bucket), "Key", sw_js(key), NULL),
			NULL));
		return STEP_DONE;
	}
	if (sw_res_get(s, "lifecycle_uri") != NULL)
		return STEP_DONE;
	/* The bucket is shared by every cluster: put the script, and make
	 * the bucket only when S3 says there is none. */
	memset(&err, 0, sizeof(err));
	s->calls_made++;
	if (aws_s3_put_object(s->aws, bucket, key, lifecycle_script,
		strlen(lifecycle_script), "text/x-shellscript",
		&err) != SW_OK) {
		if (strcmp(err.code, "NoSuchBucket") != 0)
			return sw_err_transient(aws_error_sw(&err))
			    ? sw_step_transient(s, "s3: %s", err.code)
			    : sw_step_fail(
				  s, "PutObject %s: %s", key, err.code);
		memset(&err, 0, sizeof(err));
		s->calls_made++;
		if (aws_s3_create_bucket(s->aws, bucket, &err) != SW_OK &&
		    strcmp(err.code, "BucketAlreadyOwnedByYou") != 0)
			return sw_err_transient(aws_error_sw(&err))
			    ? sw_step_transient(s, "s3: %s", err.code)
			    : sw_step_fail(s, "CreateBucket %s: %s %s", bucket,
				  err.code, err.message);
		memset(&err, 0, sizeof(err));
		s->calls_made++;
		if (aws_s3_put_object(s->aws, bucket, key, lifecycle_script,
			strlen(lifecycle_script), "text/x-shellscript",
			&err) != SW_OK)
			return sw_err_transient(aws_error_sw(&err))
			    ? sw_step_transient(s, "s3: %s", err.code)
			    : sw_step_fail(
				  s, "PutObject %s: %s", key, err.code);
	}
	sw_res_set(s, "lifecycle_uri", uri);
	return STEP_DONE;
}

/*
 * On a retry after HyperPod reported Failed (insufficient capacity, say),
 * delete the failed cluster and wait until it is gone, so the create
 * below runs again.  Earlier stages are not touched.
 */
static enum sw_step_rc
replace_failed(struct sw_step *s)
{
	json_object *out;
	const char *status;
	enum sw_step_rc rc;
	int gone;

	if (s->plan || sw_res_get(s, "failed_cluster") == NULL)
		return STEP_DONE;
	rc = sw_step_hp_describe(s, CLUSTER(s), &out, &gone);
	if (rc != STEP_DONE)
		return rc;
	if (gone) {
		json_object_object_del(s->res, "failed_cluster");
		json_object_object_del(s->res, "create_requested");
		return STEP_DONE;
	}
	status = sw_keep(s, sw_json_get_str(out, "ClusterStatus"));
	if (status != NULL && strcmp(status, "Failed") == 0) {
		json_object *o2;

		rc = sw_step_aws_ok(s, AWS_SVC_SAGEMAKER, "DeleteCluster",
		    sw_jo("ClusterName", sw_js(CLUSTER(s)), NULL), &o2,
		    "ResourceNotFound");
		json_object_put(o2);
		if (rc != STEP_DONE) {
			json_object_put(out);
			return rc;
		}
	} else if (status != NULL && strcmp(status, "Deleting") != 0) {
		/* It recovered on its own: keep it. */
		json_object_put(out);
		json_object_object_del(s->res, "failed_cluster");
		return STEP_DONE;
	}
	json_object_put(out);
	return sw_step_wait(s, sw_poll_ms(s, 30000),
	    "deleting the failed "
	    "HyperPod cluster %s before creating it again",
	    CLUSTER(s));
}

static enum sw_step_rc
stage_hyperpod(struct sw_step *s)
{
	json_object *groups = sw_json_get(s->params, "instance_groups");
	json_object *slots = sw_json_get(s->params, "compute_slots");
	char role[128], uri[256], key[96];
	struct aws_error err;
	json_object *out, *subnets;
	enum sw_step_rc rc;

	/* One shared compute subnet per AZ any group uses. */
	json_object_object_foreach(slots, az, slot)
	{
		(void)slot;
		TRY(sw_ensure_compute_subnet(s, az, NULL, key, sizeof(key)));
	}
	sw_name(role, sizeof(role), CLUSTER(s), SW_ROLE_HP_EXEC);
	TRY(ensure_service_role(s, "execution_role_arn", role,
	    "sagemaker.amazonaws.com", exec_policies));
	TRY(sw_ensure_lifecycle(s, uri, sizeof(uri)));
	TRY(replace_failed(s));
	if (sw_res_get(s, "create_requested") == NULL) {
		subnets = json_object_new_array();
		json_object_object_foreach(slots, az2, slot2)
		{
			(void)slot2;
			if (sw_fmt(key, sizeof(key), "compute_subnet.%s",
				az2) != SW_OK)
				key[0] = '\0'; /* no subnet: AWS refuses */
			json_object_array_add(subnets,
			    sw_js(sw_planned(
				s, sw_res_get(s, key), "subnet-planned")));
		}
		/* Created, or found by its name (ResourceInUse). */
		memset(&err, 0, sizeof(err));
		rc = sw_step_aws(s, AWS_SVC_SAGEMAKER, "CreateCluster",
		    sw_jo("ClusterName", sw_js(CLUSTER(s)), "InstanceGroups",
			sw_hp_instance_groups(s, groups,
			    sw_res_get(s, "execution_role_arn"), uri),
			"VpcConfig",
			sw_jo("SecurityGroupIds",
			    sw_ja(sw_js(sw_planned(s,
				sw_res_from(s, "network", "security_group_id"),
				"sg-planned"))),
			    "Subnets", subnets, NULL),
			"Orchestrator",
			sw_jo("Eks",
			    sw_jo("ClusterArn",
				sw_js(sw_planned(s,
				    sw_res_from(s, "eks", "cluster_arn"),
				    "arn:aws:eks:planned")),
				NULL),
			    NULL),
			"NodeRecovery",
			sw_js(sw_json_get_str(s->params, "node_recovery")),
			"NodeProvisioningMode",
			sw_json_get_str(s->params, "node_provisioning_mode")
			    ? sw_js(sw_json_get_str(
				  s->params, "node_provisioning_mode"))
			    : NULL,
			"Tags", sw_tag_list(s), NULL),
		    &out, &err);
		if (rc == STEP_FAIL && strcmp(err.code, "ResourceInUse") == 0) {
			s->msg[0] = '\0';
			sw_res_set(s, "create_requested", "existing");
		} else if (rc != STEP_DONE)
			return rc;
		else {
			if (sw_json_get_str(out, "ClusterArn") != NULL)
				sw_res_set(s, "hyperpod_arn",
				    sw_json_get_str(out, "ClusterArn"));
			json_object_put(out);
			sw_res_set(s, "create_requested", "created");
			if (!s->plan)
				return sw_wait_first(s, SW_WAIT_HYPERPOD,
				    "create: HyperPod cluster %s is Creating",
				    CLUSTER(s));
		}
	}
	if (s->plan)
		return sw_plan_wait(s, SW_WAIT_HYPERPOD);
	rc = sw_hp_wait_in_service(s, "create", 30000, &out);
	if (rc == STEP_DONE && out != NULL)
		sw_res_set(
		    s, "hyperpod_arn", sw_json_get_str(out, "ClusterArn"));
	/* A retry of a failed cluster deletes and recreates it. */
	if (rc == STEP_FAIL && out != NULL &&
	    sw_json_get_str(out, "ClusterStatus") != NULL &&
	    strcmp(sw_json_get_str(out, "ClusterStatus"), "Failed") == 0)
		sw_res_set(s, "failed_cluster", "seen");
	json_object_put(out);
	return rc;
}

/* ---- storage ------------------------------------------------------------ */

static enum sw_step_rc
stage_storage(struct sw_step *s)
{
	const char *bucket = sw_json_path_str(s->params, "storage.s3_bucket");
	char pv[160], region[96];
	json_object *m, *pvc;
	struct sw_kube kb;
	enum sw_step_rc rc;

	if (bucket == NULL || sw_res_get(s, "pvc") != NULL)
		return STEP_DONE;
	/* Mountpoint takes "region <name>" as one option. */
	if (sw_fmt(pv, sizeof(pv), "pv-%s", CLUSTER(s)) != SW_OK ||
	    sw_fmt(region, sizeof(region), "region %s", s->aws->region) !=
		SW_OK)
		return sw_step_fail(s, "region name too long");
	TRY(sw_kube_open(s, CLUSTER(s), &kb));
	sw_pv_pair_build(
	    &(struct sw_pv_pair){ .pv = pv,
		.ns = "default",
		.claim = "s3-claim",
		.capacity = sw_jo("storage", sw_js("1200Gi"), NULL),
		.request = "1200Gi",
		.mount_options = sw_ja(sw_js("allow-delete"), sw_js(region)),
		.csi = sw_jo("driver", sw_js("s3.csi.aws.com"), "volumeHandle",
		    sw_js(pv), "volumeAttributes",
		    sw_jo("bucketName", sw_js(bucket), NULL), NULL) },
	    &m, &pvc);
	rc = sw_kube_apply(s, &kb, m);
	if (rc == STEP_DONE)
		rc = sw_kube_apply(s, &kb, pvc);
	json_object_put(m);
	json_object_put(pvc);
	sw_kube_close(&kb);
	if (rc == STEP_DONE) {
		sw_res_set(s, "pv", pv);
		sw_res_set(s, "pvc", "default/s3-claim");
		sw_res_set(s, "bucket", bucket);
	}
	return rc;
}

/* ---- verify ------------------------------------------------------------- */

static enum sw_step_rc
stage_verify(struct sw_step *s)
{
	json_object *groups = sw_json_get(s->params, "instance_groups");
	json_object *out, *list, *nodes = NULL;
	struct k8s_error kerr;
	struct sw_kube kb;
	int64_t want = 0, running = 0, ready = 0;
	size_t i;
	char buf[32];

	if (s->plan) {
		sw_plan_wait(s, SW_WAIT_NODES_RUNNING);
		sw_plan_wait(s, SW_WAIT_NODES_READY);
	}
	if (s->plan || sw_res_get(s, "nodes_ready") != NULL)
		return sw_install_device_plugins(s);
	for (i = 0; i < json_object_array_length(groups); i++)
		want += sw_json_get_int(
		    json_object_array_get_idx(groups, i), "count", 0);
	TRY(sw_step_aws(s, AWS_SVC_SAGEMAKER, "ListClusterNodes",
	    sw_jo("ClusterName", sw_js(CLUSTER(s)), "MaxResults", sw_ji(100),
		NULL),
	    &out, NULL));
	list = sw_json_get(out, "ClusterNodeSummaries");
	for (i = 0; list && i < json_object_array_length(list); i++) {
		const char *st =
		    sw_json_path_str(json_object_array_get_idx(list, i),
			"InstanceStatus.Status");

		running += st != NULL && strcmp(st, "Running") == 0;
	}
	json_object_put(out);
	if (running < want)
		return sw_wait_next(s, SW_WAIT_NODES_RUNNING,
		    "%lld of %lld "
		    "HyperPod nodes Running",
		    (long long)running, (long long)want);
	TRY(sw_kube_open(s, CLUSTER(s), &kb));
	memset(&kerr, 0, sizeof(kerr));
	s->calls_made++;
	if (k8s_list(&kb.k, "/api/v1/nodes",
		"sagemaker.amazonaws.com/compute-type=hyperpod", &nodes,
		&kerr) != SW_OK) {
		sw_kube_close(&kb);
		return sw_step_wait(s, sw_poll_ms(s, 15000),
		    "listing nodes: "
		    "%s",
		    kerr.message);
	}
	sw_kube_close(&kb);
	list = sw_json_get(nodes, "items");
	for (i = 0; list && i < json_object_array_length(list); i++) {
		json_object *conds = sw_json_path(
		    json_object_array_get_idx(list, i), "status.conditions");
		size_t j;

		for (j = 0; conds && j < json_object_array_length(conds); j++) {
			json_object *c = json_object_array_get_idx(conds, j);

			if (strcmp(sw_json_get_str(c, "type")
				    ? sw_json_get_str(c, "type")
				    : "",
				"Ready") == 0 &&
			    strcmp(sw_json_get_str(c, "status")
				    ? sw_json_get_str(c, "status")
				    : "",
				"True") == 0)
				ready++;
		}
	}
	json_object_put(nodes);
	if (ready < want)
		return sw_wait_next(s, SW_WAIT_NODES_READY,
		    "%lld of %lld "
		    "Kubernetes nodes Ready",
		    (long long)ready, (long long)want);
	if (sw_fmt(buf, sizeof(buf), "%lld", (long long)ready) == SW_OK)
		sw_res_set(s, "nodes_ready", buf);
	return sw_install_device_plugins(s);
}

/* clang-format off */
static const struct sw_stage_def create_stages[] = {
	{ "network", sw_stage_network },
	{ "eks", stage_eks },
	{ "access", stage_access },
	{ "select", stage_select },
	{ "dependencies", stage_dependencies },
	{ "hyperpod", stage_hyperpod },
	{ "storage", stage_storage },
	{ "verify", stage_verify },
	{ NULL, NULL }
};
/* clang-format on */

const struct sw_pipeline sw_pl_cluster_create = { "cluster.create",
	create_stages };
