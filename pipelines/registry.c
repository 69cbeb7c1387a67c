/*
 * registry.c: every pipeline the poller can run, found by its kind
 * (the operation's kind in the state store).  A new pipeline is one
 * line here and one declaration in pipelines.h.
 */
#include <string.h>

#include "pipelines/pipeline.h"
#include "pipelines/pipelines.h"

static const struct sw_pipeline *const pipelines[] = { &sw_pl_cluster_create,
	&sw_pl_cluster_delete, &sw_pl_cluster_release, &sw_pl_ig_add,
	&sw_pl_ig_update, &sw_pl_ig_delete, &sw_pl_node_action,
	&sw_pl_node_health_check, &sw_pl_node_volume_attach,
	&sw_pl_node_volume_detach, &sw_pl_mlflow_app_create,
	&sw_pl_mlflow_app_delete,
	/* PIPELINES: features */
	&sw_pl_feature_set, &sw_pl_addon_upgrade, &sw_pl_team_access_set,
	/* PIPELINES: storage */
	&sw_pl_storage_add, &sw_pl_software_update,
	/* PIPELINES: training plans */
	&sw_pl_plan_reserve, &sw_pl_plan_extend,
	/* PIPELINES: checkpoints */
	&sw_pl_checkpoint_retain, NULL };

const struct sw_pipeline *
sw_pipeline_find(const char *kind)
{
	int i;

	for (i = 0; pipelines[i] != NULL; i++)
		if (strcmp(pipelines[i]->kind, kind) == 0)
			return pipelines[i];
	return NULL;
}
