/*
 * patching.c: how Slipway's patching fields become HyperPod's.  An
 * instance group takes scheduled_update (a cron schedule with a rolling
 * deployment: ScheduledUpdateConfig), auto_patch (patch when nodes are
 * idle: AutoPatchConfig) and image_release_version (the AMI release
 * the group runs); cluster_software_update takes image_release_version
 * and rolling, the same rolling deployment as a DeploymentConfig.
 *
 *   rolling / deployment   {batch_percent | batch_count, wait_seconds,
 *                           rollback_alarms: [CloudWatch alarm names]}
 */
#include <string.h>

#include "lib/json.h"
#include "pipelines/pipelines.h"

json_object *
sw_hp_deployment_config(json_object *rolling)
{
	json_object *batch, *alarms = NULL, *names;
	size_t i;

	if (rolling == NULL)
		return NULL;
	if (sw_json_get(rolling, "batch_count") != NULL)
		batch = sw_jo("Type", sw_js("INSTANCE_COUNT"), "Value",
		    sw_ji(sw_json_get_int(rolling, "batch_count", 1)), NULL);
	else
		batch = sw_jo("Type", sw_js("CAPACITY_PERCENTAGE"), "Value",
		    sw_ji(sw_json_get_int(rolling, "batch_percent", 20)), NULL);
	names = sw_json_get(rolling, "rollback_alarms");
	if (names != NULL && json_object_array_length(names) > 0) {
		alarms = json_object_new_array();
		for (i = 0; i < json_object_array_length(names); i++)
			json_object_array_add(alarms, sw_jo("AlarmName",
			    json_object_get(json_object_array_get_idx(names,
			    i)), NULL));
	}
	return sw_jo("RollingUpdatePolicy", sw_jo("MaximumBatchSize", batch,
	    NULL), "WaitIntervalInSeconds", json_object_get(sw_json_get(
	    rolling, "wait_seconds")), "AutoRollbackConfiguration", alarms,
	    NULL);
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
		json_object_object_add(group, "ScheduledUpdateConfig", sw_jo(
		    "ScheduleExpression", sw_js(sw_json_get_str(su, "cron")),
		    "DeploymentConfig", sw_hp_deployment_config(su), NULL));
	if (ap != NULL)
		json_object_object_add(group, "AutoPatchConfig", sw_jo(
		    "PatchingStrategy", sw_js(sw_json_get_str(ap, "strategy") ?
		    sw_json_get_str(ap, "strategy") : "WhenIdle"),
		    "DeploymentConfig", sw_hp_deployment_config(ap), NULL));
	if (irv != NULL)
		json_object_object_add(group, "ImageReleaseVersion",
		    sw_js(irv));
}
