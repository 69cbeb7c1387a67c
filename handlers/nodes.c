/*
 * nodes.c: instance groups and nodes of a HyperPod cluster.  Reads go
 * straight to SageMaker; changes become operations (pipelines/igroup.c).
 *
 * Instance-group rules checked here, before anything is sent:
 *   - capacity type, EFA-only interfaces and subnet placement are
 *     decided together at add time, and the immutable ones
 *     (instance_type, capacity_type, efa_only, availability_zone,
 *     subnet_id, training_plan_arn) are refused on update;
 *   - a training plan's AZ must match the group's AZ.
 */
#include <stdio.h>
#include <string.h>

#include "handlers/handlers.h"
#include "cloud/aws_api.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "api/optable.h"
#include "pipelines/pipelines.h"

static json_object *
find_group(json_object *hp, const char *group)
{
	json_object *groups = sw_json_get(hp, "InstanceGroups");
	size_t i;

	for (i = 0; groups && i < json_object_array_length(groups); i++)
		if (strcmp(sw_json_get_str(json_object_array_get_idx(groups, i),
			       "InstanceGroupName"),
			group) == 0)
			return json_object_array_get_idx(groups, i);
	return NULL;
}

sw_err
h_instance_group_list(struct sw_req *r)
{
	json_object *hp, *groups, *items;
	size_t i;

	if (h_hp_need(r, sw_json_get_str(r->args, "name"), &hp) != SW_OK)
		return r->err;
	items = json_object_new_array();
	groups = sw_json_get(hp, "InstanceGroups");
	for (i = 0; groups && i < json_object_array_length(groups); i++) {
		json_object *g = json_object_array_get_idx(groups, i);

		json_object_array_add(items,
		    sw_jo("name",
			sw_js(sw_json_get_str(g, "InstanceGroupName")),
			"instance_type",
			sw_js(sw_json_get_str(g, "InstanceType")),
			"current_count",
			sw_ji(sw_json_get_int(g, "CurrentCount", 0)),
			"target_count",
			sw_ji(sw_json_get_int(g, "TargetCount", 0)), "status",
			sw_js(sw_json_get_str(g, "Status")
				? sw_json_get_str(g, "Status")
				: "unknown"),
			"training_plan_arn",
			sw_json_get_str(g, "TrainingPlanArn")
			    ? sw_js(sw_json_get_str(g, "TrainingPlanArn"))
			    : NULL,
			"training_plan",
			sw_json_get_str(g, "TrainingPlanArn")
			    ? h_plan_brief(
				  r, sw_json_get_str(g, "TrainingPlanArn"))
			    : NULL,
			"subnets",
			json_object_get(
			    sw_json_path(g, "OverrideVpcConfig.Subnets")),
			"scheduled_update",
			sw_hp_patch_view(g, "scheduled_update"), "auto_patch",
			sw_hp_patch_view(g, "auto_patch"),
			"image_release_version",
			sw_json_get_str(g, "ImageReleaseVersion")
			    ? sw_js(sw_json_get_str(g, "ImageReleaseVersion"))
			    : NULL,
			NULL));
	}
	json_object_put(hp);
	sw_req_reply(r, 200, sw_jo("items", items, NULL));
	return SW_OK;
}

sw_err
h_instance_group_add(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "name");
	json_object *hp, *g = r->args, *group;
	const char *gname = sw_json_get_str(g, "group_name");
	const char *cap = sw_json_get_str(g, "capacity_type");
	const char *plan = sw_json_get_str(g, "training_plan_arn");
	const char *role, *sg;
	json_object *params;

	if (h_hp_need(r, name, &hp) != SW_OK)
		return r->err;
	if (find_group(hp, gname) != NULL) {
		json_object_put(hp);
		sw_ferr_add(&r->ferrs, "group_name", "unique",
		    "group %s "
		    "exists in %s",
		    gname, name);
		return sw_req_fail(
		    r, SW_ECONFLICT, "instance group %s exists", gname);
	}
	if (cap != NULL && strcmp(cap, "spot") == 0 && plan != NULL) {
		json_object_put(hp);
		sw_ferr_add(&r->ferrs, "training_plan_arn", "conflict",
		    "spot capacity cannot use a training plan");
		return sw_req_fail(r, SW_EINVAL, "spot with a training plan");
	}
	role = sw_json_path_str(hp, "InstanceGroups[0].ExecutionRole");
	sg = sw_json_path_str(hp, "VpcConfig.SecurityGroupIds[0]");
	if (sg == NULL)
		sg = sw_json_path_str(hp,
		    "InstanceGroups[0].OverrideVpcConfig.SecurityGroupIds[0]");
	group = sw_jo("name", sw_js(gname), "instance_type",
	    sw_js(sw_json_get_str(g, "instance_type")), "count",
	    sw_ji(sw_json_get_int(g, "count", 1)), "capacity_type",
	    sw_js(cap      ? cap
		    : plan ? "training-plan"
			   : "on-demand"),
	    "training_plan_arn", plan ? sw_js(plan) : NULL, "availability_zone",
	    sw_json_get_str(g, "availability_zone")
		? sw_js(sw_json_get_str(g, "availability_zone"))
		: NULL,
	    "efa_only", sw_jb(sw_json_get_bool(g, "efa_only", 0)),
	    "threads_per_core",
	    sw_ji(sw_json_get_int(g, "threads_per_core", 1)), "volume_size_gb",
	    sw_ji(sw_json_get_int(g, "volume_size_gb", 500)), "subnet_id",
	    sw_json_get_str(g, "subnet_id")
		? sw_js(sw_json_get_str(g, "subnet_id"))
		: NULL,
	    "placement",
	    sw_js(sw_json_get_str(g, "placement")
		    ? sw_json_get_str(g, "placement")
		    : "shared"),
	    "scheduled_update",
	    json_object_get(sw_json_get(g, "scheduled_update")), "auto_patch",
	    json_object_get(sw_json_get(g, "auto_patch")),
	    "image_release_version",
	    sw_js(sw_json_get_str(g, "image_release_version")), NULL);
	/* A training plan decides the AZ, and must hold the capacity. */
	if (plan != NULL) {
		h_check_training_plan(r, group, "training_plan_arn");
		if (r->ferrs.n > 0) {
			json_object_put(group);
			json_object_put(hp);
			return sw_req_fail(r, SW_EPRECONDITION,
			    "training plan "
			    "check failed: %s",
			    r->ferrs.e[0].msg);
		}
	}
	/* Without an AZ: the AZ of the cluster's first group subnet. */
	if (sw_json_get_str(group, "availability_zone") == NULL) {
		const char *sub = sw_json_path_str(
		    hp, "InstanceGroups[0].OverrideVpcConfig.Subnets[0]");
		json_object *out = NULL;
		struct aws_error err;

		memset(&err, 0, sizeof(err));
		if (sub != NULL &&
		    h_call(r, AWS_SVC_EC2, "DescribeSubnets",
			sw_jo("SubnetIds", sw_ja(sw_js(sub)), NULL), &out,
			&err) == SW_OK &&
		    sw_json_path_str(out, "subnetSet[0].availabilityZone"))
			sw_json_add_str(group, "availability_zone",
			    sw_json_path_str(
				out, "subnetSet[0].availabilityZone"));
		json_object_put(out);
	}
	if (sw_json_get_str(group, "availability_zone") == NULL) {
		json_object_put(group);
		json_object_put(hp);
		sw_ferr_add(&r->ferrs, "availability_zone", "required",
		    "cannot be derived from the cluster; give it");
		return sw_req_fail(r, SW_EINVAL, "availability_zone needed");
	}
	/* The AZ must offer the type, and the quota hold the count. */
	{
		struct h_capacity_ask ask = { .field = "count",
			.type = sw_json_get_str(group, "instance_type"),
			.count = sw_json_get_int(group, "count", 1),
			.plan = plan };

		if (h_check_offered(r, ask.type,
			sw_json_get_str(group, "availability_zone"),
			"availability_zone") != SW_OK ||
		    h_check_quota(r, &ask, 1, NULL, NULL) != SW_OK) {
			json_object_put(group);
			json_object_put(hp);
			return r->err;
		}
	}
	params =
	    sw_jo("name", sw_js(name), "group", group, "execution_role_arn",
		sw_js(role), "security_group_id", sw_js(sg), NULL);
	json_object_put(hp);
	return h_start_with(r, params, "instance_group.add", gname, name);
}

/* What instance_group_scale can change; a body must name one. */
static const char *const changeable[] = { "count", "scheduled_update",
	"auto_patch", "image_release_version", NULL };

static const char *const immutable[] = { "instance_type", "capacity_type",
	"efa_only", "availability_zone", "subnet_id", "training_plan_arn",
	"placement", NULL };

/*
 * A larger count for group g (a DescribeCluster group, borrowed) of
 * cluster: its training plan must have the extra instances, else the
 * quota must hold the new count net of the account's other use.
 */
static sw_err
check_scale(struct sw_req *r, const char *cluster, json_object *g)
{
	int64_t count = sw_json_get_int(r->args, "count", -1);
	int64_t now = sw_json_get_int(g, "TargetCount", 0);
	const char *plan = sw_json_get_str(g, "TrainingPlanArn");
	struct h_capacity_ask ask = { .field = "count",
		.type = sw_json_get_str(g, "InstanceType"),
		.count = count,
		.plan = plan };
	json_object *more;

	if (count <= now || ask.type == NULL)
		return SW_OK;
	if (plan == NULL)
		return h_check_quota(r, &ask, 1, cluster,
		    sw_json_get_str(g, "InstanceGroupName"));
	more = sw_jo("training_plan_arn", sw_js(plan), "instance_type",
	    sw_js(ask.type), "count", sw_ji(count - now), NULL);
	h_check_training_plan(r, more, "count");
	json_object_put(more);
	if (r->ferrs.n > 0)
		return sw_req_fail(r, SW_EPRECONDITION,
		    "training plan check "
		    "failed: %s",
		    r->ferrs.e[0].msg);
	return SW_OK;
}

sw_err
h_instance_group_scale(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "name");
	const char *group = sw_json_get_str(r->args, "group");
	json_object *hp, *g, *params;
	int i;

	for (i = 0; immutable[i] != NULL; i++)
		if (sw_json_get(r->args, immutable[i]) != NULL)
			sw_ferr_add(&r->ferrs, immutable[i], "immutable",
			    "cannot change after the group is created; add a "
			    "new group instead");
	if (r->ferrs.n > 0)
		return sw_req_fail(
		    r, SW_EINVAL, "%s is immutable", r->ferrs.e[0].field);
	for (i = 0; changeable[i] != NULL; i++)
		if (sw_json_get(r->args, changeable[i]) != NULL)
			break;
	if (changeable[i] == NULL) {
		sw_ferr_add(&r->ferrs, "count", "anyOf",
		    "give count, "
		    "scheduled_update, auto_patch or image_release_version");
		return sw_req_fail(r, SW_EINVAL, "nothing to change");
	}
	if (h_hp_need(r, name, &hp) != SW_OK)
		return r->err;
	if ((g = find_group(hp, group)) == NULL) {
		json_object_put(hp);
		return sw_req_fail(r, SW_ENOTFOUND,
		    "no instance group %s in "
		    "%s",
		    group, name);
	}
	if (check_scale(r, name, g) != SW_OK) {
		json_object_put(hp);
		return r->err;
	}
	json_object_put(hp);
	/* Without a count the group keeps its target count (-1). */
	params = sw_jo("name", sw_js(name), "group_name", sw_js(group), "count",
	    sw_ji(sw_json_get_int(r->args, "count", -1)), "scheduled_update",
	    json_object_get(sw_json_get(r->args, "scheduled_update")),
	    "auto_patch", json_object_get(sw_json_get(r->args, "auto_patch")),
	    "image_release_version",
	    sw_js(sw_json_get_str(r->args, "image_release_version")), NULL);
	return h_start_with(r, params, "instance_group.update", group, name);
}

sw_err
h_instance_group_delete(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "name");
	const char *group = sw_json_get_str(r->args, "group");
	json_object *hp, *params;

	if (h_hp_need(r, name, &hp) != SW_OK)
		return r->err;
	if (find_group(hp, group) == NULL) {
		json_object_put(hp);
		return sw_req_fail(r, SW_ENOTFOUND,
		    "no instance group %s in "
		    "%s",
		    group, name);
	}
	json_object_put(hp);
	params = sw_jo("name", sw_js(name), "group_name", sw_js(group), NULL);
	return h_start_with(r, params, "instance_group.delete", group, name);
}

sw_err
h_node_list(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "name");
	const char *group = sw_json_get_str(r->args, "instance_group");
	json_object *out, *list, *items;
	struct aws_error err;
	sw_err e;
	size_t i;

	if (h_aws(r) == NULL)
		return sw_req_fail(r, SW_EUNAVAIL, "no AWS client");
	memset(&err, 0, sizeof(err));
	if ((e = h_call(r, AWS_SVC_SAGEMAKER, "ListClusterNodes",
		 sw_jo("ClusterName", sw_js(name), "MaxResults", sw_ji(100),
		     "IncludeNodeLogicalIds", sw_jb(1),
		     "InstanceGroupNameContains", group ? sw_js(group) : NULL,
		     NULL),
		 &out, &err)) != SW_OK)
		return h_aws_fail(
		    r, AWS_SVC_SAGEMAKER, "ListClusterNodes", e, &err);
	items = json_object_new_array();
	list = sw_json_get(out, "ClusterNodeSummaries");
	for (i = 0; list && i < json_object_array_length(list); i++) {
		json_object *n = json_object_array_get_idx(list, i);

		json_object_array_add(items,
		    sw_jo("node_id", sw_js(sw_json_get_str(n, "InstanceId")),
			"instance_group",
			sw_js(sw_json_get_str(n, "InstanceGroupName")),
			"instance_type",
			sw_js(sw_json_get_str(n, "InstanceType")), "status",
			sw_js(sw_json_path_str(n, "InstanceStatus.Status")
				? sw_json_path_str(n, "InstanceStatus.Status")
				: "unknown"),
			"message",
			sw_json_path_str(n, "InstanceStatus.Message")
			    ? sw_js(
				  sw_json_path_str(n, "InstanceStatus.Message"))
			    : NULL,
			"hostname",
			sw_json_get_str(n, "PrivateDnsHostname")
			    ? sw_js(sw_json_get_str(n, "PrivateDnsHostname"))
			    : NULL,
			"node_logical_id",
			sw_json_get_str(n, "NodeLogicalId")
			    ? sw_js(sw_json_get_str(n, "NodeLogicalId"))
			    : NULL,
			NULL));
	}
	json_object_put(out);
	sw_req_reply(r, 200, sw_jo("items", items, NULL));
	return SW_OK;
}

static sw_err
node_action(struct sw_req *r, const char *action)
{
	const char *name = sw_json_get_str(r->args, "name");
	json_object *params;

	params = sw_jo("name", sw_js(name), "action", sw_js(action), "node_ids",
	    json_object_get(sw_json_get(r->args, "node_ids")), NULL);
	return h_start_with(r, params, "node.action", action, name);
}

sw_err
h_node_reboot(struct sw_req *r)
{
	return node_action(r, "reboot");
}

sw_err
h_node_replace(struct sw_req *r)
{
	return node_action(r, "replace");
}

sw_err
h_node_delete(struct sw_req *r)
{
	return node_action(r, "delete");
}

/*
 * One node in detail.  ssm_target is how Session Manager names a
 * HyperPod node: sagemaker-cluster:<cluster-id>_<group>-<instance-id>,
 * the cluster id being the last part of the cluster's ARN.
 */
sw_err
h_node_get(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "name");
	const char *node = sw_json_get_str(r->args, "node");
	json_object *hp, *out, *n;
	struct aws_error err;
	sw_err e;
	const char *arn, *id, *group;
	char target[256], cmd[512];
	int len;

	if (h_hp_need(r, name, &hp) != SW_OK)
		return r->err;
	memset(&err, 0, sizeof(err));
	if ((e = h_call(r, AWS_SVC_SAGEMAKER, "DescribeClusterNode",
		 sw_jo("ClusterName", sw_js(name), "NodeId", sw_js(node), NULL),
		 &out, &err)) != SW_OK) {
		json_object_put(hp);
		if (e == SW_ENOTFOUND)
			return sw_req_fail(
			    r, SW_ENOTFOUND, "no node %s in %s", node, name);
		return h_aws_fail(
		    r, AWS_SVC_SAGEMAKER, "DescribeClusterNode", e, &err);
	}
	n = sw_json_get(out, "NodeDetails");
	arn = sw_json_get_str(hp, "ClusterArn");
	id = arn && strrchr(arn, '/') ? strrchr(arn, '/') + 1 : "";
	group = sw_json_get_str(n, "InstanceGroupName");
	len = snprintf(target, sizeof(target), "sagemaker-cluster:%s_%s-%s", id,
	    group ? group : "", node);
	if (len < 0 || (size_t)len >= sizeof(target) ||
	    (len = snprintf(cmd, sizeof(cmd),
		 "aws ssm start-session "
		 "--target %s --region %s",
		 target, h_aws(r)->region)) < 0 ||
	    (size_t)len >= sizeof(cmd)) {
		json_object_put(out);
		json_object_put(hp);
		return sw_req_fail(r, SW_EINTERNAL, "SSM target too long");
	}
	sw_req_reply(r, 200,
	    sw_jo("node_id", sw_js(node), "instance_group", sw_js(group),
		"instance_type", sw_js(sw_json_get_str(n, "InstanceType")),
		"status", sw_js(sw_json_path_str(n, "InstanceStatus.Status")),
		"message", sw_js(sw_json_path_str(n, "InstanceStatus.Message")),
		"hostname", sw_js(sw_json_get_str(n, "PrivateDnsHostname")),
		"private_ip", sw_js(sw_json_get_str(n, "PrivatePrimaryIp")),
		"availability_zone",
		sw_js(sw_json_path_str(n, "Placement.AvailabilityZone")),
		"capacity_type", sw_js(sw_json_get_str(n, "CapacityType")),
		"logical_id", sw_js(sw_json_get_str(n, "NodeLogicalId")),
		"image_release_version",
		sw_js(sw_json_get_str(n, "CurrentImageReleaseVersion")),
		"desired_image_release_version",
		sw_js(sw_json_get_str(n, "DesiredImageReleaseVersion")),
		"launch_time", json_object_get(sw_json_get(n, "LaunchTime")),
		"ssm_target", sw_js(target), "ssm_command", sw_js(cmd), NULL));
	json_object_put(out);
	json_object_put(hp);
	return SW_OK;
}

/*
 * Deep health checks of chosen nodes (node.health_check).  Every node
 * must exist and be Running: SageMaker refuses the whole request
 * otherwise, so each is checked here and named in the answer.
 */
sw_err
h_node_health_check(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "name");
	json_object *ids = sw_json_get(r->args, "node_ids");
	json_object *checks = sw_json_get(r->args, "checks");
	json_object *out, *list, *nodes, *params;
	struct aws_error err;
	sw_err e;
	size_t i, j;

	memset(&err, 0, sizeof(err));
	if (h_aws(r) == NULL)
		return sw_req_fail(r, SW_EUNAVAIL, "no AWS client");
	if ((e = h_call(r, AWS_SVC_SAGEMAKER, "ListClusterNodes",
		 sw_jo("ClusterName", sw_js(name), "MaxResults", sw_ji(100),
		     NULL),
		 &out, &err)) != SW_OK)
		return h_aws_fail(
		    r, AWS_SVC_SAGEMAKER, "ListClusterNodes", e, &err);
	list = sw_json_get(out, "ClusterNodeSummaries");
	nodes = json_object_new_array();
	for (i = 0; i < json_object_array_length(ids); i++) {
		const char *id =
		    json_object_get_string(json_object_array_get_idx(ids, i));
		json_object *row = NULL;
		const char *st;
		char field[32];

		for (j = 0; list && j < json_object_array_length(list); j++)
			if (strcmp(sw_json_get_str(
				       json_object_array_get_idx(list, j),
				       "InstanceId")
				    ?: "",
				id) == 0)
				row = json_object_array_get_idx(list, j);
		sw_fmt_text(field, sizeof(field), "node_ids[%zu]", i);
		st =
		    row ? sw_json_path_str(row, "InstanceStatus.Status") : NULL;
		if (row == NULL)
			sw_ferr_add(&r->ferrs, field, "exists",
			    "no node %s in "
			    "%s",
			    id, name);
		else if (st == NULL || strcmp(st, "Running") != 0)
			sw_ferr_add(&r->ferrs, field, "state",
			    "node %s is %s; "
			    "deep health checks run only on Running nodes",
			    id, st ? st : "unknown");
		else
			json_object_array_add(nodes,
			    sw_jo("node_id", sw_js(id), "instance_group",
				sw_js(
				    sw_json_get_str(row, "InstanceGroupName")),
				NULL));
	}
	json_object_put(out);
	if (r->ferrs.n > 0) {
		json_object_put(nodes);
		return sw_req_fail(r,
		    strcmp(r->ferrs.e[0].rule, "exists") == 0 ? SW_ENOTFOUND
							      : SW_ECONFLICT,
		    "%s", r->ferrs.e[0].msg);
	}
	params = sw_jo("name", sw_js(name), "nodes", nodes, "checks",
	    checks
		? json_object_get(checks)
		: sw_ja(sw_js("InstanceStress"), sw_js("InstanceConnectivity")),
	    NULL);
	return h_start_with(
	    r, params, "node.health_check", "health-check", name);
}
