/*
 * healthcheck.c: node.health_check, on-demand deep health checks of
 * chosen HyperPod nodes.
 *
 *   start    StartClusterHealthCheck with the nodes grouped by their
 *            instance group and the checks asked for
 *   follow   ListClusterNodes until no chosen node is still
 *            DeepHealthCheckInProgress; each node's outcome (passed:
 *            back to Running; failed: Failure, or already being
 *            replaced by automatic node recovery) is recorded in the
 *            stage's resources under "outcomes"
 *
 * The handler (handlers/nodes.c) checked that every node exists and is
 * Running and recorded its instance group in the parameters ("nodes":
 * [{node_id, instance_group}]).
 */
#include <stdio.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/json.h"
#include "pipelines/pipelines.h"
#include "pipelines/stepkit.h"

/* The DeepHealthCheckConfigurations document: one row per group. */
static json_object *
check_configs(json_object *nodes, json_object *checks)
{
	json_object *rows = json_object_new_array();
	size_t i, j;

	for (i = 0; i < json_object_array_length(nodes); i++) {
		json_object *n = json_object_array_get_idx(nodes, i);
		const char *g = sw_json_get_str(n, "instance_group");
		json_object *row = NULL;

		for (j = 0; j < json_object_array_length(rows); j++)
			if (strcmp(sw_json_get_str(
				       json_object_array_get_idx(rows, j),
				       "InstanceGroupName"),
				g) == 0)
				row = json_object_array_get_idx(rows, j);
		if (row == NULL) {
			row = sw_jo("InstanceGroupName", sw_js(g),
			    "InstanceIds", json_object_new_array(),
			    "DeepHealthChecks", json_object_get(checks), NULL);
			json_object_array_add(rows, row);
		}
		json_object_array_add(sw_json_get(row, "InstanceIds"),
		    sw_js(sw_json_get_str(n, "node_id")));
	}
	return rows;
}

static enum sw_step_rc
stage_start(struct sw_step *s)
{
	json_object *out;

	if (sw_res_get(s, "started") != NULL)
		return STEP_DONE;
	TRY(sw_step_aws(s, AWS_SVC_SAGEMAKER, "StartClusterHealthCheck",
	    sw_jo("ClusterName", sw_js(CLUSTER(s)),
		"DeepHealthCheckConfigurations",
		check_configs(sw_json_get(s->params, "nodes"),
		    sw_json_get(s->params, "checks")),
		NULL),
	    &out, NULL));
	json_object_put(out);
	sw_res_set(s, "started", "StartClusterHealthCheck");
	return STEP_DONE;
}

/* The outcome of one node from its ListClusterNodes row (NULL: gone). */
static json_object *
outcome(json_object *row)
{
	const char *st =
	    row ? sw_json_path_str(row, "InstanceStatus.Status") : NULL;
	const char *msg =
	    row ? sw_json_path_str(row, "InstanceStatus.Message") : NULL;
	const char *result;

	if (st == NULL)
		result = "failed";
	else if (strcmp(st, "DeepHealthCheckInProgress") == 0)
		result = "in_progress";
	else if (strcmp(st, "Running") == 0)
		result = "passed";
	else
		result = "failed";
	return sw_jo("outcome", sw_js(result), "status",
	    sw_js(st ? st : "NotFound"), "message",
	    sw_js(msg && *msg ? msg
		    : row
		    ? NULL
		    : "the node is gone: automatic node recovery replaced it"),
	    NULL);
}

/*
 * A failed node's reason when its row no longer says it: automatic
 * node recovery may already be replacing it.  The newest Error event
 * of the node is the health check's verdict.
 */
static enum sw_step_rc
failure_reason(struct sw_step *s, const char *id, json_object *o)
{
	json_object *out, *evs;
	size_t i;

	TRY(sw_step_aws(s, AWS_SVC_SAGEMAKER, "ListClusterEvents",
	    sw_jo("ClusterName", sw_js(CLUSTER(s)), "NodeId", sw_js(id),
		"SortOrder", sw_js("Descending"), "MaxResults", sw_ji(20),
		NULL),
	    &out, NULL));
	evs = sw_json_get(out, "Events");
	for (i = 0; evs && i < json_object_array_length(evs); i++) {
		json_object *e = json_object_array_get_idx(evs, i);

		if (strcmp(sw_json_get_str(e, "EventLevel") ?: "", "Error"))
			continue;
		json_object_object_add(
		    o, "message", sw_js(sw_json_get_str(e, "Description")));
		break;
	}
	json_object_put(out);
	return STEP_DONE;
}

static enum sw_step_rc
stage_follow(struct sw_step *s)
{
	json_object *nodes = sw_json_get(s->params, "nodes");
	json_object *out, *list, *outcomes;
	int pending = 0, failed = 0;
	char nfailed[16];
	size_t i, j;

	if (s->plan)
		return STEP_DONE;
	TRY(sw_step_aws(s, AWS_SVC_SAGEMAKER, "ListClusterNodes",
	    sw_jo("ClusterName", sw_js(CLUSTER(s)), "MaxResults", sw_ji(100),
		NULL),
	    &out, NULL));
	list = sw_json_get(out, "ClusterNodeSummaries");
	outcomes = json_object_new_object();
	for (i = 0; i < json_object_array_length(nodes); i++) {
		const char *id = sw_json_get_str(
		    json_object_array_get_idx(nodes, i), "node_id");
		json_object *row = NULL, *o;

		for (j = 0; list && j < json_object_array_length(list); j++)
			if (strcmp(sw_json_get_str(
				       json_object_array_get_idx(list, j),
				       "InstanceId")
				    ?: "",
				id) == 0)
				row = json_object_array_get_idx(list, j);
		o = outcome(row);
		if (strcmp(sw_json_get_str(o, "outcome"), "in_progress") == 0)
			pending++;
		else if (strcmp(sw_json_get_str(o, "outcome"), "failed") == 0)
			failed++;
		json_object_object_add(outcomes, id, o);
		if (strcmp(sw_json_get_str(o, "outcome"), "failed") == 0 &&
		    (row == NULL ||
			strcmp(sw_json_get_str(o, "status"), "Failure") != 0)) {
			enum sw_step_rc rc = failure_reason(s, id, o);

			if (rc != STEP_DONE) {
				json_object_put(out);
				json_object_put(outcomes);
				return rc;
			}
		}
	}
	json_object_put(out);
	json_object_object_add(s->res, "outcomes", outcomes);
	if (pending > 0)
		return sw_step_wait(s, sw_poll_ms(s, 30000),
		    "%d node(s) still "
		    "DeepHealthCheckInProgress",
		    pending);
	if (sw_fmt(nfailed, sizeof(nfailed), "%d", failed) != SW_OK)
		return sw_step_fail(s, "failed node count does not fit");
	sw_res_set(s, "failed_nodes", nfailed);
	return STEP_DONE;
}

/* clang-format off */
static const struct sw_stage_def health_stages[] = {
	{ "start", stage_start },
	{ "follow", stage_follow },
	{ NULL, NULL }
};
/* clang-format on */

const struct sw_pipeline sw_pl_node_health_check = { "node.health_check",
	health_stages };
