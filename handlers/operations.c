/*
 * operations.c: list, read, wait for, retry and cancel operations.
 * operation_wait is the agent's alternative to blind sleeps: it holds
 * the request (bounded by SW_MAX_WAIT) until the operation changes,
 * woken by a watch of the database (sw_db_wait: PostgreSQL's NOTIFY,
 * SQLite's file watch) rather than reading it over and over.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "handlers/handlers.h"
#include "lib/db.h"
#include "lib/json.h"
#include "lib/limits.h"
#include "lib/metrics.h"
#include "lib/ops.h"
#include "api/optable.h"
#include "api/router.h"

sw_err
h_accepted(struct sw_req *r, const char *op_id, int existed)
{
	return sw_route_accepted(r, op_id, existed);
}

sw_err
h_op_list(struct sw_req *r)
{
	struct sw_op_filter f;
	json_object *o;
	sw_err e;

	memset(&f, 0, sizeof(f));
	f.kind = sw_json_get_str(r->args, "kind");
	f.state = sw_json_get_str(r->args, "state");
	f.cluster = sw_json_get_str(r->args, "cluster");
	f.token_name = sw_json_get_str(r->args, "requested_by");
	f.cursor = sw_json_get_str(r->args, "cursor");
	f.limit = (int)sw_json_get_int(r->args, "limit", 50);
	if ((e = sw_op_list(r->db, &f, &o)) != SW_OK)
		return sw_req_fail(r, e, "cannot list operations");
	sw_req_reply(r, 200, o);
	return SW_OK;
}

sw_err
h_op_get(struct sw_req *r)
{
	const char *id = sw_json_get_str(r->args, "id");
	json_object *o;
	sw_err e;

	e = sw_op_get(
	    r->db, id, 1, sw_json_get_int(r->args, "since_event", 0), &o);
	if (e == SW_ENOTFOUND)
		return sw_req_fail(r, e, "no operation %s", id);
	if (e != SW_OK)
		return sw_req_fail(r, e, "cannot read operation %s", id);
	sw_req_reply(r, 200, o);
	return SW_OK;
}

/* Nap SW_WAIT_NAP_MS (and not past the deadline, left ms away): the
 * wait of a worker whose watch of the database is missing or broken. */
static void
op_wait_nap(int64_t left)
{
	struct timespec nap = { 0, 0 };

	if (left > SW_WAIT_NAP_MS)
		left = SW_WAIT_NAP_MS;
	nap.tv_nsec = (long)left * 1000 * 1000;
	nanosleep(&nap, NULL);
	sw_metric_add(
	    "slipway_operation_wait_wakes_total", 1, "by", "nap", NULL);
}

/*
 * Until a change that may concern operation id, or deadline: a
 * notification naming it ("notification"), or one that cannot say what
 * changed ("change": SQLite's file watch, a mended link).  Notifications
 * of other operations are let pass.
 */
static void
op_wait_change(struct sw_db_watch *w, const char *id, int64_t deadline)
{
	char what[128], want[128];
	int64_t left;
	int rc;

	sw_fmt_text(want, sizeof(want), "op %s", id);
	while ((left = deadline - sw_now_ms()) > 0) {
		if (w == NULL) {
			op_wait_nap(left);
			return;
		}
		if ((rc = sw_db_wait(w, (int)left, what, sizeof(what))) < 0) {
			op_wait_nap(left);
			return;
		}
		if (rc == 0)
			return;
		if (what[0] == '\0' || strcmp(what, want) == 0) {
			sw_metric_add("slipway_operation_wait_wakes_total", 1,
			    "by", what[0] != '\0' ? "notification" : "change",
			    NULL);
			return;
		}
	}
}

/* The watch is opened before the first read, so a change between a read
 * and the wait after it still wakes the wait. */
sw_err
h_op_wait(struct sw_req *r)
{
	const char *id = sw_json_get_str(r->args, "id");
	int64_t since = sw_json_get_int(r->args, "since_updated_ms", -1);
	int64_t timeout_ms = sw_json_get_int(r->args, "timeout", 20) * 1000;
	int64_t deadline = sw_now_ms() + timeout_ms, updated;
	struct sw_db_watch *w = NULL;
	char state[16];
	json_object *o;
	sw_err e;

	if (sw_db_watch_open(r->db, &w) != SW_OK)
		w = NULL; /* logged; nap instead */
	for (;;) {
		e = sw_op_updated(r->db, id, &updated, state);
		if (e != SW_OK)
			break;
		if (sw_op_state_terminal(state) ||
		    (since >= 0 && updated > since) || sw_now_ms() >= deadline)
			break;
		op_wait_change(w, id, deadline);
	}
	sw_db_watch_close(w);
	if (e == SW_ENOTFOUND)
		return sw_req_fail(r, e, "no operation %s", id);
	if (e != SW_OK)
		return sw_req_fail(r, e, "cannot read operation %s", id);
	if ((e = sw_op_get(r->db, id, 0, 0, &o)) != SW_OK)
		return sw_req_fail(r, e, "cannot read operation %s", id);
	sw_json_add_bool(o, "terminal", sw_op_state_terminal(state));
	sw_json_add_bool(o, "timed_out",
	    !sw_op_state_terminal(state) && !(since >= 0 && updated > since));
	sw_req_reply(r, 200, o);
	return SW_OK;
}

sw_err
h_op_retry(struct sw_req *r)
{
	const char *id = sw_json_get_str(r->args, "id");
	char busy[SW_OP_ID_LEN];
	sw_err e;

	if (r->dry_run)
		return sw_req_fail(r, SW_EINVAL, "dry_run is not supported");
	e = sw_op_retry(r->db, id, busy);
	if (e == SW_EBUSY)
		return h_busy(r, busy);
	if (e == SW_ENOTFOUND)
		return sw_req_fail(r, e, "no operation %s", id);
	if (e == SW_ECONFLICT)
		return sw_req_fail(r, e,
		    "only a failed or cancelled "
		    "operation can be retried");
	if (e != SW_OK)
		return sw_req_fail(r, e, "cannot retry %s", id);
	return h_accepted(r, id, 0);
}

sw_err
h_op_cancel(struct sw_req *r)
{
	const char *id = sw_json_get_str(r->args, "id");
	const char *owner;
	json_object *o;
	sw_err e;

	/* A write token cancels only what it started; admin cancels any
	 * (docs/DESIGN.md, Security). */
	e = sw_op_get(r->db, id, 0, 0, &o);
	if (e == SW_ENOTFOUND)
		return sw_req_fail(r, e, "no operation %s", id);
	if (e != SW_OK)
		return sw_req_fail(r, e, "cannot read operation %s", id);
	owner = sw_json_get_str(o, "requested_by");
	if (r->who.scope < SW_SCOPE_ADMIN &&
	    (owner == NULL || strcmp(owner, r->who.name) != 0)) {
		sw_req_fail(r, SW_EFORBIDDEN,
		    "operation %s was started by "
		    "token '%s'; only that token or an admin token may "
		    "cancel it",
		    id, owner != NULL ? owner : "(unknown)");
		json_object_put(o);
		return SW_EFORBIDDEN;
	}
	json_object_put(o);
	e = sw_op_cancel(r->db, id);
	if (e == SW_ENOTFOUND)
		return sw_req_fail(r, e, "no operation %s", id);
	if (e == SW_ECONFLICT)
		return sw_req_fail(r, e, "operation %s has already ended", id);
	if (e != SW_OK)
		return sw_req_fail(r, e, "cannot cancel %s", id);
	return h_accepted(r, id, 0);
}
