/*
 * pipeline.c: the stage runner shared by the poller (real runs) and the
 * API workers (dry runs).  See pipeline.h for the contract a stage
 * function keeps.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "cloud/aws_api.h"
#include "cloud/aws_member.h"
#include "cloud/aws_person.h"
#include "lib/fault.h"
#include "lib/json.h"
#include "lib/limits.h"
#include "lib/log.h"
#include "lib/ops.h"
#include "pipelines/pipeline.h"

const char *const *
sw_pipeline_stage_names(const struct sw_pipeline *p)
{
	/* Stage tables are {name, fn} rows; names are collected once. */
	static const char *names[SW_MAX_PIPELINES][SW_MAX_STAGES + 1];
	static const struct sw_pipeline *owner[SW_MAX_PIPELINES];
	int slot, i;

	for (slot = 0; slot < SW_MAX_PIPELINES; slot++)
		if (owner[slot] == p || owner[slot] == NULL)
			break;
	if (slot == SW_MAX_PIPELINES)
		return NULL;
	if (owner[slot] == NULL) {
		for (i = 0; p->stages[i].name != NULL && i < SW_MAX_STAGES; i++)
			names[slot][i] = p->stages[i].name;
		names[slot][i] = NULL;
		owner[slot] = p;
	}
	return names[slot];
}

const char *
sw_keep(struct sw_step *s, const char *v)
{
	const char *p;

	if (v == NULL)
		return NULL;
	if ((p = sw_arena_strdup(&s->arena, v)) == NULL)
		s->kept_nomem = 1;
	return p;
}

void
sw_step_release(struct sw_step *s)
{
	sw_arena_free(&s->arena);
	s->kept_nomem = 0;
}

/* Run one stage function on s and end the step: what it kept is freed
 * here, and a step that could not keep a value tries again. */
static enum sw_step_rc
step_run(sw_stage_fn fn, struct sw_step *s)
{
	enum sw_step_rc rc = fn(s);

	if (s->kept_nomem)
		rc = sw_step_retry(s, 2000,
		    "out of memory in stage %s "
		    "(will retry)",
		    s->stage);
	sw_step_release(s);
	return rc;
}

enum sw_step_rc
sw_step_wait(struct sw_step *s, int64_t ms, const char *fmt, ...)
{
	va_list ap;

	s->wait_ms = ms;
	va_start(ap, fmt);
	vsnprintf(s->msg, sizeof(s->msg), fmt, ap);
	va_end(ap);
	return STEP_WAIT;
}

enum sw_step_rc
sw_step_retry(struct sw_step *s, int64_t ms, const char *fmt, ...)
{
	va_list ap;

	s->wait_ms = ms;
	s->unavailable = 1;
	va_start(ap, fmt);
	vsnprintf(s->msg, sizeof(s->msg), fmt, ap);
	va_end(ap);
	return STEP_WAIT;
}

enum sw_step_rc
sw_step_transient(struct sw_step *s, const char *fmt, ...)
{
	va_list ap;

	s->wait_ms = SW_TRANSIENT_RETRY_MS +
	    (int64_t)(sw_now_ms() % SW_TRANSIENT_JITTER_MS);
	s->unavailable = 1;
	va_start(ap, fmt);
	vsnprintf(s->msg, sizeof(s->msg), fmt, ap);
	va_end(ap);
	return STEP_WAIT;
}

enum sw_step_rc
sw_step_fail(struct sw_step *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->msg, sizeof(s->msg), fmt, ap);
	va_end(ap);
	return STEP_FAIL;
}

const char *
sw_res_get(struct sw_step *s, const char *key)
{
	return sw_json_get_str(s->res, key);
}

void
sw_res_set(struct sw_step *s, const char *key, const char *val)
{
	sw_json_add_str(s->res, key, val);
}

const char *
sw_res_from(struct sw_step *s, const char *stage, const char *key)
{
	return sw_json_get_str(sw_json_get(s->all, stage), key);
}

/* End a transaction sw_lease_begin opened: committed when e is SW_OK. */
static sw_err
fenced_end(struct sw_db *db, sw_err e)
{
	if (e != SW_OK) {
		sw_db_rollback(db);
		return e;
	}
	return sw_db_commit(db);
}

/*
 * Before each mutating call the stage's resources are saved under the
 * lease: a poller whose lease moved (paused, partitioned) finds out here
 * and sends nothing.
 */
sw_err
sw_step_save(struct sw_step *s)
{
	sw_err e;

	if (s->plan || s->db == NULL)
		return SW_OK;
	if (s->lease == NULL)
		return sw_stage_set_ext(s->db, s->op_id, s->seq, s->res);
	if ((e = sw_lease_begin(s->db, s->lease)) != SW_OK)
		return e;
	return fenced_end(
	    s->db, sw_stage_set_ext(s->db, s->op_id, s->seq, s->res));
}

enum sw_step_rc
sw_step_fence(struct sw_step *s, struct http_client *http, const char *what)
{
	if (s->plan)
		return STEP_DONE;
	if (sw_step_save(s) != SW_OK)
		return sw_step_retry(s, 2000,
		    "cannot record the stage before %s (will retry)", what);
	/* It goes out only while the lease just checked surely holds. */
	if (s->lease != NULL)
		http->send_by_ms = sw_lease_send_by(s->lease);
	return STEP_DONE;
}

/* A stage's answer to a failed AWS call: what the error means was
 * decided once, where it was born (aws_error_sw). */
static enum sw_step_rc
step_aws_failed(struct sw_step *s, enum aws_service svc, const char *op,
    const struct aws_error *err)
{
	if (sw_err_transient(aws_error_sw(err)))
		return sw_step_transient(s, "%s %s: %s (will retry)",
		    aws_service(svc)->id, op,
		    err->code[0] ? err->code : "transport error");
	return sw_step_fail(s, "%s %s failed: %s: %s", aws_service(svc)->id, op,
	    err->code[0] ? err->code : "error", err->message);
}

enum sw_step_rc
sw_step_aws(struct sw_step *s, enum aws_service svc, const char *op,
    json_object *in, json_object **out, struct aws_error *errp)
{
	struct aws_error err;
	enum sw_step_rc rc;
	sw_err e;

	*out = NULL;
	if (s->plan && aws_op_mutates(op)) {
		json_object_array_add(s->calls,
		    sw_jo("stage", sw_js(s->stage), "service",
			sw_js(aws_service(svc)->id), "operation", sw_js(op),
			"input", in ? in : json_object_new_object(), NULL));
		*out = json_object_new_object();
		return STEP_DONE;
	}
	if (aws_op_mutates(op) &&
	    (rc = sw_step_fence(s, &s->aws->http, op)) != STEP_DONE) {
		json_object_put(in);
		return rc;
	}
	memset(&err, 0, sizeof(err));
	s->calls_made++;
	if (aws_op_mutates(op))
		sw_fault_stop_before(op);
	e = aws_call(s->aws, svc, op, in, out, &err);
	s->aws->http.send_by_ms = 0;
	json_object_put(in);
	if (errp != NULL)
		*errp = err;
	if (e == SW_OK) {
		/* Test hook: die with the answer in hand, not yet recorded. */
		if (aws_op_mutates(op))
			sw_fault_kill_after(op);
		return STEP_DONE;
	}
	return step_aws_failed(s, svc, op, &err);
}

enum sw_step_rc
sw_step_aws_kept(struct sw_step *s, enum aws_service svc, const char *op,
    json_object *in, json_object **out, int64_t keep_ms)
{
	struct aws_keep keep = { keep_ms, 0, sw_config_account(s->cfg) };
	struct aws_error err;
	sw_err e;

	if (s->db == NULL || aws_op_mutates(op))
		return sw_step_aws(s, svc, op, in, out, NULL);
	memset(&err, 0, sizeof(err));
	s->calls_made++;
	e = aws_call_kept(s->aws, s->db, svc, op, in, out, &err, &keep);
	json_object_put(in);
	return e == SW_OK ? STEP_DONE : step_aws_failed(s, svc, op, &err);
}

enum sw_step_rc
sw_step_hp_describe(
    struct sw_step *s, const char *name, json_object **out, int *gone)
{
	struct aws_error err;
	sw_err e;

	if (gone != NULL)
		*gone = 0;
	memset(&err, 0, sizeof(err));
	s->calls_made++;
	if ((e = aws_hp_describe(s->aws, name, out, &err)) == SW_OK)
		return STEP_DONE;
	if (e == SW_ENOTFOUND && gone != NULL) {
		*gone = 1;
		return STEP_DONE;
	}
	if (e == SW_ENOTFOUND)
		return sw_step_fail(s, "no HyperPod cluster %s", name);
	return step_aws_failed(s, AWS_SVC_SAGEMAKER, "DescribeCluster", &err);
}

const char *
sw_cluster_id(struct sw_step *s)
{
	return sw_json_get_str(s->params, "cluster_id");
}

json_object *
sw_tag_list(struct sw_step *s)
{
	json_object *l = sw_ja(sw_jo("Key", sw_js(SW_TAG_CLUSTER), "Value",
	    sw_js(sw_json_get_str(s->params, "name")), NULL));

	if (sw_cluster_id(s) != NULL)
		json_object_array_add(l,
		    sw_jo("Key", sw_js(SW_TAG_CLUSTER_ID), "Value",
			sw_js(sw_cluster_id(s)), NULL));
	return l;
}

json_object *
sw_tag_map(struct sw_step *s)
{
	json_object *m =
	    sw_jo(SW_TAG_CLUSTER, sw_js(sw_json_get_str(s->params, "name")),
		SW_TAG_MANAGED, sw_js("true"), NULL);

	if (sw_cluster_id(s) != NULL)
		json_object_object_add(
		    m, SW_TAG_CLUSTER_ID, sw_js(sw_cluster_id(s)));
	return m;
}

int
sw_tags_ours(struct sw_step *s, json_object *tags)
{
	const char *id = sw_cluster_id(s), *k, *v;
	size_t i;

	if (id == NULL || tags == NULL)
		return 0;
	if (json_object_is_type(tags, json_type_object))
		return strcmp(sw_json_get_str(tags, SW_TAG_CLUSTER_ID) ?: "",
			   id) == 0;
	for (i = 0; json_object_is_type(tags, json_type_array) &&
	     i < json_object_array_length(tags);
	     i++) {
		json_object *t = json_object_array_get_idx(tags, i);

		k = sw_json_get_str(t, "Key") ?: sw_json_get_str(t, "key");
		v = sw_json_get_str(t, "Value") ?: sw_json_get_str(t, "value");
		if (k != NULL && v != NULL &&
		    strcmp(k, SW_TAG_CLUSTER_ID) == 0 && strcmp(v, id) == 0)
			return 1;
	}
	return 0;
}

json_object *
sw_tag_spec(struct sw_step *s, const char *rtype, const char *name)
{
	json_object *tags = sw_tag_list(s);

	json_object_array_add(
	    tags, sw_jo("Key", sw_js("Name"), "Value", sw_js(name), NULL));
	json_object_array_add(tags,
	    sw_jo("Key", sw_js(SW_TAG_MANAGED), "Value", sw_js("true"), NULL));
	return sw_ja(sw_jo("ResourceType", sw_js(rtype), "Tags", tags, NULL));
}

json_object *
sw_tag_filter(struct sw_step *s, const char *name)
{
	json_object *f;

	if (sw_cluster_id(s) != NULL)
		f = sw_ja(sw_jo("Name", sw_js("tag:" SW_TAG_CLUSTER_ID),
		    "Values", sw_ja(sw_js(sw_cluster_id(s))), NULL));
	else
		f = sw_ja(sw_jo("Name", sw_js("tag:" SW_TAG_CLUSTER), "Values",
		    sw_ja(sw_js(sw_json_get_str(s->params, "name"))), NULL));
	if (name != NULL)
		json_object_array_add(f,
		    sw_jo("Name", sw_js("tag:Name"), "Values",
			sw_ja(sw_js(name)), NULL));
	return f;
}

/* ---- the runner ------------------------------------------------------ */

static int
stage_index(json_object *stages, const char *state)
{
	size_t i;

	for (i = 0; i < json_object_array_length(stages); i++)
		if (strcmp(sw_json_get_str(
			       json_object_array_get_idx(stages, i), "state"),
			state) == 0)
			return (int)i;
	return -1;
}

/* {stage name: resources} from an operation document. */
static json_object *
all_resources(json_object *op)
{
	json_object *stages = sw_json_get(op, "stages"), *all, *st;
	size_t i;

	all = json_object_new_object();
	for (i = 0; i < json_object_array_length(stages); i++) {
		st = json_object_array_get_idx(stages, i);
		json_object_object_add(all, sw_json_get_str(st, "name"),
		    json_object_get(sw_json_get(st, "resources")));
	}
	return all;
}

sw_err
sw_step_forget(struct sw_step *s, const char *name, const char *id)
{
	sw_err e;

	if (s->lease == NULL)
		return sw_cluster_forget(s->db, name, id);
	if ((e = sw_lease_begin(s->db, s->lease)) != SW_OK)
		return e;
	return fenced_end(s->db, sw_cluster_forget(s->db, name, id));
}

/* End the operation: its result, state and event in one transaction
 * under the lease. */
static sw_err
op_finish(struct sw_db *db, struct sw_lease *lease, const char *state,
    const char *error, json_object *all)
{
	const char *id = lease->id;
	sw_err e;

	if ((e = sw_lease_begin(db, lease)) != SW_OK)
		return e;
	if ((e = sw_op_set_result(db, id, all)) == SW_OK &&
	    (e = sw_op_set_state(db, id, state, error)) == SW_OK)
		e = sw_op_event(db, id, -1,
		    strcmp(state, "succeeded") == 0 ? "info" : "error",
		    strcmp(state, "succeeded") == 0 ? "operation succeeded"
			: error                     ? error
						    : state,
		    NULL);
	return fenced_end(db, e);
}

/*
 * Under the lease, in one transaction: stage seq's new state (when
 * state is not NULL, with error) and an event (when msg is not NULL).
 */
static sw_err
stage_write(struct sw_db *db, struct sw_lease *lease, int seq,
    const char *state, const char *error, const char *msg)
{
	sw_err e;

	if ((e = sw_lease_begin(db, lease)) != SW_OK)
		return e;
	if (state != NULL)
		e = sw_stage_set_state(db, lease->id, seq, state, error);
	if (e == SW_OK && msg != NULL)
		e = sw_op_event(db, lease->id, seq, "info", msg, NULL);
	return fenced_end(db, e);
}

/* Under the lease: the operation waits, why (an event and its error). */
static sw_err
op_waits(struct sw_db *db, struct sw_lease *lease, int seq, const char *why)
{
	sw_err e;

	if ((e = sw_lease_begin(db, lease)) != SW_OK)
		return e;
	if ((e = sw_op_event(db, lease->id, seq, "info", why, NULL)) == SW_OK)
		e = sw_op_set_state(db, lease->id, "running", why);
	return fenced_end(db, e);
}

/* Stages in the pipeline's table: the bound for a stage index. */
static int
stage_count(const struct sw_pipeline *pl)
{
	int n = 0;

	while (pl->stages[n].name != NULL)
		n++;
	return n;
}

/*
 * The contexts for the calls of op.  *svc: Slipway's own identity where
 * op's cluster lives: aws itself for Slipway's account and region, else
 * a session of the member role of the cluster's account, in its region
 * (cloud/aws_member.h).  *out: for a cluster of Slipway's own account
 * and region with a person role configured, a session of it whose
 * SourceIdentity is the one who asked, else *svc.  0, else -1 for a
 * failure worth trying again (transport, throttling) or 1 for a refusal
 * (why says which); never the service's own credentials in place of a
 * refused person or account.
 */
static int
person_aws(struct sw_db *db, struct aws_ctx *aws, const struct sw_config *cfg,
    json_object *op, struct aws_ctx **svc, struct aws_ctx **out, char *why,
    size_t whysz)
{
	const char *who = sw_json_get_str(op, "requested_by");
	const char *cluster = sw_json_get_str(op, "cluster");
	struct sw_cluster_rec rec;
	struct aws_error err;
	char role[2049];

	memset(&err, 0, sizeof(err));
	if (cluster == NULL || sw_cluster_get(db, cluster, &rec) != SW_OK)
		memset(&rec, 0, sizeof(rec));
	if (aws_member_ctx(aws, cfg, rec.account, rec.region, svc, role,
		sizeof(role), &err) != SW_OK) {
		sw_fmt_text(why, whysz,
		    "cannot reach account %s: "
		    "sts:AssumeRole of %s: %s %s",
		    rec.account, role, err.code[0] ? err.code : "error",
		    err.message);
		return err.retryable || err.transport ? -1 : 1;
	}
	*out = *svc;
	if (*svc != aws)
		return 0;
	if (aws_person_ctx(aws, cfg, who, out, &err) == SW_OK)
		return 0;
	sw_fmt_text(why, whysz,
	    "cannot act for %s: sts:AssumeRole of %s: "
	    "%s %s",
	    who, sw_config_person_role(cfg), err.code[0] ? err.code : "error",
	    err.message);
	return err.retryable || err.transport || err.code[0] == '\0' ? -1 : 1;
}

struct aws_ctx *
sw_cluster_aws(struct sw_db *db, struct aws_ctx *aws,
    const struct sw_config *cfg, const char *cluster)
{
	struct sw_cluster_rec rec;
	struct aws_ctx *out;
	struct aws_error err;
	char role[2049];

	memset(&err, 0, sizeof(err));
	if (cluster == NULL || sw_cluster_get(db, cluster, &rec) != SW_OK)
		return aws;
	if (aws_member_ctx(aws, cfg, rec.account, rec.region, &out, role,
		sizeof(role), &err) == SW_OK)
		return out;
	sw_warn("cluster %s: cannot reach account %s: sts:AssumeRole of %s: "
		"%s %s",
	    cluster, rec.account, role, err.code[0] ? err.code : "error",
	    err.message);
	return NULL;
}

/* Delay before a run whose state write failed is tried again. */
#define RUNNER_RETRY_MS 2000

/*
 * Every state write is checked: crash-resume depends on them.  When one
 * fails the run stops where it is, the operation is released to be run
 * again a little later (every stage is an "ensure" step, so running it
 * again is safe), and the error is returned; a stage whose resources
 * could not be recorded is never marked succeeded.
 */
sw_err
sw_pipeline_advance(struct sw_db *db, struct aws_ctx *aws,
    const struct sw_config *cfg, struct sw_lease *lease, int64_t budget_ms,
    int *calls)
{
	const char *op_id = lease->id;
	const struct sw_pipeline *pl;
	json_object *op = NULL, *stages, *all = NULL, *st;
	int64_t deadline = sw_now_ms() + budget_ms, delay = 0;
	struct sw_step s;
	struct aws_ctx *paws, *saws;
	enum sw_step_rc rc;
	char why[600];
	int seq, nstages, rc2;
	sw_err e = SW_OK;

	*calls = 0;
	/* A failed read gives the operation back too: returning with
	 * the lease held would stall it for the whole lease. */
	if ((e = sw_op_get(db, op_id, 0, 0, &op)) != SW_OK) {
		op = NULL;
		goto retry;
	}
	if ((pl = sw_pipeline_find(sw_json_get_str(op, "kind"))) == NULL) {
		e = op_finish(
		    db, lease, "failed", "no pipeline for this kind", NULL);
		goto out;
	}
	nstages = stage_count(pl);
	if ((rc2 = person_aws(
		 db, aws, cfg, op, &saws, &paws, why, sizeof(why))) < 0) {
		sw_warn("operation %s: %s; tried again later", op_id, why);
		e = SW_EUPSTREAM;
		goto retry;
	}
	if (rc2 > 0) {
		e = op_finish(db, lease, "failed", why, NULL);
		goto out;
	}
	for (;;) {
		json_object_put(all);
		json_object_put(op);
		all = NULL;
		if ((e = sw_op_get(db, op_id, 0, 0, &op)) != SW_OK) {
			op = NULL;
			goto retry;
		}
		stages = sw_json_get(op, "stages");
		all = all_resources(op);
		if (sw_json_get_bool(op, "cancel_requested", 0)) {
			if ((seq = stage_index(stages, "running")) >= 0 &&
			    (e = stage_write(db, lease, seq, "cancelled",
				 "cancelled by request", NULL)) != SW_OK)
				goto retry;
			e = op_finish(db, lease, "cancelled",
			    "cancelled by request", all);
			break;
		}
		/* A failed stage in a live operation: the write that ended
		 * the operation was lost.  End it now; never run past it. */
		if ((seq = stage_index(stages, "failed")) >= 0) {
			st = json_object_array_get_idx(stages, (size_t)seq);
			sw_fmt_text(why, sizeof(why), "stage %s failed: %s",
			    sw_json_get_str(st, "name"),
			    sw_json_get_str(st, "error")
				? sw_json_get_str(st, "error")
				: "");
			e = op_finish(db, lease, "failed", why, all);
			break;
		}
		if ((seq = stage_index(stages, "running")) < 0 &&
		    (seq = stage_index(stages, "pending")) < 0) {
			e = op_finish(db, lease, "succeeded", NULL, all);
			break;
		}
		st = json_object_array_get_idx(stages, (size_t)seq);
		/* The stored stages must be this pipeline's, in its order. */
		if (seq >= nstages ||
		    (int)json_object_array_length(stages) != nstages ||
		    strcmp(sw_json_get_str(st, "name"), pl->stages[seq].name) !=
			0) {
			e = op_finish(db, lease, "failed",
			    "the stored stages do "
			    "not match this pipeline; the operation was "
			    "recorded by another version",
			    all);
			break;
		}
		if (strcmp(sw_json_get_str(st, "state"), "pending") == 0) {
			sw_fmt_text(why, sizeof(why), "stage %s started",
			    pl->stages[seq].name);
			if ((e = stage_write(db, lease, seq, "running", NULL,
				 why)) != SW_OK)
				goto retry;
			/* Test hook: die at the boundary, the stage recorded
			 * as started and nothing of it done. */
			if (sw_fmt(why, sizeof(why), "stage:%s",
				pl->stages[seq].name) == SW_OK)
				sw_fault_kill_after(why);
		}
		memset(&s, 0, sizeof(s));
		s.db = db;
		s.lease = lease;
		s.aws = paws;
		s.svc_aws = saws;
		s.cfg = cfg;
		s.op_id = op_id;
		s.seq = seq;
		s.stage = pl->stages[seq].name;
		s.params = sw_json_get(op, "params");
		s.res = json_object_get(sw_json_get(st, "resources"));
		if (s.res == NULL)
			s.res = json_object_new_object();
		s.all = all;
		rc = step_run(pl->stages[seq].fn, &s);
		*calls += s.calls_made;
		e = sw_step_save(&s);
		json_object_put(s.res);
		if (e != SW_OK) {
			sw_error("operation %s stage %s: cannot record its "
				 "resources (%s); it runs again",
			    op_id, pl->stages[seq].name, sw_err_slug(e));
			goto retry;
		}
		if (rc == STEP_DONE) {
			sw_fmt_text(why, sizeof(why), "stage %s succeeded",
			    pl->stages[seq].name);
			if ((e = stage_write(db, lease, seq, "succeeded", NULL,
				 why)) != SW_OK)
				goto retry;
			if (sw_now_ms() < deadline)
				continue;
			delay = 0;
			break;
		}
		if (rc == STEP_FAIL) {
			if ((e = stage_write(db, lease, seq, "failed", s.msg,
				 NULL)) != SW_OK)
				goto retry;
			sw_fmt_text(why, sizeof(why), "stage %s failed: %s",
			    pl->stages[seq].name, s.msg);
			e = op_finish(db, lease, "failed", why, all);
			break;
		}
		/* STEP_WAIT: note what we wait for, once per change. */
		if (strcmp(s.msg,
			sw_json_get_str(op, "error")
			    ? sw_json_get_str(op, "error")
			    : "") != 0 &&
		    (e = op_waits(db, lease, seq, s.msg)) != SW_OK)
			goto retry;
		delay = s.wait_ms > 0 ? s.wait_ms : 1000;
		break;
	}
	if (e != SW_OK)
		goto retry;
out:
	sw_lease_release(db, lease, delay);
	json_object_put(all);
	json_object_put(op);
	return e;
retry:
	if (sw_lease_release(db, lease, RUNNER_RETRY_MS) != SW_OK)
		sw_error("operation %s: cannot release it; its lease runs "
			 "out instead",
		    op_id);
	json_object_put(all);
	json_object_put(op);
	return e;
}

sw_err
sw_pipeline_plan(struct aws_ctx *aws, const struct sw_config *cfg,
    const char *kind, json_object *params, json_object **plan,
    json_object **waits)
{
	const struct sw_pipeline *pl = sw_pipeline_find(kind);
	struct sw_step s;
	json_object *all;
	int i, guard;
	enum sw_step_rc rc = STEP_DONE;

	*plan = NULL;
	if (waits != NULL)
		*waits = NULL;
	if (pl == NULL)
		return SW_EINTERNAL;
	all = json_object_new_object();
	memset(&s, 0, sizeof(s));
	s.aws = aws;
	s.svc_aws = aws;
	s.cfg = cfg;
	s.op_id = "op-dryrun";
	s.params = params;
	s.all = all;
	s.plan = 1;
	s.calls = json_object_new_array();
	s.waits = json_object_new_array();
	for (i = 0; pl->stages[i].name != NULL; i++) {
		s.seq = i;
		s.stage = pl->stages[i].name;
		s.res = json_object_new_object();
		for (guard = 0; guard < 50; guard++) {
			rc = step_run(pl->stages[i].fn, &s);
			if (rc != STEP_WAIT || s.unavailable)
				break;
		}
		json_object_object_add(all, s.stage, s.res);
		if (rc == STEP_FAIL || s.unavailable) {
			json_object_array_add(s.calls,
			    sw_jo("stage", sw_js(s.stage), "refused",
				sw_js(s.msg), NULL));
			break;
		}
	}
	json_object_put(all);
	*plan = s.calls;
	if (waits != NULL)
		*waits = s.waits;
	else
		json_object_put(s.waits);
	if (s.unavailable)
		return SW_EUNAVAIL;
	return rc == STEP_FAIL ? SW_EPRECONDITION : SW_OK;
}
