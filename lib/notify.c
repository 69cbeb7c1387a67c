/*
 * notify.c: subscriptions and the notification outbox (see notify.h).
 * Every statement is a row of lib/db.c; the outbox rows of operations,
 * stages and budgets are written by the schema's triggers; the poller's
 * own events (training_plan.expiring) by sw_notify_emit.
 */
#include <stdio.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/notify.h"
#include "lib/ops.h"

const char *const sw_notify_kinds[] = { "operation.succeeded",
	"operation.failed", "operation.cancelled", "stage.succeeded",
	"stage.failed", "budget.threshold", "job.failed", "job.succeeded",
	"job.preempted", "job.recovered", "endpoint.failed",
	"endpoint.recovered", "node.unhealthy", "node.recovered",
	"cluster.event", "training_plan.expiring", NULL };
const char *const sw_notify_targets[] = { "webhook", "sns", "eventbridge",
	NULL };
const char *const sw_notify_formats[] = { "slipway", "slack", NULL };

sw_err
sw_sub_create(struct sw_db *db, const struct sw_sub_new *n)
{
	struct sw_st *st;
	char kinds[512];
	sw_err e;

	/* Stored between commas, so a trigger finds ",kind," in it. */
	if ((e = sw_fmt(kinds, sizeof(kinds), ",%s,", n->kinds)) != SW_OK)
		return SW_EINVAL;
	if ((st = sw_db_stmt(db, STMT_SUB_INSERT)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, n->name);
	sw_bind_text(st, 2, n->target);
	sw_bind_text(st, 3, n->address);
	sw_bind_opt(st, 4, n->secret);
	sw_bind_text(st, 5, n->format);
	sw_bind_text_copy(st, 6, kinds);
	sw_bind_opt(st, 7, n->cluster);
	sw_bind_text(st, 8, n->created_by);
	sw_bind_int64(st, 9, sw_db_now_ms(db));
	sw_bind_opt(st, 10, n->team);
	return sw_db_exec(db, st);
}

/* ",a,b," as the array ["a", "b"]. */
static json_object *
kinds_array(const char *s)
{
	json_object *a = json_object_new_array();
	const char *p, *q;

	for (p = s; *p != '\0'; p = q) {
		while (*p == ',')
			p++;
		for (q = p; *q != '\0' && *q != ','; q++)
			;
		if (q > p)
			json_object_array_add(
			    a, json_object_new_string_len(p, (int)(q - p)));
	}
	return a;
}

static json_object *
sub_row(struct sw_st *st)
{
	json_object *o = json_object_new_object();

	sw_json_add_str(o, "name", sw_col_text(st, 0));
	sw_json_add_str(o, "target", sw_col_text(st, 1));
	sw_json_add_str(o, "address", sw_col_text(st, 2));
	sw_json_add_bool(o, "secret_set", sw_col_int(st, 3));
	sw_json_add_str(o, "format", sw_col_text(st, 4));
	json_object_object_add(o, "events", kinds_array(sw_col_text(st, 5)));
	if (!sw_col_null(st, 6))
		sw_json_add_str(o, "cluster", sw_col_text(st, 6));
	sw_json_add_str(o, "created_by", sw_col_text(st, 7));
	sw_json_add_int(o, "created_ms", sw_col_int64(st, 8));
	sw_json_add_int(o, "pending", sw_col_int64(st, 9));
	sw_json_add_int(o, "delivered", sw_col_int64(st, 10));
	sw_json_add_int(o, "dead", sw_col_int64(st, 11));
	if (!sw_col_null(st, 12))
		sw_json_add_str(o, "team", sw_col_text(st, 12));
	return o;
}

sw_err
sw_sub_list(struct sw_db *db, const char *name, json_object **out)
{
	struct sw_st *st;
	json_object *arr;
	int rc;

	*out = NULL;
	if ((st = sw_db_stmt(db, STMT_SUB_LIST)) == NULL)
		return SW_EDB;
	sw_bind_opt(st, 1, name);
	arr = json_object_new_array();
	while ((rc = sw_db_step(st)) == SW_DB_ROW)
		json_object_array_add(arr, sub_row(st));
	sw_reset(st);
	if (rc != SW_DB_DONE) {
		json_object_put(arr);
		return sw_db_err(db, rc);
	}
	if (name != NULL && json_object_array_length(arr) == 0) {
		json_object_put(arr);
		return SW_ENOTFOUND;
	}
	*out = arr;
	return SW_OK;
}

sw_err
sw_sub_delete(struct sw_db *db, const char *name)
{
	struct sw_st *st;
	sw_err e;

	if ((st = sw_db_stmt(db, STMT_SUB_DELETE)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, name);
	if ((e = sw_db_exec(db, st)) != SW_OK)
		return e;
	return sw_db_changes(db) > 0 ? SW_OK : SW_ENOTFOUND;
}

static void
add_opt_str(json_object *o, const char *key, struct sw_st *st, int col)
{
	if (!sw_col_null(st, col))
		sw_json_add_str(o, key, sw_col_text(st, col));
}

static void
add_opt_int(json_object *o, const char *key, struct sw_st *st, int col)
{
	if (!sw_col_null(st, col))
		sw_json_add_int(o, key, sw_col_int64(st, col));
}

static json_object *
delivery_row(struct sw_st *st)
{
	json_object *o = json_object_new_object();

	sw_json_add_str(o, "event_id", sw_col_text(st, 0));
	sw_json_add_str(o, "kind", sw_col_text(st, 1));
	/* a budget's event has no operation (op_id ''), but a budget */
	if (*sw_col_text(st, 2) != '\0')
		sw_json_add_str(o, "operation_id", sw_col_text(st, 2));
	add_opt_str(o, "budget", st, 12);
	add_opt_str(o, "subject", st, 13);
	add_opt_str(o, "cluster", st, 3);
	sw_json_add_int(o, "time_ms", sw_col_int64(st, 4));
	sw_json_add_str(o, "subscription", sw_col_text(st, 5));
	sw_json_add_str(o, "state", sw_col_text(st, 6));
	sw_json_add_int(o, "attempts", sw_col_int64(st, 7));
	if (strcmp(sw_col_text(st, 6), "pending") == 0)
		sw_json_add_int(o, "next_attempt_ms", sw_col_int64(st, 8));
	add_opt_str(o, "last_error", st, 9);
	add_opt_int(o, "done_ms", st, 10);
	sw_json_add_int(o, "seq", sw_col_int64(st, 11));
	return o;
}

sw_err
sw_delivery_list(struct sw_db *db, const char *state, const char *sub,
    int64_t before, int limit, json_object **out)
{
	struct sw_st *st;
	json_object *arr;
	int rc;

	*out = NULL;
	if ((st = sw_db_stmt(db, STMT_DELIVERY_LIST)) == NULL)
		return SW_EDB;
	sw_bind_opt(st, 1, state);
	sw_bind_opt(st, 2, sub);
	if (before > 0)
		sw_bind_int64(st, 3, before);
	sw_bind_int64(st, 4, limit);
	arr = json_object_new_array();
	while ((rc = sw_db_step(st)) == SW_DB_ROW)
		json_object_array_add(arr, delivery_row(st));
	sw_reset(st);
	if (rc != SW_DB_DONE) {
		json_object_put(arr);
		return sw_db_err(db, rc);
	}
	*out = arr;
	return SW_OK;
}

sw_err
sw_delivery_due(struct sw_db *db, int64_t now, struct sw_delivery_ref *refs,
    size_t max, size_t *n)
{
	struct sw_st *st;
	int rc;

	*n = 0;
	if ((st = sw_db_stmt(db, STMT_DELIVERY_DUE)) == NULL)
		return SW_EDB;
	sw_bind_int64(st, 1, now);
	sw_bind_int64(st, 2, (int64_t)max);
	while ((rc = sw_db_step(st)) == SW_DB_ROW && *n < max) {
		refs[*n].event_id = sw_col_int64(st, 0);
		/* A name too long to hold is none the API made: skipped. */
		if (sw_fmt(refs[*n].sub, sizeof(refs[0].sub), "%s",
			sw_col_text(st, 1)) == SW_OK)
			(*n)++;
	}
	sw_reset(st);
	return rc == SW_DB_DONE || rc == SW_DB_ROW ? SW_OK : sw_db_err(db, rc);
}

static sw_err
delivery_read(
    struct sw_db *db, const struct sw_delivery_ref *ref, json_object **doc)
{
	struct sw_st *st;
	json_object *o;
	int rc;

	if ((st = sw_db_stmt(db, STMT_DELIVERY_READ)) == NULL)
		return SW_EDB;
	sw_bind_int64(st, 1, ref->event_id);
	sw_bind_text(st, 2, ref->sub);
	if ((rc = sw_db_step(st)) != SW_DB_ROW) {
		sw_reset(st);
		return rc == SW_DB_DONE ? SW_ENOTFOUND : sw_db_err(db, rc);
	}
	o = json_object_new_object();
	sw_json_add_str(o, "uid", sw_col_text(st, 0));
	sw_json_add_str(o, "kind", sw_col_text(st, 1));
	sw_json_add_str(o, "op_id", sw_col_text(st, 2));
	add_opt_str(o, "cluster", st, 3);
	sw_json_add_int(o, "time_ms", sw_col_int64(st, 4));
	sw_json_add_str(o, "data", sw_col_text(st, 5));
	sw_json_add_str(o, "target", sw_col_text(st, 6));
	sw_json_add_str(o, "address", sw_col_text(st, 7));
	add_opt_str(o, "secret", st, 8);
	sw_json_add_str(o, "format", sw_col_text(st, 9));
	sw_json_add_int(o, "attempts", sw_col_int64(st, 10));
	sw_reset(st);
	*doc = o;
	return SW_OK;
}

sw_err
sw_delivery_take(struct sw_db *db, const struct sw_delivery_ref *ref,
    const char *owner, int64_t lease_ms, json_object **doc)
{
	struct sw_st *st;
	int64_t now;
	sw_err e;

	*doc = NULL;
	/* another poller compares this lease's end with its now */
	if ((e = sw_db_clock_ms(db, &now)) != SW_OK)
		return e;
	if ((st = sw_db_stmt(db, STMT_DELIVERY_TAKE)) == NULL)
		return SW_EDB;
	sw_bind_int64(st, 1, ref->event_id);
	sw_bind_text(st, 2, ref->sub);
	sw_bind_text(st, 3, owner);
	sw_bind_int64(st, 4, now + lease_ms);
	sw_bind_int64(st, 5, now);
	if ((e = sw_db_exec(db, st)) != SW_OK)
		return e;
	if (sw_db_changes(db) != 1)
		return SW_ECONFLICT;
	return delivery_read(db, ref, doc);
}

sw_err
sw_delivery_done(
    struct sw_db *db, const struct sw_delivery_ref *ref, const char *owner)
{
	struct sw_st *st;

	if ((st = sw_db_stmt(db, STMT_DELIVERY_DONE)) == NULL)
		return SW_EDB;
	sw_bind_int64(st, 1, ref->event_id);
	sw_bind_text(st, 2, ref->sub);
	sw_bind_text(st, 3, owner);
	sw_bind_int64(st, 4, sw_db_now_ms(db));
	return sw_db_exec(db, st);
}

sw_err
sw_delivery_retry(struct sw_db *db, const struct sw_delivery_ref *ref,
    const char *owner, int64_t delay_ms, const char *error, int max_attempts)
{
	struct sw_st *st;
	int64_t now;
	sw_err e;

	if ((e = sw_db_clock_ms(db, &now)) != SW_OK)
		return e;
	if ((st = sw_db_stmt(db, STMT_DELIVERY_RETRY)) == NULL)
		return SW_EDB;
	sw_bind_int64(st, 1, ref->event_id);
	sw_bind_text(st, 2, ref->sub);
	sw_bind_text(st, 3, owner);
	sw_bind_int64(st, 4, now + delay_ms);
	sw_bind_opt(st, 5, error);
	sw_bind_int64(st, 6, max_attempts);
	sw_bind_int64(st, 7, now);
	return sw_db_exec(db, st);
}

int
sw_delivery_release_dead(struct sw_db *db, const char *mine,
    int (*alive)(const char *, void *), void *arg)
{
	char owners[16][64];
	struct sw_st *st;
	int n = 0, i, released = 0;

	if ((st = sw_db_stmt(db, STMT_DELIVERY_OWNERS)) == NULL)
		return 0;
	sw_bind_text(st, 1, mine);
	while (n < 16 && sw_db_step(st) == SW_DB_ROW)
		if (sw_fmt(owners[n], sizeof(owners[0]), "%s",
			sw_col_text(st, 0)) == SW_OK)
			n++;
	sw_reset(st);
	for (i = 0; i < n; i++) {
		if (alive(owners[i], arg))
			continue;
		if ((st = sw_db_stmt(db, STMT_DELIVERY_RELEASE_OWNER)) == NULL)
			break;
		sw_bind_text(st, 1, owners[i]);
		if (sw_db_exec(db, st) == SW_OK)
			released++;
	}
	return released;
}

sw_err
sw_watch_seen(struct sw_db *db, const char *cluster, json_object **out)
{
	struct sw_st *st;
	char key[1024];
	int rc;

	*out = NULL;
	if ((st = sw_db_stmt(db, STMT_WATCH_SEEN)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, cluster);
	*out = json_object_new_object();
	while ((rc = sw_db_step(st)) == SW_DB_ROW)
		if (sw_fmt(key, sizeof(key), "%s %s", sw_col_text(st, 0),
			sw_col_text(st, 1)) == SW_OK)
			sw_json_add_str(*out, key, sw_col_text(st, 2));
	return sw_db_rows_end(db, st, rc, out);
}

sw_err
sw_watch_put(struct sw_db *db, const struct sw_watch_obs *w)
{
	struct sw_st *st;

	if ((st = sw_db_stmt(db, STMT_WATCH_PUT)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, w->cluster);
	sw_bind_text(st, 2, w->kind);
	sw_bind_text(st, 3, w->key);
	sw_bind_text(st, 4, w->state);
	sw_bind_opt(st, 5, w->team);
	sw_bind_int64(st, 6, w->time_ms);
	sw_bind_opt(st, 7, w->event);
	sw_bind_opt(st, 8, w->data);
	return sw_db_exec(db, st);
}

sw_err
sw_watch_drop(
    struct sw_db *db, const char *cluster, const char *kind, const char *key)
{
	struct sw_st *st;

	if ((st = sw_db_stmt(db, STMT_WATCH_DROP)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, cluster);
	sw_bind_text(st, 2, kind);
	sw_bind_text(st, 3, key);
	return sw_db_exec(db, st);
}

/* The uid of an event keyed by once, or a fresh one. */
static sw_err
event_uid(const char *once, char *uid, size_t size)
{
	char hex[25];

	if (once != NULL)
		return sw_fmt(uid, size, "ev-%s", once);
	if (sw_random_hex(hex, 12) != SW_OK)
		return SW_EINTERNAL;
	return sw_fmt(uid, size, "ev-%s", hex);
}

static sw_err
emit_rows(struct sw_db *db, const char *kind, const char *cluster,
    const char *uid, json_object *data, int *fresh)
{
	struct sw_st *st;
	int64_t now, id;
	sw_err e;

	/* due at once on the clock the pollers compare with, as the
	 * triggers' events are */
	if ((e = sw_db_clock_ms(db, &now)) != SW_OK)
		return e;
	if ((st = sw_db_stmt(db, STMT_NOTIFY_EVENT_ADD)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, uid);
	sw_bind_text(st, 2, kind);
	sw_bind_opt(st, 3, cluster);
	sw_bind_int64(st, 4, now);
	sw_bind_text_copy(st, 5, sw_json_str(data));
	if ((e = sw_db_exec(db, st)) != SW_OK)
		return e;
	if (sw_db_changes(db) != 1)
		return SW_OK;
	id = sw_db_last_id(db);
	if ((st = sw_db_stmt(db, STMT_NOTIFY_DELIVERIES_ADD)) == NULL)
		return SW_EDB;
	sw_bind_int64(st, 1, id);
	sw_bind_int64(st, 2, now);
	sw_bind_text(st, 3, kind);
	sw_bind_opt(st, 4, cluster);
	if ((e = sw_db_exec(db, st)) == SW_OK)
		*fresh = 1;
	return e;
}

sw_err
sw_notify_emit(struct sw_db *db, const char *kind, const char *cluster,
    const char *once, json_object *data, int *fresh)
{
	char uid[160];
	int wrote = 0;
	sw_err e;

	if (fresh != NULL)
		*fresh = 0;
	if ((e = event_uid(once, uid, sizeof(uid))) != SW_OK)
		return SW_EINVAL;
	if ((e = sw_db_begin(db)) != SW_OK)
		return e;
	if ((e = emit_rows(db, kind, cluster, uid, data, &wrote)) != SW_OK) {
		sw_db_rollback(db);
		return e;
	}
	if ((e = sw_db_commit(db)) != SW_OK)
		return e;
	if (fresh != NULL)
		*fresh = wrote;
	return SW_OK;
}

int
sw_notify_seen(struct sw_db *db, const char *once)
{
	struct sw_st *st;
	char uid[160];
	int rc;

	if (event_uid(once, uid, sizeof(uid)) != SW_OK ||
	    (st = sw_db_stmt(db, STMT_NOTIFY_EVENT_SEEN)) == NULL)
		return 0;
	sw_bind_text(st, 1, uid);
	rc = sw_db_step(st);
	sw_reset(st);
	return rc == SW_DB_ROW;
}
