/*
 * mlflow.c: SageMaker managed MLflow Apps.  Reads (list, one app, a
 * presigned URL to its UI) go straight to SageMaker; creating and
 * deleting one are operations (pipelines/mlflow.c).  An app Slipway
 * creates serves a cluster's jobs: SageMaker reaches its artifact store
 * as the cluster's role slipway-<cluster>-mlflow, whose inline policy
 * mlflow-<app> names the store, and Slipway deletes only such apps (the
 * role says whose they are).  Any app of the account can be listed,
 * read, opened and named by a job.  Slipway names an
 * app by its name; SageMaker by its ARN, which the name is not part of,
 * so every call by name first finds the app in ListMlflowApps (a
 * Deleted app no longer counts).  A training job's mlflow_app option
 * becomes the app's ARN as its tracking URI (h_mlflow_app_arn), only
 * once the app is Created or Updated.
 */
#include <string.h>

#include "handlers/handlers.h"
#include "cloud/aws_api.h"
#include "lib/buf.h"
#include "lib/json.h"

#define ROLE_PREFIX "slipway-"
#define ROLE_SUFFIX "-mlflow"

/* Can jobs use an app in status st, and its UI open? */
static int
app_ready(const char *st)
{
	return st != NULL &&
	    (strcmp(st, "Created") == 0 || strcmp(st, "Updated") == 0);
}

/* A summary of ListMlflowApps as Slipway lists it (new). */
static json_object *
app_summary(json_object *a)
{
	const char *st = sw_json_get_str(a, "Status");

	return sw_jo("name", sw_js(sw_json_get_str(a, "Name")), "arn",
	    sw_js(sw_json_get_str(a, "Arn")), "status", sw_js(st),
	    "mlflow_version", sw_js(sw_json_get_str(a, "MlflowVersion")),
	    "created", json_object_get(sw_json_get(a, "CreationTime")), "ready",
	    sw_jb(app_ready(st)), NULL);
}

/*
 * Every app SageMaker lists, Deleted ones left out: *items (new) gets
 * each one's ListMlflowApps summary.  Fills r's problem on failure.
 */
static sw_err
list_apps(struct sw_req *r, json_object **items)
{
	struct aws_error err;
	json_object *out, *list;
	char token[8200];
	const char *next = NULL;
	size_t i;
	sw_err e;

	*items = json_object_new_array();
	do {
		memset(&err, 0, sizeof(err));
		if ((e = h_call(r, AWS_SVC_SAGEMAKER, "ListMlflowApps",
			 sw_jo("MaxResults", sw_ji(100), "NextToken",
			     sw_js(next), NULL),
			 &out, &err)) != SW_OK) {
			json_object_put(*items);
			*items = NULL;
			return h_aws_fail(
			    r, AWS_SVC_SAGEMAKER, "ListMlflowApps", e, &err);
		}
		list = sw_json_get(out, "Summaries");
		for (i = 0; list && i < json_object_array_length(list); i++) {
			json_object *a = json_object_array_get_idx(list, i);

			if (strcmp(sw_json_get_str(a, "Status") ?: "",
				"Deleted") != 0)
				json_object_array_add(
				    *items, json_object_get(a));
		}
		next = sw_json_copy_str(out, "NextToken", token, sizeof(token));
		if (next != NULL && *next == '\0')
			next = NULL;
		json_object_put(out);
	} while (next != NULL);
	return SW_OK;
}

/*
 * The app called name: *app is its summary (new), or NULL when there is
 * none (SW_OK: the caller decides whether that is an error).
 */
static sw_err
find_app(struct sw_req *r, const char *name, json_object **app)
{
	json_object *items;
	size_t i;

	*app = NULL;
	if (list_apps(r, &items) != SW_OK)
		return r->err;
	for (i = 0; i < json_object_array_length(items); i++) {
		json_object *a = json_object_array_get_idx(items, i);

		if (strcmp(sw_json_get_str(a, "Name") ?: "", name) == 0)
			*app = json_object_get(a);
	}
	json_object_put(items);
	return SW_OK;
}

/* find_app for an app the request needs: 404 naming field. */
static sw_err
need_app(
    struct sw_req *r, const char *field, const char *name, json_object **app)
{
	if (find_app(r, name, app) != SW_OK)
		return r->err;
	if (*app != NULL)
		return SW_OK;
	sw_ferr_add(&r->ferrs, field, "exists",
	    "no MLflow App %s "
	    "(mlflow_app_list lists them)",
	    name);
	return sw_req_fail(r, SW_ENOTFOUND, "%s", r->ferrs.e[0].msg);
}

/* 409 naming field when the app is not Created or Updated. */
static sw_err
need_ready(struct sw_req *r, const char *field, json_object *app)
{
	const char *st = sw_json_get_str(app, "Status");

	if (app_ready(st))
		return SW_OK;
	sw_ferr_add(&r->ferrs, field, "state",
	    "MLflow App %s is %s; it "
	    "can be used once it is Created",
	    sw_json_get_str(app, "Name"), st ? st : "unknown");
	return sw_req_fail(r, SW_ECONFLICT, "%s", r->ferrs.e[0].msg);
}

sw_err
h_mlflow_app_list(struct sw_req *r)
{
	json_object *items, *out;
	size_t i;

	if (list_apps(r, &items) != SW_OK)
		return r->err;
	out = json_object_new_array();
	for (i = 0; i < json_object_array_length(items); i++)
		json_object_array_add(
		    out, app_summary(json_object_array_get_idx(items, i)));
	json_object_put(items);
	sw_req_reply(r, 200, sw_jo("items", out, NULL));
	return SW_OK;
}

sw_err
h_mlflow_app_get(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "app");
	json_object *app, *d, *res;
	struct aws_error err;
	const char *mode;
	sw_err e;

	if (need_app(r, "app", name, &app) != SW_OK)
		return r->err;
	memset(&err, 0, sizeof(err));
	e = h_call(r, AWS_SVC_SAGEMAKER, "DescribeMlflowApp",
	    sw_jo("Arn", sw_js(sw_json_get_str(app, "Arn")), NULL), &d, &err);
	json_object_put(app);
	if (e != SW_OK)
		return h_aws_fail(
		    r, AWS_SVC_SAGEMAKER, "DescribeMlflowApp", e, &err);
	res = app_summary(d);
	mode = sw_json_get_str(d, "ModelRegistrationMode");
	json_object_object_add(res, "artifact_store_uri",
	    sw_js(sw_json_get_str(d, "ArtifactStoreUri")));
	json_object_object_add(
	    res, "role_arn", sw_js(sw_json_get_str(d, "RoleArn")));
	if (mode != NULL)
		json_object_object_add(res, "model_registration",
		    sw_jb(strcmp(mode, "AutoModelRegistrationEnabled") == 0));
	if (sw_json_get(d, "WeeklyMaintenanceWindowStart") != NULL)
		json_object_object_add(res, "weekly_maintenance",
		    sw_js(sw_json_get_str(d, "WeeklyMaintenanceWindowStart")));
	if (sw_json_get(d, "MaintenanceStatus") != NULL)
		json_object_object_add(res, "maintenance_status",
		    sw_js(sw_json_get_str(d, "MaintenanceStatus")));
	if (sw_json_get(d, "LastModifiedTime") != NULL)
		json_object_object_add(res, "last_modified",
		    json_object_get(sw_json_get(d, "LastModifiedTime")));
	json_object_put(d);
	sw_req_reply(r, 200, res);
	return SW_OK;
}

sw_err
h_mlflow_app_url(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "app");
	int64_t expires = sw_json_get_int(r->args, "expires_in_seconds", 300);
	int64_t session = sw_json_get_int(r->args, "session_seconds", 43200);
	json_object *app, *out;
	struct aws_error err;
	sw_err e;

	if (need_app(r, "app", name, &app) != SW_OK)
		return r->err;
	if (need_ready(r, "app", app) != SW_OK) {
		json_object_put(app);
		return r->err;
	}
	memset(&err, 0, sizeof(err));
	e = h_call(r, AWS_SVC_SAGEMAKER, "CreatePresignedMlflowAppUrl",
	    sw_jo("Arn", sw_js(sw_json_get_str(app, "Arn")), "ExpiresInSeconds",
		sw_ji(expires), "SessionExpirationDurationInSeconds",
		sw_ji(session), NULL),
	    &out, &err);
	if (e != SW_OK) {
		json_object_put(app);
		return h_aws_fail(r, AWS_SVC_SAGEMAKER,
		    "CreatePresignedMlflowAppUrl", e, &err);
	}
	sw_req_reply(r, 200,
	    sw_jo("url", sw_js(sw_json_get_str(out, "AuthorizedUrl")),
		"expires_in_seconds", sw_ji(expires), "session_seconds",
		sw_ji(session), "arn", sw_js(sw_json_get_str(app, "Arn")),
		NULL));
	json_object_put(out);
	json_object_put(app);
	return SW_OK;
}

sw_err
h_mlflow_app_create(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "name");
	const char *cluster = sw_json_get_str(r->args, "cluster");
	const char *bucket = sw_json_get_str(r->args, "artifact_bucket");
	const char *prefix = sw_json_get_str(r->args, "artifact_prefix");
	json_object *app, *params;

	if (find_app(r, name, &app) != SW_OK)
		return r->err;
	if (app != NULL) {
		json_object_put(app);
		sw_ferr_add(&r->ferrs, "name", "exists",
		    "an MLflow App named "
		    "%s exists already",
		    name);
		return sw_req_fail(r, SW_ECONFLICT, "%s", r->ferrs.e[0].msg);
	}
	params = sw_jo("name", sw_js(cluster), "app", sw_js(name),
	    "artifact_store_uri",
	    prefix ? sw_jsf("s3://%s/%s", bucket, prefix)
		   : sw_jsf("s3://%s/mlflow/%s", bucket, name),
	    "bucket", sw_js(bucket), "model_registration",
	    sw_jb(sw_json_get_bool(r->args, "model_registration", 0)),
	    "weekly_maintenance",
	    sw_js(sw_json_get_str(r->args, "weekly_maintenance")), NULL);
	return h_start_with(r, params, "mlflow_app.create",
	    sw_json_get_str(params, "app"), sw_json_get_str(params, "name"));
}

/*
 * The cluster whose role slipway-<cluster>-mlflow an app reaches its
 * store with, into buf; 409 naming field app when the app is not one
 * Slipway made.
 */
static sw_err
app_cluster(struct sw_req *r, json_object *app, char *buf, size_t bufsz)
{
	struct aws_error err;
	json_object *d;
	const char *role, *name;
	size_t n, pre = strlen(ROLE_PREFIX), suf = strlen(ROLE_SUFFIX);
	sw_err e;

	memset(&err, 0, sizeof(err));
	if ((e = h_call(r, AWS_SVC_SAGEMAKER, "DescribeMlflowApp",
		 sw_jo("Arn", sw_js(sw_json_get_str(app, "Arn")), NULL), &d,
		 &err)) != SW_OK)
		return h_aws_fail(
		    r, AWS_SVC_SAGEMAKER, "DescribeMlflowApp", e, &err);
	role = strstr(sw_json_get_str(d, "RoleArn") ?: "", ":role/");
	role = role ? role + 6 : "";
	n = strlen(role);
	e = SW_ENOTFOUND;
	if (n > pre + suf && strncmp(role, ROLE_PREFIX, pre) == 0 &&
	    strcmp(role + n - suf, ROLE_SUFFIX) == 0 && n - pre - suf < bufsz) {
		memcpy(buf, role + pre, n - pre - suf);
		buf[n - pre - suf] = '\0';
		e = SW_OK;
	}
	json_object_put(d);
	if (e == SW_OK)
		return SW_OK;
	name = sw_json_get_str(app, "Name");
	sw_ferr_add(&r->ferrs, "app", "owned",
	    "MLflow App %s was not created "
	    "by Slipway, so Slipway does not delete it",
	    name);
	return sw_req_fail(r, SW_ECONFLICT, "%s", r->ferrs.e[0].msg);
}

sw_err
h_mlflow_app_delete(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "app");
	json_object *app, *params;
	char cluster[64];

	if (need_app(r, "app", name, &app) != SW_OK)
		return r->err;
	if (app_cluster(r, app, cluster, sizeof(cluster)) != SW_OK) {
		json_object_put(app);
		return r->err;
	}
	params = sw_jo("name", sw_js(cluster), "app", sw_js(name), "arn",
	    sw_js(sw_json_get_str(app, "Arn")), NULL);
	json_object_put(app);
	return h_start_with(r, params, "mlflow_app.delete",
	    sw_json_get_str(params, "app"), sw_json_get_str(params, "name"));
}

sw_err
h_mlflow_app_arn(struct sw_req *r, const char *name, char *arn, size_t arnsz)
{
	json_object *app;
	sw_err e;

	if (need_app(r, "mlflow_app", name, &app) != SW_OK)
		return r->err;
	if (need_ready(r, "mlflow_app", app) != SW_OK) {
		json_object_put(app);
		return r->err;
	}
	e = sw_fmt(arn, arnsz, "%s", sw_json_get_str(app, "Arn") ?: "");
	json_object_put(app);
	if (e != SW_OK)
		return sw_req_fail(r, SW_EINTERNAL, "MLflow App ARN too long");
	return SW_OK;
}
