/*
 * patching.c: how Slipway's patching fields become HyperPod's.  An
 * instance group takes scheduled_update (a cron schedule with a rolling
 * deployment: ScheduledUpdateConfig), auto_patch (patch when nodes are
 * idle: AutoPatchConfig) and image_release_version (the AMI release
 * the group runs); cluster_software_update takes image_release_version
 * and rolling, the same rolling deployment as a DeploymentConfig.
 *
 *   rolling / deployment   {batch_percent | batch_count,
 *                           rollback_batch_percent | rollback_batch_count,
 *                           wait_seconds,
 *                           rollback_alarms: [CloudWatch alarm names]}
 *
 * The other way, sw_hp_patch_view turns a group's ScheduledUpdateConfig
 * and AutoPatchConfig, as DescribeCluster reports them, back into these
 * fields for instance_group_list.
 */
#include <string.h>

#include "lib/json.h"
#include "pipelines/pipelines.h"

/* A CapacitySizeConfig from count_key or percent_key of rolling (the
 * field table lets only one of them through), or NULL when neither is
 * given and dflt_percent < 0. */
static json_object *
capacity_size(json_object *rolling, const char *count_key,
    const char *percent_key, int64_t dflt_percent)
{
	if (sw_json_get(rolling, count_key) != NULL)
		return sw_jo("Type", sw_js("INSTANCE_COUNT"), "Value",
		    sw_ji(sw_json_get_int(rolling, count_key, 1)), NULL);
	if (sw_json_get(rolling, percent_key) == NULL && dflt_percent < 0)
		return NULL;
	return sw_jo("Type", sw_js("CAPACITY_PERCENTAGE"), "Value",
	    sw_ji(sw_json_get_int(rolling, percent_key, dflt_percent)), NULL);
}

json_object *
sw_hp_deployment_config(json_object *rolling)
{
	json_object *batch, *alarms = NULL, *names;
	size_t i;

	if (rolling == NULL)
		return NULL;
	batch = capacity_size(rolling, "batch_count", "batch_percent", 20);
	names = sw_json_get(rolling, "rollback_alarms");
	if (names != NULL && json_object_array_length(names) > 0) {
		alarms = json_object_new_array();
		for (i = 0; i < json_object_array_length(names); i++)
			json_object_array_add(alarms,
			    sw_jo("AlarmName",
				json_object_get(
				    json_object_array_get_idx(names, i)),
				NULL));
	}
	return sw_jo("RollingUpdatePolicy",
	    sw_jo("MaximumBatchSize", batch, "RollbackMaximumBatchSize",
		capacity_size(rolling, "rollback_batch_count",
		    "rollback_batch_percent", -1),
		NULL),
	    "WaitIntervalInSeconds",
	    json_object_get(sw_json_get(rolling, "wait_seconds")),
	    "AutoRollbackConfiguration", alarms, NULL);
}

void
sw_hp_patch_members(json_object *src, json_object *group)
{
	json_object *su = sw_json_get(src, "scheduled_update");
	json_object *ap = sw_json_get(src, "auto_patch");
	const char *irv = sw_json_get_str(src, "image_release_version");

	if (group == NULL)
		return;
	if (su != NULL)
		json_object_object_add(group, "ScheduledUpdateConfig",
		    sw_jo("ScheduleExpression",
			sw_js(sw_json_get_str(su, "cron")), "DeploymentConfig",
			sw_hp_deployment_config(su), NULL));
	if (ap != NULL)
		json_object_object_add(group, "AutoPatchConfig",
		    sw_jo("PatchingStrategy",
			sw_js(sw_json_get_str(ap, "strategy")
				? sw_json_get_str(ap, "strategy")
				: "WhenIdle"),
			"DeploymentConfig", sw_hp_deployment_config(ap), NULL));
	if (irv != NULL)
		json_object_object_add(
		    group, "ImageReleaseVersion", sw_js(irv));
}

/* Slipway's rolling fields from a HyperPod DeploymentConfig (borrowed)
 * into view (borrowed). */
static void
rolling_view(json_object *dc, json_object *view)
{
	json_object *alarms = sw_json_get(dc, "AutoRollbackConfiguration"),
		    *names;
	const char *keys[2][3] = {
		{ "RollingUpdatePolicy.MaximumBatchSize", "batch_count",
		    "batch_percent" },
		{ "RollingUpdatePolicy.RollbackMaximumBatchSize",
		    "rollback_batch_count", "rollback_batch_percent" },
	};
	size_t i;

	for (i = 0; i < 2; i++) {
		json_object *size = sw_json_path(dc, keys[i][0]);
		const char *type = sw_json_get_str(size, "Type");

		if (type != NULL)
			sw_json_add_int(view,
			    strcmp(type, "INSTANCE_COUNT") == 0 ? keys[i][1]
								: keys[i][2],
			    sw_json_get_int(size, "Value", 0));
	}
	if (sw_json_get(dc, "WaitIntervalInSeconds") != NULL)
		sw_json_add_int(view, "wait_seconds",
		    sw_json_get_int(dc, "WaitIntervalInSeconds", 0));
	if (alarms == NULL || json_object_array_length(alarms) == 0)
		return;
	names = json_object_new_array();
	for (i = 0; i < json_object_array_length(alarms); i++)
		json_object_array_add(names,
		    sw_js(sw_json_get_str(
			json_object_array_get_idx(alarms, i), "AlarmName")));
	json_object_object_add(view, "rollback_alarms", names);
}

json_object *
sw_hp_patch_view(json_object *group, const char *which)
{
	json_object *cfg, *view;

	if (strcmp(which, "scheduled_update") == 0) {
		if ((cfg = sw_json_get(group, "ScheduledUpdateConfig")) == NULL)
			return NULL;
		view = sw_jo("cron",
		    sw_js(sw_json_get_str(cfg, "ScheduleExpression")), NULL);
	} else {
		if ((cfg = sw_json_get(group, "AutoPatchConfig")) == NULL)
			return NULL;
		view = sw_jo("strategy",
		    sw_js(sw_json_get_str(cfg, "PatchingStrategy")), NULL);
	}
	rolling_view(sw_json_get(cfg, "DeploymentConfig"), view);
	return view;
}
