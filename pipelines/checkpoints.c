/*
 * checkpoints.c: a training job's checkpoints in S3 (see checkpoints.h)
 * and checkpoint.retain, the operation that applies a job's retention
 * rule:
 *
 *   prune    list the job's checkpoints again, choose what the rule
 *            deletes (sw_ckpt_doomed) and delete those objects with
 *            DeleteObjects, at most SW_S3_DELETE_MAX keys a call; the
 *            keys S3 reports deleted are recorded in the stage's
 *            resources ("deleted"), the checkpoints in "checkpoints".
 *            A dry run lists the same DeleteObjects calls, keys and all.
 *
 * The handler (handlers/checkpoints.c) resolved the job's bucket and
 * checkpoint prefix from its volume and put them in the parameters
 * (bucket, prefix, keep_last).  Deleting is idempotent: a resumed stage
 * lists again, and what is gone is no longer chosen.
 */
#include <stdlib.h>
#include <string.h>

#include "cloud/aws_api.h"
#include "lib/alloc.h"
#include "lib/json.h"
#include "pipelines/checkpoints.h"
#include "pipelines/pipelines.h"
#include "pipelines/stepkit.h"

#define CKPT_MAX_PAGES 1000

/* The step of a checkpoint directory name, or -1. */
static int64_t
dir_step(const char *dir, size_t n)
{
	static const char *const pfx[] = { "step-", "checkpoint-", NULL };
	char num[24];
	size_t i, l;

	for (i = 0; pfx[i] != NULL; i++) {
		l = strlen(pfx[i]);
		if (n <= l || n - l >= sizeof(num) || strncmp(dir, pfx[i], l))
			continue;
		memcpy(num, dir + l, n - l);
		num[n - l] = '\0';
		if (strspn(num, "0123456789") != n - l)
			return -1;
		return strtoll(num, NULL, 10);
	}
	return -1;
}

/* The item of checkpoint dir in by (object: name -> item), made. */
static json_object *
item_of(json_object *by, const char *dir, size_t n, int64_t step)
{
	char name[64];
	json_object *it;

	if (n >= sizeof(name))
		return NULL;
	memcpy(name, dir, n);
	name[n] = '\0';
	if ((it = sw_json_get(by, name)) != NULL)
		return it;
	it = sw_jo("name", sw_js(name), "step", sw_ji(step), "size_bytes",
	    sw_ji(0), "objects", sw_ji(0), "complete", sw_jb(0), "keys",
	    json_object_new_array(), NULL);
	json_object_object_add(by, name, it);
	return it;
}

/* Fold one listed object (Key, Size, LastModified) into by. */
static void
fold(json_object *by, const char *prefix, json_object *o)
{
	const char *key = sw_json_get_str(o, "Key"), *rest, *slash, *file;
	const char *when = sw_json_get_str(o, "LastModified"), *had;
	json_object *it;
	int64_t step;

	if (key == NULL || strncmp(key, prefix, strlen(prefix)) != 0)
		return;
	rest = key + strlen(prefix);
	if ((slash = strchr(rest, '/')) == NULL ||
	    (step = dir_step(rest, (size_t)(slash - rest))) < 0 ||
	    (it = item_of(by, rest, (size_t)(slash - rest), step)) == NULL)
		return;
	file = slash + 1;
	sw_json_add_int(it, "size_bytes",
	    sw_json_get_int(it, "size_bytes", 0) +
		strtoll(sw_json_get_str(o, "Size") ?: "0", NULL, 10));
	sw_json_add_int(it, "objects", sw_json_get_int(it, "objects", 0) + 1);
	json_object_array_add(sw_json_get(it, "keys"), sw_js(key));
	if (strcmp(file, ".metadata") == 0 ||
	    strcmp(file, "trainer_state.json") == 0)
		json_object_object_add(it, "complete", sw_jb(1));
	had = sw_json_get_str(it, "time");
	if (when != NULL && (had == NULL || strcmp(when, had) > 0))
		sw_json_add_str(it, "time", when);
}

/* Newest step first. */
static int
by_step_desc(const void *a, const void *b)
{
	int64_t x = sw_json_get_int(*(json_object *const *)a, "step", 0);
	int64_t y = sw_json_get_int(*(json_object *const *)b, "step", 0);

	return x < y ? 1 : x > y ? -1 : 0;
}

/* The items of by as an array, newest first, the newest complete one
 * marked.  New. */
static json_object *
ordered(json_object *by)
{
	json_object *items = json_object_new_array();
	int marked = 0;
	size_t i;

	json_object_object_foreach(by, k, v)
	{
		(void)k;
		json_object_array_add(items, json_object_get(v));
	}
	json_object_array_sort(items, by_step_desc);
	for (i = 0; i < json_object_array_length(items); i++) {
		json_object *it = json_object_array_get_idx(items, i);
		int c = sw_json_get_bool(it, "complete", 0);

		json_object_object_add(
		    it, "newest_complete", sw_jb(c && !marked));
		marked |= c;
	}
	return items;
}

sw_err
sw_ckpt_list(struct aws_ctx *aws, const char *bucket, const char *prefix,
    json_object **items, int *calls, struct aws_error *err)
{
	json_object *by = json_object_new_object(), *page = NULL;
	char *token = NULL;
	sw_err rc = SW_OK;
	int pages;
	size_t i;

	*items = NULL;
	for (pages = 0; pages < CKPT_MAX_PAGES; pages++) {
		json_object *contents;
		const char *next;

		(*calls)++;
		if ((rc = aws_s3_list_objects_v2(
			 aws, bucket, prefix, token, &page, err)) != SW_OK)
			break;
		contents = sw_json_get(page, "Contents");
		for (i = 0; i < json_object_array_length(contents); i++)
			fold(
			    by, prefix, json_object_array_get_idx(contents, i));
		next = sw_json_get_str(page, "NextContinuationToken");
		free(token);
		token = NULL;
		if (strcmp(sw_json_get_str(page, "IsTruncated") ?: "false",
			"true") != 0 ||
		    next == NULL || *next == '\0') {
			json_object_put(page);
			page = NULL;
			break;
		}
		if ((token = sw_strdup(next)) == NULL) {
			rc = SW_ENOMEM;
			break;
		}
		json_object_put(page);
		page = NULL;
	}
	json_object_put(page);
	free(token);
	if (rc == SW_OK)
		*items = ordered(by);
	json_object_put(by);
	return rc;
}

json_object *
sw_ckpt_doomed(json_object *items, int64_t keep, json_object **keys)
{
	json_object *names = json_object_new_array();
	int64_t seen = 0;
	size_t i, j;

	*keys = json_object_new_array();
	for (i = 0; i < json_object_array_length(items); i++) {
		json_object *it = json_object_array_get_idx(items, i);
		json_object *ks = sw_json_get(it, "keys");

		if (seen < keep) {
			seen += sw_json_get_bool(it, "complete", 0);
			continue;
		}
		json_object_array_add(
		    names, sw_js(sw_json_get_str(it, "name")));
		for (j = 0; j < json_object_array_length(ks); j++)
			json_object_array_add(*keys,
			    json_object_get(json_object_array_get_idx(ks, j)));
	}
	return names;
}

/* ---- checkpoint.retain ------------------------------------------------ */

/* Keys [from, from + n) of keys as a DeleteObjects input.  New. */
static json_object *
batch(json_object *keys, size_t from, size_t n)
{
	json_object *b = json_object_new_array();
	size_t i;

	for (i = from; i < from + n; i++)
		json_object_array_add(
		    b, json_object_get(json_object_array_get_idx(keys, i)));
	return b;
}

/* As DeleteObjects takes it: {Objects: [{Key}], Quiet}.  New. */
static json_object *
delete_input(const char *bucket, json_object *b)
{
	json_object *objs = json_object_new_array();
	size_t i;

	for (i = 0; i < json_object_array_length(b); i++)
		json_object_array_add(objs,
		    sw_jo("Key",
			json_object_get(json_object_array_get_idx(b, i)),
			NULL));
	return sw_jo("Bucket", sw_js(bucket), "Delete",
	    sw_jo("Objects", objs, "Quiet", sw_jb(0), NULL), NULL);
}

/* One DeleteObjects call of batch b; deleted keys appended to done. */
static enum sw_step_rc
delete_batch(
    struct sw_step *s, const char *bucket, json_object *b, json_object *done)
{
	struct aws_error err;
	json_object *out = NULL, *list, *errs;
	size_t i;

	if (s->plan) {
		json_object_array_add(s->calls,
		    sw_jo("stage", sw_js(s->stage), "service", sw_js("s3"),
			"operation", sw_js("DeleteObjects"), "input",
			delete_input(bucket, b), NULL));
		return STEP_DONE;
	}
	if (sw_step_save(s) != SW_OK)
		return sw_step_transient(s, "cannot record the stage");
	s->calls_made++;
	if (aws_s3_delete_objects(s->aws, bucket, b, &out, &err) != SW_OK)
		return sw_err_transient(aws_error_sw(&err))
		    ? sw_step_transient(s, "s3: %s", err.code)
		    : sw_step_fail(s, "DeleteObjects in %s: %s %s", bucket,
			  err.code, err.message);
	list = sw_json_get(out, "Deleted");
	for (i = 0; i < json_object_array_length(list); i++)
		json_object_array_add(done,
		    sw_js(sw_json_get_str(
			json_object_array_get_idx(list, i), "Key")));
	errs = sw_json_get(out, "Error");
	if (json_object_array_length(errs) > 0) {
		json_object *e0 = json_object_array_get_idx(errs, 0);
		enum sw_step_rc rc = sw_step_fail(s,
		    "S3 kept %zu object(s): "
		    "%s: %s",
		    json_object_array_length(errs),
		    sw_json_get_str(e0, "Key") ?: "?",
		    sw_json_get_str(e0, "Code") ?: "?");

		json_object_put(out);
		return rc;
	}
	json_object_put(out);
	return STEP_DONE;
}

static enum sw_step_rc
stage_prune(struct sw_step *s)
{
	const char *bucket = sw_json_get_str(s->params, "bucket");
	const char *prefix = sw_json_get_str(s->params, "prefix");
	json_object *items = NULL, *keys = NULL, *names, *done;
	struct aws_error err;
	enum sw_step_rc rc = STEP_DONE;
	size_t i, n;

	if (sw_res_get(s, "pruned") != NULL)
		return STEP_DONE;
	if (bucket == NULL || prefix == NULL)
		return sw_step_fail(s, "no bucket or prefix to prune");
	if (sw_ckpt_list(
		s->aws, bucket, prefix, &items, &s->calls_made, &err) != SW_OK)
		return sw_err_transient(aws_error_sw(&err))
		    ? sw_step_transient(s, "s3: %s", err.code)
		    : sw_step_fail(s, "ListObjectsV2 %s/%s: %s %s", bucket,
			  prefix, err.code, err.message);
	names = sw_ckpt_doomed(
	    items, sw_json_get_int(s->params, "keep_last", 1), &keys);
	json_object_put(items);
	if ((done = sw_json_get(s->res, "deleted")) == NULL) {
		done = json_object_new_array();
		json_object_object_add(s->res, "deleted", done);
	}
	if (sw_json_get(s->res, "checkpoints") == NULL)
		json_object_object_add(
		    s->res, "checkpoints", json_object_get(names));
	n = json_object_array_length(keys);
	for (i = 0; i < n && rc == STEP_DONE; i += SW_S3_DELETE_MAX) {
		json_object *b = batch(keys, i,
		    n - i < SW_S3_DELETE_MAX ? n - i : SW_S3_DELETE_MAX);

		rc = delete_batch(s, bucket, b, done);
		json_object_put(b);
	}
	json_object_put(names);
	json_object_put(keys);
	if (rc == STEP_DONE)
		sw_res_set(s, "pruned", "yes");
	return rc;
}

/* clang-format off */
static const struct sw_stage_def retain_stages[] = {
	{ "prune", stage_prune },
	{ NULL, NULL }
};
/* clang-format on */

const struct sw_pipeline sw_pl_checkpoint_retain = { "checkpoint.retain",
	retain_stages };
