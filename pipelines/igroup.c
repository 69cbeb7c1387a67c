/*
 * igroup.c: instance groups and nodes of a running HyperPod cluster.
 *
 *   instance_group.add     subnet (shared /20 per AZ or a dedicated one)
 *                          -> UpdateCluster -> wait InService
 *   instance_group.update  UpdateCluster with the new count and/or
 *                          patching schedule -> wait; on a cluster in
 *                          Continuous node provisioning a larger count
 *                          goes as BatchAddClusterNodes calls instead
 *                          (ClientToken per call, at most 50 nodes
 *                          each) -> wait for the added NodeLogicalIds
 *   instance_group.delete  UpdateCluster InstanceGroupsToDelete -> wait
 *   node.action            BatchReboot/Replace/DeleteClusterNodes ->
 *                          wait until the nodes are back (or gone)
 *
 * UpdateCluster takes the whole list of groups, so existing groups are
 * resent through one explicit allow-list (resend_group), never by
 * echoing DescribeCluster's output back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/json.h"
#include "pipelines/pipelines.h"
#include "pipelines/stepkit.h"

/* Members of a ClusterInstanceGroupDetails that UpdateCluster takes. */
static const char *const resend_allow[] = { "InstanceGroupName", "InstanceType",
	"ExecutionRole", "LifeCycleConfig", "ThreadsPerCore",
	"InstanceStorageConfigs", "OnStartDeepHealthChecks", "TrainingPlanArn",
	"OverrideVpcConfig", "ScheduledUpdateConfig", "AutoPatchConfig",
	"ImageId", "KubernetesConfig", "CapacityRequirements",
	"NetworkInterface", "MinInstanceCount", NULL };

json_object *
sw_hp_resend_group(json_object *detail, int64_t count)
{
	json_object *g = json_object_new_object(), *v;
	int i;

	for (i = 0; resend_allow[i] != NULL; i++)
		if ((v = sw_json_get(detail, resend_allow[i])) != NULL)
			json_object_object_add(
			    g, resend_allow[i], json_object_get(v));
	json_object_object_add(g, "InstanceCount",
	    sw_ji(count >= 0
		    ? count
		    : sw_json_get_int(detail, "TargetCount",
			  sw_json_get_int(detail, "CurrentCount", 0))));
	return g;
}

/* Describe the HyperPod cluster; its status into status (may be NULL). */
static enum sw_step_rc
describe(struct sw_step *s, json_object **out)
{
	return sw_step_hp_describe(s, CLUSTER(s), out, NULL);
}

static enum sw_step_rc track_added(struct sw_step *, json_object *added);

static enum sw_step_rc
wait_in_service(struct sw_step *s)
{
	json_object *out,
	    *added = sw_json_get(sw_json_get(s->all, "update"), "added");
	enum sw_step_rc rc;

	if (s->plan)
		return added != NULL ||
			sw_json_get(
			    sw_json_get(s->all, "update"), "add_total") != NULL
		    ? sw_plan_wait(s, SW_WAIT_NODES_RUNNING)
		    : STEP_DONE;
	if (added != NULL)
		TRY(track_added(s, added));
	rc = sw_hp_wait_in_service(s, "instance group change", 30000, &out);
	if (rc == STEP_DONE) {
		/* A group update that failed leaves the cluster InService
		 * with the group's status saying why. */
		json_object *groups = sw_json_get(out, "InstanceGroups");
		const char *want = sw_json_path_str(s->params, "group.name");
		size_t i;

		if (want == NULL)
			want = sw_json_get_str(s->params, "group_name");
		for (i = 0;
		     want && groups && i < json_object_array_length(groups);
		     i++) {
			json_object *g = json_object_array_get_idx(groups, i);
			const char *st = sw_json_get_str(g, "Status");

			if (strcmp(sw_json_get_str(g, "InstanceGroupName"),
				want) != 0 ||
			    st == NULL)
				continue;
			if (strcmp(st, "Failed") == 0 ||
			    strstr(st, "Degraded") != NULL)
				rc = sw_step_fail(s,
				    "instance group %s is %s:"
				    " %s",
				    want, st,
				    sw_json_get_str(g, "FailureMessages")
					? sw_json_get_str(g, "FailureMessages")
					: "see DescribeCluster");
		}
	}
	json_object_put(out);
	return rc;
}

/* The group named name in a DescribeCluster document, or NULL. */
static json_object *
hp_group(json_object *hp, const char *name)
{
	json_object *groups = sw_json_get(hp, "InstanceGroups"), *g;
	size_t i;

	for (i = 0; name && groups && i < json_object_array_length(groups);
	     i++) {
		g = json_object_array_get_idx(groups, i);
		if (sw_json_get_str(g, "InstanceGroupName") != NULL &&
		    strcmp(sw_json_get_str(g, "InstanceGroupName"), name) == 0)
			return g;
	}
	return NULL;
}

/* The cluster (hp, borrowed) already shows the change update_groups
 * asks for: the count (count < 0: unchanged) and schedule asked in
 * params, the added group, the deleted groups. */
static int
groups_changed(json_object *hp, json_object *params, const char *change_name,
    int64_t count, json_object *add, json_object *del)
{
	const char *cron = sw_json_path_str(params, "scheduled_update.cron");
	json_object *g;
	size_t k;

	if (change_name != NULL &&
	    ((g = hp_group(hp, change_name)) == NULL ||
		(count >= 0 &&
		    sw_json_get_int(g, "TargetCount", -1) != count) ||
		(cron != NULL &&
		    strcmp(sw_json_path_str(
			       g, "ScheduledUpdateConfig.ScheduleExpression")
			    ?: "",
			cron) != 0)))
		return 0;
	if (add != NULL &&
	    hp_group(hp, sw_json_get_str(add, "InstanceGroupName")) == NULL)
		return 0;
	for (k = 0; del && k < json_object_array_length(del); k++)
		if (hp_group(hp,
			json_object_get_string(
			    json_object_array_get_idx(del, k))) != NULL)
			return 0;
	return 1;
}

/* UpdateCluster with the existing groups (count changed for one,
 * one added, or some deleted), sent at most once: "update_sent" is
 * recorded before it goes out, and a step that finds it reads the
 * cluster instead (updating, or showing the change: it was applied). */
static enum sw_step_rc
update_groups(struct sw_step *s, const char *change_name, int64_t count,
    json_object *add, json_object *del)
{
	json_object *out, *groups, *list, *upd;
	const char *status;
	size_t i;
	int resumed;

	if (sw_res_get(s, "update_requested") != NULL) {
		json_object_put(add);
		json_object_put(del);
		return STEP_DONE;
	}
	{
		enum sw_step_rc rc = describe(s, &out);

		if (rc != STEP_DONE) {
			json_object_put(add);
			json_object_put(del);
			return rc;
		}
	}
	status = sw_keep(s, sw_json_get_str(out, "ClusterStatus"));
	if (!s->plan && sw_res_get(s, "update_sent") != NULL) {
		if ((status != NULL && strcmp(status, "InService") != 0) ||
		    groups_changed(
			out, s->params, change_name, count, add, del)) {
			json_object_put(out);
			json_object_put(add);
			json_object_put(del);
			sw_res_set(s, "update_requested", "yes");
			return STEP_DONE;
		}
		/* InService without the change: it never arrived. */
		json_object_object_del(s->res, "update_sent");
	}
	if (!s->plan && (status == NULL || strcmp(status, "InService") != 0)) {
		json_object_put(out);
		json_object_put(add);
		json_object_put(del);
		return sw_step_wait(s, sw_poll_ms(s, 30000),
		    "cluster %s is %s;"
		    " waiting to update it",
		    CLUSTER(s), status ? status : "unknown");
	}
	list = json_object_new_array();
	groups = sw_json_get(out, "InstanceGroups");
	for (i = 0; groups && i < json_object_array_length(groups); i++) {
		json_object *d = json_object_array_get_idx(groups, i);
		const char *n = sw_json_get_str(d, "InstanceGroupName");
		size_t k;
		int deleted = 0;

		for (k = 0; del && k < json_object_array_length(del); k++)
			if (strcmp(json_object_get_string(
				       json_object_array_get_idx(del, k)),
				n) == 0)
				deleted = 1;
		if (deleted)
			continue;
		json_object_array_add(list,
		    sw_hp_resend_group(d,
			change_name && strcmp(change_name, n) == 0 ? count
								   : -1));
		if (change_name && strcmp(change_name, n) == 0)
			sw_hp_patch_members(s->params,
			    json_object_array_get_idx(
				list, json_object_array_length(list) - 1));
	}
	if (add != NULL)
		json_object_array_add(list, add);
	json_object_put(out);
	upd = sw_jo("ClusterName", sw_js(CLUSTER(s)), "InstanceGroups", list,
	    "InstanceGroupsToDelete", del, NULL);
	TRY(sw_step_aws_once(s, "update_sent", AWS_SVC_SAGEMAKER,
	    "UpdateCluster", upd, &out, &resumed));
	json_object_put(out);
	sw_res_set(s, "update_requested", "yes");
	return STEP_DONE;
}

/* ---- instance_group.add ---------------------------------------------- */

static enum sw_step_rc
stage_ig_subnet(struct sw_step *s)
{
	const char *az = sw_json_path_str(s->params, "group.availability_zone");
	const char *placement = sw_json_path_str(s->params, "group.placement");
	char key[128];

	if (sw_json_path_str(s->params, "group.subnet_id") != NULL)
		return STEP_DONE;
	TRY(sw_ensure_compute_subnet(s, az,
	    placement != NULL && strcmp(placement, "dedicated") == 0
		? sw_json_path_str(s->params, "group.name")
		: NULL,
	    key, sizeof(key)));
	sw_res_set(s, "subnet_id", sw_res_get(s, key));
	return STEP_DONE;
}

static enum sw_step_rc
stage_ig_update(struct sw_step *s)
{
	json_object *g = json_object_get(sw_json_get(s->params, "group"));
	json_object *one, *specs;
	char role[128], uri[256];
	const char *exec;
	enum sw_step_rc rc;

	TRY(sw_ensure_lifecycle(s, uri, sizeof(uri)));
	sw_name(role, sizeof(role), CLUSTER(s), SW_ROLE_HP_EXEC);
	exec = sw_json_get_str(s->params, "execution_role_arn");
	if (sw_json_get_str(g, "subnet_id") == NULL &&
	    sw_res_from(s, "subnet", "subnet_id") != NULL)
		sw_json_add_str(
		    g, "subnet_id", sw_res_from(s, "subnet", "subnet_id"));
	one = sw_ja(g);
	specs = sw_hp_instance_groups(s, one, exec, uri);
	json_object_put(one);
	sw_hp_patch_members(g, json_object_array_get_idx(specs, 0));
	rc = update_groups(s, NULL, 0,
	    json_object_get(json_object_array_get_idx(specs, 0)), NULL);
	json_object_put(specs);
	return rc;
}

/* clang-format off */
static const struct sw_stage_def ig_add_stages[] = {
	{ "subnet", stage_ig_subnet },
	{ "update", stage_ig_update },
	{ "wait", wait_in_service },
	{ NULL, NULL }
};
/* clang-format on */

const struct sw_pipeline sw_pl_ig_add = { "instance_group.add", ig_add_stages };

/* ---- instance_group.update / delete ------------------------------------ */

/*
 * BatchAddClusterNodes: AWS's safer way to add nodes on a cluster in
 * Continuous node provisioning, at most 50 nodes (and 5 groups) a call.
 * Each call carries a ClientToken made of the operation id, the stage
 * and the call's number, so a retried or resumed stage sends the same
 * token with the same input, and AWS answers the nodes it added then
 * instead of adding more.  AWS keeps a token 8 hours: past that, a call
 * whose answer was never recorded is not sent again (the stage fails
 * and says so).
 */
#define BATCH_ADD_MAX_NODES 50
#define CLIENT_TOKEN_KEEP_MS (8LL * 3600 * 1000)
#define CLIENT_TOKEN_SAFE_MS (CLIENT_TOKEN_KEEP_MS - 30LL * 60 * 1000)

/* ClientToken of call i of this stage: 1-64 characters \x21-\x7E. */
static void
batch_token(struct sw_step *s, int i, char *buf, size_t n)
{
	if (sw_fmt(buf, n, "slipway-%s-%.24s-%d",
		s->op_id ? s->op_id : "planned", s->stage, i) != SW_OK)
		buf[0] = '\0';
}

/*
 * Whether this stage scales group up by BatchAddClusterNodes.  Decided
 * once and recorded ("add_total": nodes to add in all) before any call
 * goes out, so a resumed stage goes on the same way with the same
 * calls; a stage that recorded an UpdateCluster goes on with that.
 * Only a count change alone, upwards, on a Continuous cluster qualifies.
 */
static enum sw_step_rc
choose_batch_add(
    struct sw_step *s, const char *group, int64_t count, int *batch)
{
	json_object *out, *g;
	const char *mode, *status;
	int64_t now;
	char num[24];

	*batch = sw_res_get(s, "add_total") != NULL;
	if (*batch || count < 0 || sw_res_get(s, "update_sent") != NULL ||
	    sw_res_get(s, "update_requested") != NULL ||
	    sw_json_get(s->params, "scheduled_update") != NULL ||
	    sw_json_get(s->params, "auto_patch") != NULL ||
	    sw_json_get_str(s->params, "image_release_version") != NULL)
		return STEP_DONE;
	TRY(describe(s, &out));
	mode = sw_json_get_str(out, "NodeProvisioningMode");
	status = sw_keep(s, sw_json_get_str(out, "ClusterStatus"));
	g = hp_group(out, group);
	now = g ? sw_json_get_int(g, "TargetCount", -1) : -1;
	if (mode != NULL && strcmp(mode, "Continuous") == 0 && now >= 0 &&
	    count > now && !s->plan &&
	    (status == NULL || strcmp(status, "InService") != 0)) {
		/* As UpdateCluster would: the count is read again once
		 * the cluster's own change is over. */
		json_object_put(out);
		return sw_step_wait(s, sw_poll_ms(s, 30000),
		    "cluster %s is "
		    "%s; waiting to add nodes",
		    CLUSTER(s), status ? status : "unknown");
	}
	if (mode != NULL && strcmp(mode, "Continuous") == 0 && now >= 0 &&
	    count > now) {
		if (sw_fmt(num, sizeof(num), "%lld",
			(long long)(count - now)) == SW_OK)
			sw_res_set(s, "add_total", num);
		if (sw_fmt(num, sizeof(num), "%lld", (long long)now) == SW_OK)
			sw_res_set(s, "add_from", num);
		sw_mark_started(s, "add_started");
	}
	json_object_put(out);
	*batch = sw_res_get(s, "add_total") != NULL;
	return STEP_DONE;
}

/* The NodeLogicalIds of a BatchAddClusterNodes answer (new), or fail
 * the step when AWS refused some of the nodes (Failed). */
static enum sw_step_rc
added_ids(struct sw_step *s, json_object *out, json_object **ids)
{
	json_object *ok = sw_json_get(out, "Successful");
	json_object *failed = sw_json_get(out, "Failed");
	size_t i;

	*ids = NULL;
	if (failed != NULL && json_object_array_length(failed) > 0) {
		json_object *f = json_object_array_get_idx(failed, 0);

		return sw_step_fail(s,
		    "BatchAddClusterNodes refused %lld "
		    "node(s) of %s: %s (%s)",
		    (long long)sw_json_get_int(f, "FailedCount", 0),
		    sw_json_get_str(f, "InstanceGroupName") ?: "?",
		    sw_json_get_str(f, "ErrorCode") ?: "?",
		    sw_json_get_str(f, "Message") ?: "no message");
	}
	*ids = json_object_new_array();
	for (i = 0; ok && i < json_object_array_length(ok); i++)
		json_object_array_add(*ids,
		    sw_js(sw_json_get_str(
			json_object_array_get_idx(ok, i), "NodeLogicalId")));
	return STEP_DONE;
}

/* Call i (i from 0) of BatchAddClusterNodes for group: n nodes. */
static enum sw_step_rc
batch_add_call(struct sw_step *s, const char *group, int i, int64_t n)
{
	json_object *out, *ids, *added;
	const char *started = sw_res_get(s, "add_started");
	char token[80], key[16];

	if (sw_fmt(key, sizeof(key), "%d", i) != SW_OK)
		return sw_step_fail(s, "call number %d", i);
	if (sw_json_get(sw_json_get(s->res, "added"), key) != NULL)
		return STEP_DONE; /* answered and recorded */
	if (!s->plan && started != NULL &&
	    sw_db_now_ms(s->db) - strtoll(started, NULL, 10) >
		sw_poll_ms(s, CLIENT_TOKEN_SAFE_MS))
		return sw_step_fail(s,
		    "BatchAddClusterNodes call %d of %s "
		    "was not answered within the 8 hours AWS keeps its "
		    "ClientToken; it is not sent again (it may have been "
		    "applied): compare the group's count with the target",
		    i + 1, group);
	batch_token(s, i, token, sizeof(token));
	TRY(sw_step_aws(s, AWS_SVC_SAGEMAKER, "BatchAddClusterNodes",
	    sw_jo("ClusterName", sw_js(CLUSTER(s)), "ClientToken", sw_js(token),
		"NodesToAdd",
		sw_ja(sw_jo("InstanceGroupName", sw_js(group),
		    "IncrementTargetCountBy", sw_ji(n), NULL)),
		NULL),
	    &out, NULL));
	if (s->plan) {
		json_object_put(out);
		return STEP_DONE;
	}
	if (added_ids(s, out, &ids) != STEP_DONE) {
		json_object_put(out);
		return STEP_FAIL;
	}
	json_object_put(out);
	if ((added = sw_json_get(s->res, "added")) == NULL) {
		added = json_object_new_object();
		json_object_object_add(s->res, "added", added);
	}
	json_object_object_add(added, key, ids);
	/* Kept now, so a later call's crash does not resend this one;
	 * if it cannot be kept, the token makes a resend harmless. */
	(void)sw_step_save(s);
	return STEP_DONE;
}

static enum sw_step_rc
batch_add(struct sw_step *s, const char *group)
{
	int64_t total = strtoll(sw_res_get(s, "add_total"), NULL, 10), left;
	int i;

	for (i = 0, left = total; left > 0; i++, left -= BATCH_ADD_MAX_NODES)
		TRY(batch_add_call(s, group, i,
		    left < BATCH_ADD_MAX_NODES ? left : BATCH_ADD_MAX_NODES));
	sw_res_set(s, "update_requested", "BatchAddClusterNodes");
	return STEP_DONE;
}

/* Status of logical id in a ListClusterNodes page list, or NULL. */
static const char *
logical_status(json_object *list, const char *id)
{
	size_t j;

	for (j = 0; list && j < json_object_array_length(list); j++) {
		json_object *n = json_object_array_get_idx(list, j);
		const char *lid = sw_json_get_str(n, "NodeLogicalId");

		if (lid != NULL && strcmp(lid, id) == 0)
			return sw_json_path_str(n, "InstanceStatus.Status")
			    ?: "unknown";
	}
	return NULL;
}

/* Every node ListClusterNodes lists, with NodeLogicalIds (new array). */
static enum sw_step_rc
list_all_nodes(struct sw_step *s, json_object **all)
{
	json_object *out, *page;
	const char *next = NULL;
	enum sw_step_rc rc;
	size_t i;

	*all = json_object_new_array();
	do {
		rc = sw_step_aws(s, AWS_SVC_SAGEMAKER, "ListClusterNodes",
		    sw_jo("ClusterName", sw_js(CLUSTER(s)), "MaxResults",
			sw_ji(100), "IncludeNodeLogicalIds", sw_jb(1),
			"NextToken", next ? sw_js(next) : NULL, NULL),
		    &out, NULL);
		if (rc != STEP_DONE) {
			json_object_put(*all);
			*all = NULL;
			return rc;
		}
		page = sw_json_get(out, "ClusterNodeSummaries");
		for (i = 0; page && i < json_object_array_length(page); i++)
			json_object_array_add(*all,
			    json_object_get(
				json_object_array_get_idx(page, i)));
		next = sw_keep(s, sw_json_get_str(out, "NextToken"));
		json_object_put(out);
	} while (next != NULL && next[0] != '\0');
	return STEP_DONE;
}

/* An added node ListClusterNodes did not list: still provisioning
 * (counted in *pending) unless DescribeClusterNode says it is gone. */
static enum sw_step_rc
node_gone(struct sw_step *s, const char *id, int *pending)
{
	struct aws_error err;
	json_object *out;
	enum sw_step_rc rc;

	memset(&err, 0, sizeof(err));
	rc = sw_step_aws(s, AWS_SVC_SAGEMAKER, "DescribeClusterNode",
	    sw_jo("ClusterName", sw_js(CLUSTER(s)), "NodeLogicalId", sw_js(id),
		NULL),
	    &out, &err);
	json_object_put(out);
	if (rc == STEP_FAIL && strcmp(err.code, "ResourceNotFound") == 0)
		return sw_step_fail(s, "added node %s no longer exists", id);
	if (rc == STEP_DONE)
		(*pending)++;
	return rc;
}

/*
 * The nodes BatchAddClusterNodes answered (added: {call: [ids]}), to
 * completion: done when every one is Running; a node in Failure fails
 * the step; one not listed is read by DescribeClusterNode, and one that
 * no longer exists fails it too.
 */
static enum sw_step_rc
track_added(struct sw_step *s, json_object *added)
{
	json_object *all;
	int pending = 0, total = 0;
	enum sw_step_rc rc = STEP_DONE;

	TRY(list_all_nodes(s, &all));
	json_object_object_foreach(added, call, ids)
	{
		size_t i;

		(void)call;
		for (i = 0;
		     rc == STEP_DONE && i < json_object_array_length(ids);
		     i++) {
			const char *id = json_object_get_string(
			    json_object_array_get_idx(ids, i));
			const char *st = logical_status(all, id);

			total++;
			if (st == NULL)
				rc = node_gone(s, id, &pending);
			else if (strcmp(st, "Failure") == 0)
				rc = sw_step_fail(s,
				    "added node %s is in "
				    "Failure",
				    id);
			else if (strcmp(st, "Running") != 0)
				pending++;
		}
	}
	json_object_put(all);
	if (rc != STEP_DONE)
		return rc;
	if (pending > 0)
		return sw_step_wait(s, sw_poll_ms(s, 20000),
		    "%d of %d added "
		    "node(s) not Running yet",
		    pending, total);
	return STEP_DONE;
}

static enum sw_step_rc
stage_ig_scale(struct sw_step *s)
{
	const char *group = sw_json_get_str(s->params, "group_name");
	int64_t count = sw_json_get_int(s->params, "count", -1);
	int batch;

	TRY(choose_batch_add(s, group, count, &batch));
	if (batch)
		return batch_add(s, group);
	return update_groups(s, group, count, NULL, NULL);
}

/* clang-format off */
static const struct sw_stage_def ig_update_stages[] = {
	{ "update", stage_ig_scale },
	{ "wait", wait_in_service },
	{ NULL, NULL }
};
/* clang-format on */

const struct sw_pipeline sw_pl_ig_update = { "instance_group.update",
	ig_update_stages };

static enum sw_step_rc
stage_ig_remove(struct sw_step *s)
{
	return update_groups(s, NULL, 0, NULL,
	    sw_ja(sw_js(sw_json_get_str(s->params, "group_name"))));
}

/* clang-format off */
static const struct sw_stage_def ig_delete_stages[] = {
	{ "update", stage_ig_remove },
	{ "wait", wait_in_service },
	{ NULL, NULL }
};
/* clang-format on */

const struct sw_pipeline sw_pl_ig_delete = { "instance_group.delete",
	ig_delete_stages };

/* ---- node.action -------------------------------------------------------- */

/*
 * Resuming after a BatchDeleteClusterNodes call recorded as sent:
 * *acted is 1 when some asked node shows it (gone, or not Running), so
 * the wait stage follows it instead of a second request.
 */
static enum sw_step_rc
nodes_acted_on(struct sw_step *s, int *acted)
{
	json_object *ids = sw_json_get(s->params, "node_ids"), *out, *list;
	size_t i, j;
	int found;

	*acted = 0;
	TRY(sw_step_aws(s, AWS_SVC_SAGEMAKER, "ListClusterNodes",
	    sw_jo("ClusterName", sw_js(CLUSTER(s)), "MaxResults", sw_ji(100),
		NULL),
	    &out, NULL));
	list = sw_json_get(out, "ClusterNodeSummaries");
	for (i = 0; ids && i < json_object_array_length(ids); i++) {
		const char *id =
		    json_object_get_string(json_object_array_get_idx(ids, i));

		found = 0;
		for (j = 0; list && j < json_object_array_length(list); j++) {
			json_object *n = json_object_array_get_idx(list, j);
			const char *st =
			    sw_json_path_str(n, "InstanceStatus.Status");

			if (sw_json_get_str(n, "InstanceId") == NULL ||
			    strcmp(sw_json_get_str(n, "InstanceId"), id) != 0)
				continue;
			found = 1;
			if (st != NULL && strcmp(st, "Running") != 0)
				*acted = 1;
		}
		if (!found)
			*acted = 1;
	}
	json_object_put(out);
	return STEP_DONE;
}

static enum sw_step_rc
stage_node_request(struct sw_step *s)
{
	const char *action = sw_json_get_str(s->params, "action");
	const char *op = strcmp(action, "reboot") == 0
	    ? "BatchRebootClusterNodes"
	    : strcmp(action, "replace") == 0 ? "BatchReplaceClusterNodes"
					     : "BatchDeleteClusterNodes";
	json_object *out, *failed;
	int resumed, acted;

	if (sw_res_get(s, "requested") != NULL)
		return STEP_DONE;
	if (!s->plan && sw_res_get(s, "sent") != NULL) {
		/* A deleted node stays gone; a reboot or replace may be
		 * over by now and leave no trace, so it counts as sent (at
		 * most once: a second reboot is worse than a late one). */
		acted = 1;
		if (strcmp(action, "delete") == 0)
			TRY(nodes_acted_on(s, &acted));
		if (acted) {
			sw_res_set(s, "requested", op);
			return STEP_DONE;
		}
		json_object_object_del(s->res, "sent");
	}
	TRY(sw_step_aws_once(s, "sent", AWS_SVC_SAGEMAKER, op,
	    sw_jo("ClusterName", sw_js(CLUSTER(s)), "NodeIds",
		json_object_get(sw_json_get(s->params, "node_ids")), NULL),
	    &out, &resumed));
	failed = sw_json_get(out, "Failed");
	if (failed != NULL)
		json_object_object_add(
		    s->res, "failed", json_object_get(failed));
	if (sw_json_get(out, "Successful") != NULL)
		json_object_object_add(s->res, "successful",
		    json_object_get(sw_json_get(out, "Successful")));
	json_object_put(out);
	sw_res_set(s, "requested", op);
	if (failed != NULL &&
	    json_object_array_length(failed) ==
		json_object_array_length(sw_json_get(s->params, "node_ids")))
		return sw_step_fail(
		    s, "%s refused every node (see failed)", op);
	return STEP_DONE;
}

static enum sw_step_rc
stage_node_wait(struct sw_step *s)
{
	const char *action = sw_json_get_str(s->params, "action");
	json_object *ok = sw_json_get(
			sw_json_get(s->all, "request"), "successful"),
		    *out, *list;
	size_t i, j;
	int pending = 0;

	if (s->plan)
		return STEP_DONE;
	if (ok == NULL)
		ok = sw_json_get(s->params, "node_ids");
	TRY(sw_step_aws(s, AWS_SVC_SAGEMAKER, "ListClusterNodes",
	    sw_jo("ClusterName", sw_js(CLUSTER(s)), "MaxResults", sw_ji(100),
		NULL),
	    &out, NULL));
	list = sw_json_get(out, "ClusterNodeSummaries");
	for (i = 0; i < json_object_array_length(ok); i++) {
		const char *id =
		    json_object_get_string(json_object_array_get_idx(ok, i));
		int found = 0;

		for (j = 0; list && j < json_object_array_length(list); j++) {
			json_object *n = json_object_array_get_idx(list, j);
			const char *st =
			    sw_json_path_str(n, "InstanceStatus.Status");

			if (strcmp(sw_json_get_str(n, "InstanceId"), id) != 0)
				continue;
			found = 1;
			if (strcmp(action, "delete") != 0 && st != NULL &&
			    strcmp(st, "Running") != 0)
				pending++;
		}
		if (strcmp(action, "delete") == 0 && found)
			pending++;
	}
	json_object_put(out);
	if (pending > 0)
		return sw_step_wait(s, sw_poll_ms(s, 20000),
		    "%d node(s) still "
		    "%s",
		    pending,
		    strcmp(action, "delete") == 0 ? "present" : "recovering");
	return STEP_DONE;
}

/* clang-format off */
static const struct sw_stage_def node_stages[] = {
	{ "request", stage_node_request },
	{ "wait", stage_node_wait },
	{ NULL, NULL }
};
/* clang-format on */

const struct sw_pipeline sw_pl_node_action = { "node.action", node_stages };
