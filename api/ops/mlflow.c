/*
 * mlflow.c: the operation table's rows for SageMaker managed MLflow
 * Apps: creating one (with the role it reads and writes its artifact
 * store with), listing, reading, deleting, and opening its UI through
 * a presigned URL.  A training job names an app with its mlflow_app
 * option (api/ops/training.c), beside a tracking server's URI.
 */
#include "api/optable.h"
#include "api/ops/ops.h"

#define PAT_MAINTENANCE \
	"(Mon|Tue|Wed|Thu|Fri|Sat|Sun):([01][0-9]|2[0-3]):" \
	"[0-5][0-9]"

/* clang-format off */
static const struct sw_field f_app_path[] = {
	{ .name = "app", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 1, .max = 40,
	  .pattern = PAT_MLFLOW_APP, .desc = "The MLflow App's name." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_app_create[] = {
	{ .name = "name", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 40, .pattern = PAT_MLFLOW_APP,
	  .desc = "The app's name (unique among the account's apps)." },
	{ .name = "cluster", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 2, .max = 32, .pattern = PAT_CLUSTER,
	  .desc = "The cluster whose jobs log to it: SageMaker reaches the "
	  "artifact store as its role slipway-<cluster>-mlflow." },
	{ .name = "artifact_bucket", .type = SW_T_STRING,
	  .flags = SW_F_REQUIRED, .min = 3, .max = 63, .pattern = PAT_BUCKET,
	  .desc = "The general purpose S3 bucket of its artifact store "
	  "(it must exist)." },
	{ .name = "artifact_prefix", .type = SW_T_STRING, .min = 1,
	  .max = 512, .pattern = PAT_REL_PATH,
	  .desc = "The prefix in that bucket (default mlflow/<name>)." },
	{ .name = "model_registration", .type = SW_T_BOOL,
	  .desc = "Register new MLflow models in the SageMaker Model "
	  "Registry (default false)." },
	{ .name = "weekly_maintenance", .type = SW_T_STRING, .min = 9,
	  .max = 9, .pattern = PAT_MAINTENANCE,
	  .desc = "When weekly maintenance may start, UTC (Tue:03:30)." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_app_url[] = {
	{ .name = "expires_in_seconds", .type = SW_T_INT, .min = 5,
	  .max = 300, .desc = "How long the URL may be used, once "
	  "(default 300)." },
	{ .name = "session_seconds", .type = SW_T_INT, .min = 1800,
	  .max = 43200, .desc = "How long the UI session it opens lasts "
	  "(default 43200)." },
	{ NULL }
};
/* clang-format on */

static const char *const app_states[] = { "Creating", "Created", "CreateFailed",
	"Updating", "Updated", "UpdateFailed", "Deleting", "DeleteFailed",
	"Deleted", NULL };

#define O_APP_COMMON \
	OUT("name", SW_T_STRING, "Its name."), \
	    OUT("arn", SW_T_STRING, \
		"Its ARN: also the tracking URI, set as " \
		"a job's MLFLOW_TRACKING_URI; the sagemaker-mlflow plugin " \
		"resolves it."), \
	    { .name = "status", \
		    .type = SW_T_STRING, \
		    .flags = SW_F_REQUIRED, \
		    .enumv = app_states, \
		    .desc = "Where it is; jobs may use it and " \
			    "its UI opens once Created or Updated." }, \
	    OUT_OPT("mlflow_version", SW_T_STRING, "Its MLflow version."), \
	    OUT_OPT("created", SW_T_NUMBER, \
		"When it was created (seconds " \
		"since the epoch)."), \
	    OUT("ready", SW_T_BOOL, "Created or Updated: jobs may name it.")

/* clang-format off */
static const struct sw_field o_app_summary[] = {
	O_APP_COMMON,
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_app_item[] = {
	{ .name = "app", .type = SW_T_OBJECT, .fields = o_app_summary },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_app_list[] = {
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_app_item, .desc = "The account's MLflow Apps, newest "
	  "first." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_app_list[] = {
	{ .status = 200, .fields = o_app_list, .desc = "The apps." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_app[] = {
	O_APP_COMMON,
	OUT_OPT("artifact_store_uri", SW_T_STRING, "Its artifact store."),
	OUT_OPT("role_arn", SW_T_STRING, "The role it reaches the store "
	    "with."),
	OUT_OPT("model_registration", SW_T_BOOL, "New models are "
	    "registered in the SageMaker Model Registry."),
	OUT_OPT("weekly_maintenance", SW_T_STRING, "When weekly "
	    "maintenance may start."),
	OUT_OPT("maintenance_status", SW_T_STRING, "The last "
	    "maintenance's outcome."),
	OUT_OPT("last_modified", SW_T_NUMBER, "When it last changed."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_app_get[] = {
	{ .status = 200, .fields = o_app, .desc = "The app." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_app_url[] = {
	OUT("url", SW_T_STRING, "The presigned URL of its MLflow UI: "
	    "usable once, within expires_in_seconds."),
	OUT("expires_in_seconds", SW_T_INT, "How long the URL may be "
	    "used."),
	OUT("session_seconds", SW_T_INT, "How long the session lasts."),
	OUT("arn", SW_T_STRING, "The app."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_app_url[] = {
	{ .status = 200, .fields = o_app_url, .desc = "The URL." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_op rows[] = {
	{
	  .name = "mlflow_app_list",
	  .method = "GET",
	  .path = "/api/v1/mlflow-apps",
	  .tag = "mlflow",
	  .summary = "SageMaker managed MLflow Apps of the account, with "
	    "their status",
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_app_list,
	},
	{
	  .name = "mlflow_app_create",
	  .method = "POST",
	  .path = "/api/v1/mlflow-apps",
	  .tag = "mlflow",
	  .summary = "Create a managed MLflow App (CreateMlflowApp)",
	  .description = "Stages: role (the cluster's "
	    "slipway-<cluster>-mlflow, which SageMaker assumes, with an "
	    "inline policy mlflow-<name> for the artifact store), create, "
	    "then wait until the app is Created.  Jobs name it with "
	    "mlflow_app once it is.",
	  .body = f_app_create,
	  .flags = SW_OP_LONG | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "operation_wait",
	  .poll_seconds = 30,
	  .answers = a_long,
	},
	{
	  .name = "mlflow_app_get",
	  .method = "GET",
	  .path = "/api/v1/mlflow-apps/{app}",
	  .tag = "mlflow",
	  .summary = "One MLflow App: status, artifact store, tracking URI",
	  .params = f_app_path,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_app_get,
	},
	{
	  .name = "mlflow_app_url",
	  .method = "POST",
	  .path = "/api/v1/mlflow-apps/{app}:presigned-url",
	  .tag = "mlflow",
	  .summary = "A presigned URL that opens the app's MLflow UI "
	    "(CreatePresignedMlflowAppUrl)",
	  .description = "Only for an app that is Created or Updated "
	    "(409 otherwise).  The URL works once.",
	  .params = f_app_path,
	  .body = f_app_url,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_app_url,
	},
	{
	  .name = "mlflow_app_delete",
	  .method = "DELETE",
	  .path = "/api/v1/mlflow-apps/{app}",
	  .tag = "mlflow",
	  .summary = "Delete an MLflow App Slipway created "
	    "(DeleteMlflowApp)",
	  .description = "Its experiments and runs go with it; the "
	    "artifacts stay in the bucket, and its policy leaves the "
	    "cluster's role.  An app Slipway did not create is refused "
	    "(409).",
	  .params = f_app_path,
	  .flags = SW_OP_LONG | SW_OP_DESTRUCTIVE | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_PLATFORM,
	  .status_tool = "operation_wait",
	  .poll_seconds = 30,
	  .answers = a_long,
	},
};
/* clang-format on */

const struct sw_op_family sw_ops_mlflow = { rows,
	sizeof(rows) / sizeof(rows[0]) };
