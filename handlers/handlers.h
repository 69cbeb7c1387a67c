/*
 * handlers.h: every REST handler, one file per resource family.  A
 * handler gets a request whose route, credentials and input are already
 * checked (api/router.c) and reads its validated input from r->args.
 * It answers with sw_req_reply() or fails with sw_req_fail().
 */
#ifndef SW_HANDLERS_H
#define SW_HANDLERS_H

#include "cloud/aws.h"
#include "cloud/kube.h"
#include "api/req.h"

/* handlers/system.c */
sw_err h_health(struct sw_req *);
sw_err h_version(struct sw_req *);
sw_err h_openapi(struct sw_req *);
sw_err h_login(struct sw_req *);
sw_err h_logout(struct sw_req *);
sw_err h_whoami(struct sw_req *);
sw_err h_team_list(struct sw_req *);
sw_err h_protected_resource(struct sw_req *);
sw_err h_login_options(struct sw_req *);
sw_err h_login_provider(struct sw_req *);
sw_err h_login_provider_callback(struct sw_req *);
sw_err h_login_device(struct sw_req *);
sw_err h_login_device_token(struct sw_req *);
sw_err h_metrics(struct sw_req *);
sw_err h_token_list(struct sw_req *);
sw_err h_token_create(struct sw_req *);
sw_err h_token_revoke(struct sw_req *);

/* handlers/operations.c */
sw_err h_op_list(struct sw_req *);
sw_err h_op_get(struct sw_req *);
sw_err h_op_wait(struct sw_req *);
sw_err h_op_retry(struct sw_req *);
sw_err h_op_cancel(struct sw_req *);

/* handlers/plans.c */
sw_err h_training_plan_list(struct sw_req *);
sw_err h_training_plan_search(struct sw_req *);
sw_err h_training_plan_get(struct sw_req *);
sw_err h_training_plan_reserve(struct sw_req *);
sw_err h_training_plan_extend(struct sw_req *);
/* The groups [{cluster, group, count}] of the clusters Slipway owns
 * that run on the training plan arn.  New reference. */
json_object *h_plan_groups(struct sw_req *, const char *arn);
/* {name, status, end_time, remaining_seconds} of the plan arn (a new
 * reference), or NULL when it cannot be read. */
json_object *h_plan_brief(struct sw_req *, const char *arn);
/* [{group, training_plan}] of the groups of cluster that run on a plan
 * and host some of pods (borrowed); a new array, empty when none. */
json_object *h_plan_of_pods(
    struct sw_req *, const char *cluster, json_object *pods);

/* handlers/clusters.c */
sw_err h_region_list(struct sw_req *);
sw_err h_az_list(struct sw_req *);
sw_err h_instance_type_list(struct sw_req *);
sw_err h_cluster_list(struct sw_req *);
sw_err h_cluster_get(struct sw_req *);
sw_err h_cluster_create(struct sw_req *);
sw_err h_cluster_delete(struct sw_req *);
sw_err h_cluster_import(struct sw_req *);
/*
 * Check a group's training plan against the live reservation: status,
 * instance type, AZ (filled in from the plan when the group has none)
 * and count.  Problems go to r->ferrs under field.
 */
void h_check_training_plan(
    struct sw_req *, json_object *group, const char *field);

/* handlers/capacity.c: instances asked for, checked before any change. */
struct h_capacity_ask {
	const char *field; /* in a refusal: instance_groups[1].count */
	const char *type; /* ml.p5.48xlarge */
	int64_t count; /* instances of it the group will have */
	const char *plan; /* training plan ARN: held to the plan */
};
/*
 * The n asks (borrowed) against the service quota of each type net of
 * what the account's HyperPod clusters run; the group skip_group of
 * skip_cluster (both may be NULL) is left out of the use, as an ask
 * replaces it.  SW_OK, or 422 naming the field with quota, use and ask.
 */
sw_err h_check_quota(struct sw_req *, const struct h_capacity_ask *asks,
    size_t n, const char *skip_cluster, const char *skip_group);
/* Is type offered in az?  SW_OK, or 422 naming field. */
sw_err h_check_offered(
    struct sw_req *, const char *type, const char *az, const char *field);

/* handlers/cost.c */
/*
 * The hourly cost a planned operation of kind (params borrowed) adds to
 * cluster, priced from the AWS Price List API: a new object, or NULL
 * for a kind that changes no instance count.
 */
json_object *h_plan_cost(struct sw_req *, const char *kind, json_object *params,
    const char *cluster);
/* What the groups of a HyperPod description (borrowed) cost now, in
 * the same shape (cluster_per_hour); NULL without one. */
json_object *h_cluster_cost(struct sw_req *, json_object *hp);
/*
 * What an endpoint of replicas x gpus GPUs (on itype, or NULL: the one
 * type of the cluster it fits) costs per hour and day: its GPUs' share
 * of their nodes' price, or with gpus 0 a whole instance per replica;
 * unknown (null, with why) when that type or its price is not known.
 * A new object.
 */
json_object *h_endpoint_cost(struct sw_req *, const char *cluster,
    const char *itype, int64_t replicas, int64_t gpus);
/* Dollars from millionths, as a JSON number written exactly. */
json_object *h_usd(int64_t micro_usd);

/* handlers/ledger.c */
sw_err h_cost_ledger(struct sw_req *);

/* handlers/budgets.c */
sw_err h_budget_list(struct sw_req *);
sw_err h_budget_get(struct sw_req *);
/* The fleet document (handlers/fleet.c). */
sw_err h_fleet_schema(struct sw_req *);
sw_err h_fleet_plan(struct sw_req *);
sw_err h_fleet_apply(struct sw_req *);
sw_err h_fleet_export(struct sw_req *);
sw_err h_fleet_drift(struct sw_req *);
sw_err h_fleet_drift_recorded(struct sw_req *);
sw_err h_budget_set(struct sw_req *);
sw_err h_budget_delete(struct sw_req *);

/* handlers/notify.c */
sw_err h_subscription_create(struct sw_req *);
sw_err h_subscription_list(struct sw_req *);
sw_err h_subscription_delete(struct sw_req *);
sw_err h_delivery_list(struct sw_req *);

/* handlers/checkpoints.c */
sw_err h_checkpoint_list(struct sw_req *);
sw_err h_checkpoint_resume(struct sw_req *);
sw_err h_checkpoint_retain(struct sw_req *);

/* handlers/addons.c */
sw_err h_addon_list(struct sw_req *);
sw_err h_addon_upgrade(struct sw_req *);
/*
 * The EKS add-ons of cluster, each with its installed version set
 * against the versions EKS publishes for Kubernetes kver: into *items
 * (new) [{addon, status, installed_version, compatible, default_version,
 * newest_version, compatible_versions, upgrade_available}].  SW_OK, or
 * the error with the problem filled.
 */
sw_err h_addon_versions(struct sw_req *, const char *cluster, const char *kver,
    json_object **items);

/* Is add-on addon on EKS cluster at version min or later?  1 yes (or
 * not an EKS add-on there), 0 older (its version into have), -1 with
 * the problem filled. */
int h_addon_at_least(struct sw_req *, const char *cluster, const char *addon,
    const char *min, char *have, size_t sz);

/* handlers/access.c: EKS access entries following the teams */
sw_err h_team_access_get(struct sw_req *);
sw_err h_team_access_set(struct sw_req *);

/* handlers/nodes.c */
sw_err h_instance_group_list(struct sw_req *);
sw_err h_instance_group_add(struct sw_req *);
sw_err h_instance_group_scale(struct sw_req *);
sw_err h_instance_group_delete(struct sw_req *);
sw_err h_node_list(struct sw_req *);
sw_err h_node_reboot(struct sw_req *);
sw_err h_node_replace(struct sw_req *);
sw_err h_node_delete(struct sw_req *);
sw_err h_node_get(struct sw_req *);
sw_err h_node_health_check(struct sw_req *);

/* handlers/governance.c: compute quotas, scheduler config, events */
sw_err h_compute_quota_list(struct sw_req *);
/* handlers/teams.c: each team's quota, use, borrowing and demand */
sw_err h_team_usage(struct sw_req *);
sw_err h_compute_quota_create(struct sw_req *);
sw_err h_compute_quota_get(struct sw_req *);
sw_err h_compute_quota_update(struct sw_req *);
sw_err h_compute_quota_delete(struct sw_req *);
sw_err h_scheduler_config_get(struct sw_req *);
sw_err h_scheduler_config_set(struct sw_req *);
sw_err h_cluster_events(struct sw_req *);
/*
 * The Kueue labels of a workload: the request's queue (a compute
 * quota's hyperpod-ns-<team>-localqueue, with ns hyperpod-ns-<team>)
 * and priority (a priority class of the scheduler config, labelled
 * <class>-priority), checked against the cluster, are added to the
 * manifest's metadata.labels (manifest borrowed; given a list of
 * manifests, its first Deployment).  SW_OK and nothing
 * done when neither is asked; otherwise the problem is filled.
 */
sw_err h_kueue_labels(struct sw_req *, const char *cluster, const char *ns,
    json_object *manifest);

/* handlers/storage.c */
sw_err h_storage_list(struct sw_req *);
sw_err h_storage_add(struct sw_req *);
sw_err h_compute_subnet_list(struct sw_req *);
sw_err h_cluster_software_update(struct sw_req *);
sw_err h_diagnostics_cluster(struct sw_req *);

/* handlers/training.c, jobs.c, logs.c, models.c and inference*.c (what
 * they share: handlers/workloads.h) */
sw_err h_training_job_submit(struct sw_req *);
sw_err h_training_job_list(struct sw_req *);
sw_err h_training_job_get(struct sw_req *);
sw_err h_training_job_logs(struct sw_req *);
sw_err h_inference_logs(struct sw_req *);
sw_err h_training_job_delete(struct sw_req *);
sw_err h_model_download(struct sw_req *);
sw_err h_inference_deploy(struct sw_req *);
/* handlers/space_templates.c */
sw_err h_space_template_list(struct sw_req *);
sw_err h_space_template_set(struct sw_req *);
sw_err h_space_template_delete(struct sw_req *);
/* handlers/spaces.c */
sw_err h_space_create(struct sw_req *);
sw_err h_space_list(struct sw_req *);
sw_err h_space_get(struct sw_req *);
sw_err h_space_stop(struct sw_req *);
sw_err h_space_start(struct sw_req *);
sw_err h_space_delete(struct sw_req *);
sw_err h_inference_list(struct sw_req *);
sw_err h_inference_get(struct sw_req *);
sw_err h_inference_delete(struct sw_req *);
sw_err h_inference_scale(struct sw_req *);
sw_err h_inference_invoke(struct sw_req *);
sw_err h_inference_pool_create(struct sw_req *);
sw_err h_inference_pool_list(struct sw_req *);
sw_err h_inference_pool_delete(struct sw_req *);
sw_err h_inference_pool_assign(struct sw_req *);
sw_err h_inference_pool_release(struct sw_req *);
/* handlers/node_volumes.c */
sw_err h_node_volume_attach(struct sw_req *);
sw_err h_node_volume_detach(struct sw_req *);
/* handlers/mlflow.c */
sw_err h_mlflow_app_list(struct sw_req *);
sw_err h_mlflow_app_create(struct sw_req *);
sw_err h_mlflow_app_get(struct sw_req *);
sw_err h_mlflow_app_url(struct sw_req *);
sw_err h_mlflow_app_delete(struct sw_req *);
/*
 * The ARN of MLflow App name, which a job logs to, into arn: the app
 * must exist (404) and be Created or Updated (409), both naming the
 * field mlflow_app.  Fills r's problem on failure.
 */
sw_err h_mlflow_app_arn(
    struct sw_req *, const char *name, char *arn, size_t arnsz);

/* The AWS client of this worker process (handlers/clusters.c), set up
 * from the configuration on first use; NULL if that fails. */
struct aws_ctx *h_aws(struct sw_req *);
/* The context for the AWS calls a request makes for its caller: with a
 * person role configured, a session acting for the caller (SourceIdentity
 * = the caller, cloud/aws_person.h), else h_aws.  NULL with err filled
 * and *e set (SW_EUNAVAIL without a client or when STS is unreachable,
 * SW_EFORBIDDEN when it refused the caller). */
struct aws_ctx *h_aws_for(struct sw_req *, struct aws_error *err, sw_err *e);

/* aws_call() for a handler, with h_aws_for's context: in is stolen;
 * SW_EUNAVAIL without a client.  *out is a new reference on success. */
sw_err h_call(struct sw_req *, enum aws_service, const char *op,
    json_object *in, json_object **out, struct aws_error *);
/* How long a fact of a region is kept: its zones, the instance types it
 * offers and what each type is change on the scale of months. */
#define H_FACT_KEEP_MS (15 * 60 * 1000)

/*
 * h_call of a read whose answer is a fact of the account's region (its
 * zones, the instance types it offers, what each type is): kept in the
 * database for 15 minutes and shared by every worker and replica
 * (sw_fact_get), so a create's pre-flight and each list of zones or
 * types do not ask EC2 again for what cannot have changed.  Kept per
 * account (zone names are the account's own) and region.
 */
sw_err h_call_fact(struct sw_req *, enum aws_service, const char *op,
    json_object *in, json_object **out, struct aws_error *);
/* The same, kept keep_ms; fresh: read AWS whatever is kept, and keep
 * its answer. */
sw_err h_call_kept(struct sw_req *, enum aws_service, const char *op,
    json_object *in, json_object **out, struct aws_error *, int64_t keep_ms,
    int fresh);

/*
 * The HyperPod cluster name (aws_hp_describe with this worker's client):
 * SW_OK with *out new; SW_ENOTFOUND when SageMaker has none; otherwise
 * as h_call.  r's problem is left alone: h_hp_need fills it.
 */
sw_err h_hp_describe(
    struct sw_req *, const char *name, json_object **out, struct aws_error *);
/* h_hp_describe for a cluster the request needs: on failure r's
 * problem is filled (404 "no HyperPod cluster", else h_aws_fail). */
sw_err h_hp_need(struct sw_req *, const char *name, json_object **out);

/*
 * The one answer to a failed AWS call of a handler (e from aws_call or
 * h_call, where aws_error_sw decided what it means): 404 for not found,
 * 429/503/504 with Retry-After while AWS is throttling, unavailable or
 * slow, 409 for a conflict, 502 for the rest (an input AWS refused is
 * ours: the caller's passed validation).  Fills r's problem; returns
 * its sw_err.
 */
sw_err h_aws_fail(struct sw_req *, enum aws_service, const char *op, sw_err e,
    const struct aws_error *);

/*
 * Start an operation of a pipeline kind with r->args as its parameters
 * (or, with dry_run, answer with its plan).  Answers 202 via
 * h_accepted.
 */
/* A Kubernetes client for cluster; on failure the problem is filled
 * (404 no such cluster, 409 not ready yet, 5xx AWS).  kb is always safe
 * to sw_kube_close(). */
sw_err h_kube(struct sw_req *, const char *cluster, struct sw_kube *kb);
/*
 * handlers/ownership.c: whether Slipway may change cluster, the one
 * check of every operation that does.  SW_OK when Slipway created or
 * imported it: *rec is its record, and r->args gets cluster_id and
 * cluster_origin.  Otherwise the problem is filled: 409 naming what AWS
 * has that is not Slipway's and how to import it, 404 when AWS has no
 * cluster of that name.
 */
struct sw_cluster_rec;
sw_err h_owned(
    struct sw_req *, const char *cluster, struct sw_cluster_rec *rec);
/* 409 naming the operation that holds the cluster (SW_EBUSY). */
sw_err h_busy(struct sw_req *, const char *holder);
sw_err h_start(
    struct sw_req *, const char *kind, const char *target, const char *cluster);
/* h_start with params (stolen) as the operation's input in place of the
 * request's.  target and cluster may point into the request's input,
 * which is kept alive until the operation is recorded. */
sw_err h_start_with(struct sw_req *, json_object *params, const char *kind,
    const char *target, const char *cluster);

/*
 * Common answer of every operation-starting handler: 202 with the
 * operation id, the status tool to poll and the poll interval.
 */
sw_err h_accepted(struct sw_req *, const char *op_id, int existed);

/* handlers/features.c */
sw_err h_feature_list(struct sw_req *);
sw_err h_feature_set(struct sw_req *);

#endif
