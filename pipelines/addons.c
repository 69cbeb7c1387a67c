/*
 * addons.c: the addon.upgrade pipeline, moving one EKS add-on of a
 * cluster to another version EKS publishes as compatible with the
 * cluster's Kubernetes version.
 *
 *   update   UpdateAddon {addonVersion} (sent at most once)
 *   wait     DescribeAddon until ACTIVE at that version; UPDATE_FAILED
 *            and DEGRADED end it
 *
 * params: {name, addon, version}; the handler (handlers/addons.c) chose
 * version from DescribeAddonVersions for the cluster's version.
 */
#include <string.h>

#include "lib/json.h"
#include "pipelines/pipelines.h"
#include "pipelines/stepkit.h"

#define ADDON(s) sw_json_get_str((s)->params, "addon")
#define VERSION(s) sw_json_get_str((s)->params, "version")

/* The add-on as EKS describes it now: its status and version. */
static enum sw_step_rc
addon_state(struct sw_step *s, const char **status, const char **version)
{
	json_object *out;

	TRY(sw_step_aws(s, AWS_SVC_EKS, "DescribeAddon",
	    sw_jo("clusterName", sw_js(CLUSTER(s)), "addonName",
		sw_js(ADDON(s)), NULL),
	    &out, NULL));
	*status = sw_keep(s, sw_json_path_str(out, "addon.status"));
	*version = sw_keep(s, sw_json_path_str(out, "addon.addonVersion"));
	json_object_put(out);
	return STEP_DONE;
}

static enum sw_step_rc
stage_addon_update(struct sw_step *s)
{
	const char *status = NULL, *version = NULL;
	json_object *out;
	int resumed;

	if (sw_res_get(s, "requested") != NULL)
		return STEP_DONE;
	if (!s->plan) {
		TRY(addon_state(s, &status, &version));
		/* Sent before a crash, or already there: nothing to send. */
		if ((version != NULL && strcmp(version, VERSION(s)) == 0) ||
		    (sw_res_get(s, "update_sent") != NULL && status != NULL &&
			strcmp(status, "UPDATING") == 0)) {
			sw_res_set(s, "requested", VERSION(s));
			return STEP_DONE;
		}
		json_object_object_del(s->res, "update_sent");
		if (status != NULL && strcmp(status, "ACTIVE") != 0 &&
		    strcmp(status, "DEGRADED") != 0 &&
		    strcmp(status, "UPDATE_FAILED") != 0)
			return sw_step_wait(s, sw_poll_ms(s, 10000),
			    "add-on %s is %s; waiting to update it", ADDON(s),
			    status);
	}
	TRY(sw_step_aws_once(s, "update_sent", AWS_SVC_EKS, "UpdateAddon",
	    sw_jo("clusterName", sw_js(CLUSTER(s)), "addonName",
		sw_js(ADDON(s)), "addonVersion", sw_js(VERSION(s)),
		"resolveConflicts", sw_js("PRESERVE"), NULL),
	    &out, &resumed));
	json_object_put(out);
	sw_res_set(s, "requested", VERSION(s));
	sw_plan_wait(s, SW_WAIT_ADDON);
	return STEP_DONE;
}

static enum sw_step_rc
stage_addon_wait(struct sw_step *s)
{
	const char *status, *version;

	if (s->plan)
		return STEP_DONE;
	TRY(addon_state(s, &status, &version));
	if (status != NULL &&
	    (strcmp(status, "UPDATE_FAILED") == 0 ||
		strcmp(status, "DEGRADED") == 0))
		return sw_step_fail(s, "add-on %s is %s", ADDON(s), status);
	if (status == NULL || strcmp(status, "ACTIVE") != 0 ||
	    version == NULL || strcmp(version, VERSION(s)) != 0)
		return sw_step_wait(s, sw_poll_ms(s, 10000),
		    "add-on %s is %s "
		    "at %s",
		    ADDON(s), status ? status : "unknown",
		    version ? version : "no version");
	sw_res_set(s, "version", version);
	return STEP_DONE;
}

/* clang-format off */
static const struct sw_stage_def addon_upgrade_stages[] = {
	{ "update", stage_addon_update },
	{ "wait", stage_addon_wait },
	{ NULL, NULL }
};
/* clang-format on */

const struct sw_pipeline sw_pl_addon_upgrade = { "addon.upgrade",
	addon_upgrade_stages };
