/*
 * storage.c: shared storage for a cluster, and HyperPod software
 * updates.
 *
 *   storage.add (s3)   bucket (checked, or created when asked) -> PV/PVC
 *                      through the S3 Mountpoint CSI driver -> Bound
 *   storage.add (fsx)  FSx for Lustre in the compute subnet (CREATING ->
 *                      AVAILABLE) -> FSx CSI add-on -> PV/PVC -> Bound
 *   cluster.software_update  UpdateClusterSoftware -> InService
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloud/aws_api.h"
#include "lib/json.h"
#include "pipelines/featdefs.h"
#include "pipelines/pipelines.h"
#include "pipelines/stepkit.h"
#include "pipelines/volumes.h"

static const char *
kind_of(struct sw_step *s)
{
	const char *k = sw_json_get_str(s->params, "kind");

	return k ? k : "s3";
}

/* ---- backing store ------------------------------------------------------ */

static enum sw_step_rc
ensure_bucket(struct sw_step *s)
{
	const char *bucket = sw_json_get_str(s->params, "bucket");
	struct aws_error err;

	if (s->plan) {
		if (sw_json_get_bool(s->params, "create_bucket", 0))
			json_object_array_add(s->calls,
			    sw_jo("stage", sw_js(s->stage), "service",
				sw_js("s3"), "operation", sw_js("CreateBucket"),
				"input", sw_jo("Bucket", sw_js(bucket), NULL),
				NULL));
		return STEP_DONE;
	}
	if (sw_res_get(s, "bucket") != NULL)
		return STEP_DONE;
	memset(&err, 0, sizeof(err));
	s->calls_made++;
	if (aws_s3_head_bucket(s->aws, bucket, NULL, 0, &err) == SW_OK) {
		sw_res_set(s, "bucket", bucket);
		return STEP_DONE;
	}
	if (err.retryable)
		return sw_step_wait(s, 2000, "s3 HeadBucket: %s", err.code);
	if (err.http_status != 404 ||
	    !sw_json_get_bool(s->params, "create_bucket", 0))
		return sw_step_fail(s,
		    "bucket %s is not reachable (%s); give "
		    "an existing bucket or create_bucket: true",
		    bucket, err.code[0] ? err.code : "no access");
	memset(&err, 0, sizeof(err));
	s->calls_made++;
	if (aws_s3_create_bucket(s->aws, bucket, &err) != SW_OK &&
	    strcmp(err.code, "BucketAlreadyOwnedByYou") != 0)
		return err.retryable
		    ? sw_step_wait(s, 2000, "s3: %s", err.code)
		    : sw_step_fail(s, "CreateBucket %s: %s: %s", bucket,
			  err.code, err.message);
	sw_res_set(s, "bucket", bucket);
	sw_res_set(s, "bucket_created", "yes");
	return STEP_DONE;
}

/* The FSx file system of this claim, found by tag or created. */
/* Tags of an FSx file system we make: its Name and ours.  New. */
static json_object *
fsx_tags(struct sw_step *s, const char *tagname)
{
	json_object *tags = sw_tag_list(s);

	json_object_array_add(
	    tags, sw_jo("Key", sw_js("Name"), "Value", sw_js(tagname), NULL));
	return tags;
}

static enum sw_step_rc
ensure_fsx(struct sw_step *s)
{
	const char *claim = sw_json_get_str(s->params, "claim");
	char tagname[160], token[80], key[128];
	json_object *out, *list;
	const char *id = sw_res_get(s, "file_system_id"), *state, *az;
	size_t i;

	if (sw_fmt(tagname, sizeof(tagname), "slipway-%s-%s", CLUSTER(s),
		claim) != SW_OK)
		return sw_step_fail(s, "claim name %s too long", claim);
	if (id == NULL && !s->plan) {
		TRY(sw_step_aws(s, AWS_SVC_FSX, "DescribeFileSystems",
		    sw_jo("MaxResults", sw_ji(100), NULL), &out, NULL));
		list = sw_json_get(out, "FileSystems");
		for (i = 0; list && i < json_object_array_length(list); i++) {
			json_object *fs = json_object_array_get_idx(list, i);
			json_object *tags = sw_json_get(fs, "Tags");
			size_t j;

			for (j = 0; tags && j < json_object_array_length(tags);
			     j++) {
				json_object *t =
				    json_object_array_get_idx(tags, j);

				if (strcmp(sw_json_get_str(t, "Key")
					    ? sw_json_get_str(t, "Key")
					    : "",
					"Name") == 0 &&
				    strcmp(sw_json_get_str(t, "Value")
					    ? sw_json_get_str(t, "Value")
					    : "",
					tagname) == 0 &&
				    strcmp(sw_json_get_str(fs, "Lifecycle")
					    ? sw_json_get_str(fs, "Lifecycle")
					    : "",
					"DELETING") != 0)
					sw_res_set(s, "file_system_id",
					    sw_json_get_str(
						fs, "FileSystemId"));
			}
		}
		json_object_put(out);
		id = sw_res_get(s, "file_system_id");
	}
	if (id == NULL) {
		az = sw_json_get_str(s->params, "availability_zone");
		TRY(sw_ensure_compute_subnet(s, az, NULL, key, sizeof(key)));
		if (sw_fmt(token, sizeof(token), "%s-fsx", s->op_id) != SW_OK)
			return sw_step_fail(s, "operation id too long");
		TRY(sw_step_aws(s, AWS_SVC_FSX, "CreateFileSystem",
		    sw_jo("ClientRequestToken", sw_js(token), "FileSystemType",
			sw_js("LUSTRE"), "StorageCapacity",
			sw_ji(sw_json_get_int(s->params, "size_gib", 1200)),
			"SubnetIds", sw_ja(sw_js(sw_res_get(s, key))),
			"SecurityGroupIds",
			sw_ja(sw_js(
			    sw_json_get_str(s->params, "security_group_id"))),
			"LustreConfiguration",
			sw_jo("DeploymentType", sw_js("PERSISTENT_2"),
			    "PerUnitStorageThroughput", sw_ji(250), NULL),
			"Tags", fsx_tags(s, tagname), NULL),
		    &out, NULL));
		id = sw_json_path_str(out, "FileSystem.FileSystemId");
		if (id == NULL && s->plan)
			id = "fs-planned";
		if (id != NULL)
			sw_res_set(s, "file_system_id", id);
		json_object_put(out);
		if ((id = sw_res_get(s, "file_system_id")) == NULL)
			return sw_step_fail(s, "CreateFileSystem gave no id");
	}
	if (s->plan)
		return STEP_DONE;
	TRY(sw_step_aws(s, AWS_SVC_FSX, "DescribeFileSystems",
	    sw_jo("FileSystemIds", sw_ja(sw_js(id)), NULL), &out, NULL));
	state = sw_keep(s, sw_json_path_str(out, "FileSystems[0].Lifecycle"));
	if (state != NULL && strcmp(state, "AVAILABLE") == 0) {
		sw_res_set(s, "dns_name",
		    sw_json_path_str(out, "FileSystems[0].DNSName"));
		sw_res_set(s, "mount_name",
		    sw_json_path_str(
			out, "FileSystems[0].LustreConfiguration.MountName"));
		json_object_put(out);
		return STEP_DONE;
	}
	json_object_put(out);
	if (state != NULL && strcmp(state, "FAILED") == 0)
		return sw_step_fail(s, "FSx file system %s FAILED", id);
	return sw_step_wait(s, sw_poll_ms(s, 60000),
	    "FSx file system %s is "
	    "%s",
	    id, state ? state : "unknown");
}

static enum sw_step_rc
stage_backing(struct sw_step *s)
{
	return strcmp(kind_of(s), "fsx") == 0 ? ensure_fsx(s)
					      : ensure_bucket(s);
}

/* ---- CSI driver ------------------------------------------------------- */

static enum sw_step_rc
stage_driver(struct sw_step *s)
{
	const char *addon = strcmp(kind_of(s), "fsx") == 0
	    ? SW_FEAT_ADDON(SW_FEAT_FSX_CSI)
	    : "aws-mountpoint-s3-csi-driver";
	struct aws_error err;
	json_object *out, *in;
	const char *status;
	enum sw_step_rc rc;

	if (sw_res_get(s, "driver") != NULL)
		return STEP_DONE;
	memset(&err, 0, sizeof(err));
	rc = s->plan ? STEP_FAIL
		     : sw_step_aws(s, AWS_SVC_EKS, "DescribeAddon",
			   sw_jo("clusterName", sw_js(CLUSTER(s)), "addonName",
			       sw_js(addon), NULL),
			   &out, &err);
	if (rc == STEP_DONE) {
		status = sw_keep(s, sw_json_path_str(out, "addon.status"));
		if (status != NULL && strcmp(status, "ACTIVE") == 0) {
			json_object_put(out);
			sw_res_set(s, "driver", addon);
			return STEP_DONE;
		}
		json_object_put(out);
		return sw_step_wait(s, sw_poll_ms(s, 20000), "add-on %s is %s",
		    addon, status ? status : "unknown");
	}
	if (!s->plan && strcmp(err.code, "ResourceNotFoundException") != 0)
		return rc;
	s->msg[0] = '\0';
	in = sw_jo("clusterName", sw_js(CLUSTER(s)), "addonName", sw_js(addon),
	    "clientRequestToken", sw_js(s->op_id), NULL);
	if ((rc = sw_addon_version(s, addon, in)) != STEP_DONE) {
		json_object_put(in);
		return rc;
	}
	TRY(sw_step_aws_ok(
	    s, AWS_SVC_EKS, "CreateAddon", in, &out, "ResourceInUseException"));
	json_object_put(out);
	if (s->plan)
		return STEP_DONE;
	return sw_step_wait(s, sw_poll_ms(s, 20000), "installing %s", addon);
}

/* ---- PV / PVC ---------------------------------------------------------- */

/* The volume pv of the attachment and its claim (each new): 0, or -1
 * when a value does not fit. */
static int
volume_manifests(struct sw_step *s, const char *pv, json_object **out_pv,
    json_object **out_pvc)
{
	const char *size = strcmp(kind_of(s), "fsx") == 0 ? NULL : "1200Gi";
	char cap[32], region[96];
	json_object *csi;

	/* Mountpoint takes "region <name>" as one option. */
	if (sw_fmt(region, sizeof(region), "region %s", s->aws->region) !=
	    SW_OK)
		return -1;
	if (strcmp(kind_of(s), "fsx") == 0) {
		if (sw_fmt(cap, sizeof(cap), "%lldGi",
			(long long)sw_json_get_int(
			    s->params, "size_gib", 1200)) != SW_OK)
			return -1;
		size = cap;
		csi = sw_jo("driver", sw_js("fsx.csi.aws.com"), "volumeHandle",
		    sw_js(sw_res_from(s, "backing", "file_system_id")
			    ? sw_res_from(s, "backing", "file_system_id")
			    : "fs-planned"),
		    "volumeAttributes",
		    sw_jo("dnsname",
			sw_js(sw_res_from(s, "backing", "dns_name")
				? sw_res_from(s, "backing", "dns_name")
				: "planned"),
			"mountname",
			sw_js(sw_res_from(s, "backing", "mount_name")
				? sw_res_from(s, "backing", "mount_name")
				: "planned"),
			NULL),
		    NULL);
	} else
		csi = sw_jo("driver", sw_js("s3.csi.aws.com"), "volumeHandle",
		    sw_js(pv), "volumeAttributes",
		    sw_jo("bucketName",
			sw_js(sw_json_get_str(s->params, "bucket")), NULL),
		    NULL);
	sw_pv_pair_build(&(struct sw_pv_pair){ .pv = pv,
			     .ns = sw_json_get_str(s->params, "namespace"),
			     .claim = sw_json_get_str(s->params, "claim"),
			     .capacity = sw_jo("storage", sw_js(size), NULL),
			     .request = "1Gi",
			     .mount_options = strcmp(kind_of(s), "s3") == 0
				 ? sw_ja(sw_js("allow-delete"), sw_js(region))
				 : NULL,
			     .csi = csi,
			     .flags = SW_PV_RETAIN | SW_PV_LABELLED },
	    out_pv, out_pvc);
	return 0;
}

static enum sw_step_rc
stage_volume(struct sw_step *s)
{
	const char *claim = sw_json_get_str(s->params, "claim");
	const char *ns = sw_json_get_str(s->params, "namespace");
	char pv[160], path[256];
	struct k8s_error kerr;
	json_object *m, *pvc, *got = NULL;
	struct sw_kube kb;
	enum sw_step_rc rc;
	const char *phase;

	if (sw_fmt(pv, sizeof(pv), "%s-%s-%s", claim, ns, CLUSTER(s)) !=
		SW_OK ||
	    sw_fmt(path, sizeof(path), "%s/%s", ns, claim) != SW_OK)
		return sw_step_fail(s, "claim name %s too long", claim);
	TRY(sw_kube_open(s, CLUSTER(s), &kb));
	if (sw_res_get(s, "pvc") == NULL) {
		if (volume_manifests(s, pv, &m, &pvc) != 0) {
			sw_kube_close(&kb);
			return sw_step_fail(s, "volume values too long");
		}
		rc = sw_kube_apply(s, &kb, m);
		if (rc == STEP_DONE)
			rc = sw_kube_apply(s, &kb, pvc);
		json_object_put(m);
		json_object_put(pvc);
		if (rc != STEP_DONE) {
			sw_kube_close(&kb);
			return rc;
		}
		sw_res_set(s, "pv", pv);
		sw_res_set(s, "pvc", path);
	}
	if (s->plan) {
		sw_kube_close(&kb);
		return STEP_DONE;
	}
	/* Wait for the claim to bind to our volume. */
	k8s_path(path, sizeof(path), "v1", ns, "persistentvolumeclaims", claim);
	memset(&kerr, 0, sizeof(kerr));
	s->calls_made++;
	if (k8s_get(&kb.k, path, &got, &kerr) != SW_OK) {
		sw_kube_close(&kb);
		return sw_step_wait(s, sw_poll_ms(s, 10000),
		    "reading claim "
		    "%s: %s",
		    claim, kerr.message);
	}
	sw_kube_close(&kb);
	phase = sw_json_path_str(got, "status.phase");
	rc = phase != NULL && strcmp(phase, "Bound") == 0
	    ? STEP_DONE
	    : sw_step_wait(s, sw_poll_ms(s, 10000), "claim %s is %s", claim,
		  phase ? phase : "Pending");
	json_object_put(got);
	return rc;
}

/* clang-format off */
static const struct sw_stage_def storage_stages[] = {
	{ "backing", stage_backing },
	{ "driver", stage_driver },
	{ "volume", stage_volume },
	{ NULL, NULL }
};
/* clang-format on */

const struct sw_pipeline sw_pl_storage_add = { "storage.add", storage_stages };

/* ---- cluster.software_update ------------------------------------------ */

/* The newest LastSoftwareUpdateTime of the cluster's nodes (AWS's
 * clock, seconds; 0 when none has one) into *newest. */
static enum sw_step_rc
newest_software_update(struct sw_step *s, double *newest)
{
	json_object *out, *list, *in;
	const char *next;
	char token[1024] = "";
	size_t i;
	double t;

	*newest = 0;
	do {
		in = sw_jo("ClusterName", sw_js(CLUSTER(s)), "MaxResults",
		    sw_ji(100), "NextToken", token[0] ? sw_js(token) : NULL,
		    NULL);
		TRY(sw_step_aws(
		    s, AWS_SVC_SAGEMAKER, "ListClusterNodes", in, &out, NULL));
		list = sw_json_get(out, "ClusterNodeSummaries");
		for (i = 0; list && i < json_object_array_length(list); i++) {
			t = json_object_get_double(
			    sw_json_get(json_object_array_get_idx(list, i),
				"LastSoftwareUpdateTime"));
			if (t > *newest)
				*newest = t;
		}
		next = sw_json_get_str(out, "NextToken");
		if (next == NULL ||
		    (size_t)snprintf(token, sizeof(token), "%s", next) >=
			sizeof(token))
			token[0] = '\0';
		json_object_put(out);
	} while (token[0] != '\0');
	return STEP_DONE;
}

/*
 * A poller that died after sending UpdateClusterSoftware ("sent" is
 * recorded first) must not send it again: the cluster would answer
 * ConflictException from SystemUpdating.  On resume the state says
 * whether the first request took effect: the cluster is not InService
 * (the update runs), or a node was updated after the snapshot taken
 * before the send ("before").  Else it never arrived: send it.
 */
static enum sw_step_rc
su_resume(struct sw_step *s, int *sent)
{
	json_object *hp;
	const char *status;
	double newest;

	*sent = 0;
	TRY(sw_step_hp_describe(s, CLUSTER(s), &hp, NULL));
	status = sw_json_get_str(hp, "ClusterStatus");
	*sent = status != NULL && strcmp(status, "InService") != 0;
	json_object_put(hp);
	if (*sent)
		return STEP_DONE;
	TRY(newest_software_update(s, &newest));
	*sent = newest >
	    strtod(
		sw_res_get(s, "before") ? sw_res_get(s, "before") : "0", NULL);
	return STEP_DONE;
}

static enum sw_step_rc
stage_su_request(struct sw_step *s)
{
	json_object *groups = sw_json_get(s->params, "instance_groups"), *out;
	json_object *list = NULL;
	char before[48];
	double newest;
	size_t i;
	const char *irv = sw_json_get_str(s->params, "image_release_version");
	json_object *hp = NULL;
	int sent, resumed;

	if (sw_res_get(s, "requested") != NULL)
		return STEP_DONE;
	if (!s->plan && sw_res_get(s, "sent") != NULL) {
		TRY(su_resume(s, &sent));
		if (sent) {
			sw_res_set(s, "requested", "yes");
			return STEP_DONE;
		}
		json_object_object_del(s->res, "sent");
	}
	if (!s->plan) {
		TRY(newest_software_update(s, &newest));
		if (sw_fmt(before, sizeof(before), "%.3f", newest) != SW_OK)
			return sw_step_fail(s,
			    "software update time out of "
			    "range");
		sw_res_set(s, "before", before);
	}
	/* A release version is given per group: every group by default. */
	if (groups == NULL && irv != NULL) {
		TRY(sw_step_hp_describe(s, CLUSTER(s), &hp, NULL));
		groups = sw_json_get(hp, "InstanceGroups");
	}
	if (groups != NULL) {
		list = json_object_new_array();
		for (i = 0; i < json_object_array_length(groups); i++) {
			json_object *g = json_object_array_get_idx(groups, i);

			json_object_array_add(list,
			    sw_jo("InstanceGroupName",
				hp ? sw_js(sw_json_get_str(
					 g, "InstanceGroupName"))
				   : json_object_get(g),
				"ImageReleaseVersion", sw_js(irv), NULL));
		}
	}
	json_object_put(hp);
	TRY(sw_step_aws_once(s, "sent", AWS_SVC_SAGEMAKER,
	    "UpdateClusterSoftware",
	    sw_jo("ClusterName", sw_js(CLUSTER(s)), "InstanceGroups", list,
		"DeploymentConfig",
		sw_hp_deployment_config(sw_json_get(s->params, "rolling")),
		NULL),
	    &out, &resumed));
	json_object_put(out);
	sw_res_set(s, "requested", "yes");
	return STEP_DONE;
}

static enum sw_step_rc
stage_su_wait(struct sw_step *s)
{
	return sw_hp_wait_in_service(s, "software update", 60000, NULL);
}

/* clang-format off */
static const struct sw_stage_def su_stages[] = {
	{ "request", stage_su_request },
	{ "wait", stage_su_wait },
	{ NULL, NULL }
};
/* clang-format on */

const struct sw_pipeline sw_pl_software_update = { "cluster.software_update",
	su_stages };
