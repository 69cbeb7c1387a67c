/*
 * mlflow.c: mlflow_app.create and mlflow_app.delete, a SageMaker
 * managed MLflow App serving a cluster's jobs.
 *
 * create:
 *   role     the cluster's role slipway-<cluster>-mlflow, which
 *            SageMaker assumes, with the inline policy mlflow-<app>
 *            reading and writing the artifact store's bucket
 *   create   CreateMlflowApp (sent at most once; after a restart the
 *            app is found by its name), tagged with the cluster
 *   wait     DescribeMlflowApp until Created; CreateFailed ends it
 * delete:
 *   delete   DeleteMlflowApp (an app already gone is fine)
 *   wait     DescribeMlflowApp until Deleted or gone
 *   policy   the app's inline policy off the cluster's role (the role
 *            itself goes with the cluster)
 *
 * params: {name (the cluster), app, artifact_store_uri, bucket,
 * model_registration, weekly_maintenance} for create, {name, app, arn}
 * for delete; the handler (handlers/mlflow.c) checked that the name is
 * free, or that the app is one Slipway made.
 */
#include <string.h>

#include "lib/buf.h"
#include "lib/json.h"
#include "pipelines/pipelines.h"
#include "pipelines/stepkit.h"

#define APP(s) sw_json_get_str((s)->params, "app")

/* The inline policy's name for the app: mlflow-<app>. */
static enum sw_step_rc
policy_name(struct sw_step *s, char *buf, size_t bufsz)
{
	if (sw_fmt(buf, bufsz, "mlflow-%s", APP(s)) != SW_OK)
		return sw_step_fail(s, "policy name for %s too long", APP(s));
	return STEP_DONE;
}

/* Read and write the artifact store's bucket (new). */
static json_object *
store_policy(const char *bucket)
{
	return sw_jo("Version", sw_js("2012-10-17"), "Statement",
	    sw_ja(sw_jo("Effect", sw_js("Allow"), "Action",
		sw_ja(sw_js("s3:GetObject"), sw_js("s3:PutObject"),
		    sw_js("s3:DeleteObject"), sw_js("s3:ListBucket"),
		    sw_js("s3:GetBucketLocation")),
		"Resource",
		sw_ja(sw_jsf("arn:aws:s3:::%s", bucket),
		    sw_jsf("arn:aws:s3:::%s/*", bucket)),
		NULL)),
	    NULL);
}

static enum sw_step_rc
stage_role(struct sw_step *s)
{
	char role[128], pname[64];
	json_object *trust, *doc;
	enum sw_step_rc rc;

	TRY(policy_name(s, pname, sizeof(pname)));
	sw_name(role, sizeof(role), CLUSTER(s), SW_ROLE_MLFLOW);
	trust = sw_trust_service("sagemaker.amazonaws.com");
	doc = store_policy(sw_json_get_str(s->params, "bucket"));
	rc = sw_ensure_role(s,
	    &(struct sw_role){ .key = "role_arn",
		.name = role,
		.trust = trust,
		.inline_name = pname,
		.inline_doc = doc });
	json_object_put(doc);
	json_object_put(trust);
	return rc;
}

/* The ARN of the app called APP(s) that is not Deleted, or NULL. */
static enum sw_step_rc
app_by_name(struct sw_step *s, const char **arn)
{
	json_object *out, *list;
	size_t i;

	*arn = NULL;
	TRY(sw_step_aws(s, AWS_SVC_SAGEMAKER, "ListMlflowApps",
	    sw_jo("MaxResults", sw_ji(100), NULL), &out, NULL));
	list = sw_json_get(out, "Summaries");
	for (i = 0; list && i < json_object_array_length(list); i++) {
		json_object *a = json_object_array_get_idx(list, i);

		if (strcmp(sw_json_get_str(a, "Name") ?: "", APP(s)) == 0 &&
		    strcmp(sw_json_get_str(a, "Status") ?: "", "Deleted") != 0)
			*arn = sw_keep(s, sw_json_get_str(a, "Arn"));
	}
	json_object_put(out);
	return STEP_DONE;
}

static json_object *
create_input(struct sw_step *s)
{
	const char *role = sw_res_from(s, "role", "role_arn");

	return sw_jo("Name", sw_js(APP(s)), "ArtifactStoreUri",
	    sw_js(sw_json_get_str(s->params, "artifact_store_uri")), "RoleArn",
	    sw_js(sw_planned(s, role, "(the role's ARN)")),
	    "ModelRegistrationMode",
	    sw_js(sw_json_get_bool(s->params, "model_registration", 0)
		    ? "AutoModelRegistrationEnabled"
		    : "AutoModelRegistrationDisabled"),
	    "WeeklyMaintenanceWindowStart",
	    sw_js(sw_json_get_str(s->params, "weekly_maintenance")), "Tags",
	    sw_tag_list(s), NULL);
}

static enum sw_step_rc
stage_create(struct sw_step *s)
{
	const char *arn = NULL;
	json_object *out = NULL;
	int resumed = 0;

	if (sw_res_get(s, "arn") != NULL)
		return STEP_DONE;
	TRY(sw_step_aws_once(s, "create_sent", AWS_SVC_SAGEMAKER,
	    "CreateMlflowApp", create_input(s), &out, &resumed));
	if (s->plan) {
		json_object_put(out);
		return STEP_DONE;
	}
	if (out != NULL)
		arn = sw_keep(s, sw_json_get_str(out, "Arn"));
	json_object_put(out);
	if (arn == NULL && resumed)
		TRY(app_by_name(s, &arn));
	if (arn == NULL) {
		/* Sent before a restart and not taken: send it again. */
		json_object_object_del(s->res, "create_sent");
		return sw_step_wait(s, sw_poll_ms(s, 5000),
		    "MLflow App %s "
		    "was not created; asking again",
		    APP(s));
	}
	sw_res_set(s, "arn", arn);
	return STEP_DONE;
}

/* The app's status now; NULL when SageMaker has it no more. */
static enum sw_step_rc
app_status(struct sw_step *s, const char *arn, const char **status)
{
	struct aws_error err;
	json_object *out;
	enum sw_step_rc rc;

	*status = NULL;
	memset(&err, 0, sizeof(err));
	rc = sw_step_aws(s, AWS_SVC_SAGEMAKER, "DescribeMlflowApp",
	    sw_jo("Arn", sw_js(arn), NULL), &out, &err);
	if (rc == STEP_FAIL && strcmp(err.code, "ResourceNotFound") == 0) {
		s->msg[0] = '\0';
		return STEP_DONE;
	}
	if (rc != STEP_DONE)
		return rc;
	*status = sw_keep(s, sw_json_get_str(out, "Status"));
	json_object_put(out);
	return STEP_DONE;
}

static enum sw_step_rc
stage_create_wait(struct sw_step *s)
{
	const char *arn = sw_res_from(s, "create", "arn"), *st;

	if (s->plan)
		return STEP_DONE;
	TRY(app_status(s, arn, &st));
	if (st == NULL || strcmp(st, "CreateFailed") == 0)
		return sw_step_fail(s, "MLflow App %s %s", APP(s),
		    st ? "is CreateFailed" : "is gone");
	if (strcmp(st, "Created") != 0 && strcmp(st, "Updated") != 0)
		return sw_step_wait(s, sw_poll_ms(s, 30000),
		    "MLflow App %s "
		    "is %s",
		    APP(s), st);
	sw_res_set(s, "status", st);
	return STEP_DONE;
}

static enum sw_step_rc
stage_delete(struct sw_step *s)
{
	json_object *out;

	if (sw_res_get(s, "requested") != NULL)
		return STEP_DONE;
	TRY(sw_step_aws_ok(s, AWS_SVC_SAGEMAKER, "DeleteMlflowApp",
	    sw_jo("Arn", sw_js(sw_json_get_str(s->params, "arn")), NULL), &out,
	    "ResourceNotFound"));
	json_object_put(out);
	sw_res_set(s, "requested", "DeleteMlflowApp");
	return STEP_DONE;
}

static enum sw_step_rc
stage_delete_wait(struct sw_step *s)
{
	const char *st;

	if (s->plan)
		return STEP_DONE;
	TRY(app_status(s, sw_json_get_str(s->params, "arn"), &st));
	if (st != NULL && strcmp(st, "DeleteFailed") == 0)
		return sw_step_fail(s, "MLflow App %s is DeleteFailed", APP(s));
	if (st != NULL && strcmp(st, "Deleted") != 0)
		return sw_step_wait(s, sw_poll_ms(s, 30000),
		    "MLflow App %s "
		    "is %s",
		    APP(s), st);
	sw_res_set(s, "status", st ? st : "gone");
	return STEP_DONE;
}

static enum sw_step_rc
stage_policy(struct sw_step *s)
{
	char role[128], pname[64];
	json_object *out;

	TRY(policy_name(s, pname, sizeof(pname)));
	sw_name(role, sizeof(role), CLUSTER(s), SW_ROLE_MLFLOW);
	TRY(sw_step_aws_ok(s, AWS_SVC_IAM, "DeleteRolePolicy",
	    sw_jo("RoleName", sw_js(role), "PolicyName", sw_js(pname), NULL),
	    &out, "NoSuchEntity"));
	json_object_put(out);
	return STEP_DONE;
}

/* clang-format off */
static const struct sw_stage_def create_stages[] = {
	{ "role", stage_role },
	{ "create", stage_create },
	{ "wait", stage_create_wait },
	{ NULL, NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_stage_def delete_stages[] = {
	{ "delete", stage_delete },
	{ "wait", stage_delete_wait },
	{ "policy", stage_policy },
	{ NULL, NULL }
};
/* clang-format on */

const struct sw_pipeline sw_pl_mlflow_app_create = { "mlflow_app.create",
	create_stages };

const struct sw_pipeline sw_pl_mlflow_app_delete = { "mlflow_app.delete",
	delete_stages };
