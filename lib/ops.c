/*
 * ops.c: operations, stages and events on top of the statement table
 * (see ops.h for the state machine).  Writes that must agree (an
 * operation and its stages; a retry's operation and stage updates) run
 * in one IMMEDIATE transaction so a crash never leaves half of them.
 */
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/alloc.h"
#include "lib/digest.h"
#include "lib/json.h"
#include "lib/limits.h"
#include "lib/log.h"
#include "lib/ops.h"
#include "lib/url.h"

sw_err
sw_random_hex(char *buf, size_t n)
{
	unsigned char raw[64];

	if (n > sizeof(raw) || RAND_bytes(raw, (int)n) != 1)
		return SW_EINTERNAL;
	sw_hex_encode(raw, n, buf);
	return SW_OK;
}

/* The states of an operation and what each means (see ops.h). */
#define OP_ENDED 0x1 /* the operation has ended */
#define OP_UNSUCCESSFUL \
	0x2 /* it ended without success: a retry
				 * may run it again */

static const struct {
	const char *name;
	unsigned flags;
} op_states[] = {
	{ "pending", 0 },
	{ "running", 0 },
	{ "succeeded", OP_ENDED },
	{ "failed", OP_ENDED | OP_UNSUCCESSFUL },
	{ "cancelled", OP_ENDED | OP_UNSUCCESSFUL },
};

/* The flags of state s; 0 for a state that is not one of them. */
static unsigned
op_state_flags(const char *s)
{
	size_t i;

	for (i = 0; s != NULL && i < sizeof(op_states) / sizeof(op_states[0]);
	     i++)
		if (strcmp(s, op_states[i].name) == 0)
			return op_states[i].flags;
	return 0;
}

int
sw_op_state_terminal(const char *s)
{
	return (op_state_flags(s) & OP_ENDED) != 0;
}

int
sw_op_state_unsuccessful(const char *s)
{
	return (op_state_flags(s) & OP_UNSUCCESSFUL) != 0;
}

/* SHA-256 of kind + target + params, hex: the request an idempotency
 * key stands for. */
static void
request_hash(const struct sw_op_new *n, char out[65])
{
	unsigned char md[32];
	unsigned int mdlen = 0;
	EVP_MD_CTX *ctx;
	const char *p = n->params ? sw_json_str(n->params) : "{}";

	out[0] = '\0';
	if ((ctx = EVP_MD_CTX_new()) == NULL)
		return;
	EVP_DigestInit_ex(ctx, sw_sha256(), NULL);
	EVP_DigestUpdate(ctx, n->kind, strlen(n->kind) + 1);
	EVP_DigestUpdate(ctx, n->target, strlen(n->target) + 1);
	EVP_DigestUpdate(ctx, p, strlen(p));
	EVP_DigestFinal_ex(ctx, md, &mdlen);
	EVP_MD_CTX_free(ctx);
	sw_hex_encode(md, 32, out);
}

/* Text column col into dst: 0, or -1 when it does not fit (a value
 * this code never wrote: callers treat it as a corrupt store). */
static int
col_copy(struct sw_st *st, int col, char *dst, size_t sz)
{
	return sw_fmt(dst, sz, "%s", sw_col_text(st, col)) == SW_OK ? 0 : -1;
}

/*
 * Inside a write transaction: SW_EBUSY, with the holder's id in busy,
 * when a live operation other than self holds the cluster (named, or
 * that of operation self when cluster is NULL); SW_OK when it is free.
 */
static sw_err
live_on_cluster(struct sw_db *db, const char *cluster, const char *self,
    char busy[SW_OP_ID_LEN])
{
	struct sw_st *st;
	int rc;

	if ((st = sw_db_stmt(db, STMT_OP_LIVE_ON_CLUSTER)) == NULL)
		return SW_EDB;
	if (cluster != NULL)
		sw_bind_text(st, 1, cluster);
	if (self != NULL)
		sw_bind_text(st, 2, self);
	rc = sw_db_step(st);
	if (rc == SW_DB_ROW) {
		if (snprintf(busy, SW_OP_ID_LEN, "%s", sw_col_text(st, 0)) >=
		    SW_OP_ID_LEN)
			busy[0] = '\0';
		sw_reset(st);
		return SW_EBUSY;
	}
	sw_reset(st);
	return rc == SW_DB_DONE ? SW_OK : sw_db_err(db, rc);
}

sw_err
sw_op_enqueue(struct sw_db *db, const struct sw_op_new *n,
    char id[SW_OP_ID_LEN], int *existed)
{
	struct sw_st *st;
	char hash[65], hexid[17];
	int64_t now;
	int seq, rc;
	sw_err e;

	*existed = 0;
	if (n->request_hash == NULL)
		request_hash(n, hash);
	else if (sw_fmt(hash, sizeof(hash), "%s", n->request_hash) != SW_OK)
		return SW_EINVAL;
	if ((e = sw_db_begin(db)) != SW_OK)
		return e;
	/* created, and due at once, on the clock every replica's claim
	 * compares with */
	if ((e = sw_db_clock_ms(db, &now)) != SW_OK)
		goto bad;
	if (n->idem_key != NULL) {
		if ((st = sw_db_stmt(db, STMT_OP_BY_IDEM)) == NULL) {
			e = SW_EDB;
			goto bad;
		}
		sw_bind_text(st, 1, n->token_name);
		sw_bind_text(st, 2, n->idem_key);
		if ((rc = sw_db_step(st)) == SW_DB_ROW) {
			int same = strcmp(sw_col_text(st, 1), hash) == 0;
			int fits = col_copy(st, 0, id, SW_OP_ID_LEN) == 0;

			sw_reset(st);
			sw_db_rollback(db);
			if (!fits)
				return sw_db_err(db, SW_DB_CORRUPT);
			if (!same)
				return SW_ECONFLICT;
			*existed = 1;
			return SW_OK;
		}
		sw_reset(st);
		if (rc != SW_DB_DONE) {
			e = sw_db_err(db, rc);
			goto bad;
		}
	}
	if (n->cluster != NULL &&
	    (e = live_on_cluster(db, n->cluster, NULL, id)) != SW_OK)
		goto bad;
	if ((e = sw_random_hex(hexid, 8)) != SW_OK)
		goto bad;
	if ((e = sw_fmt(id, SW_OP_ID_LEN, "op-%s", hexid)) != SW_OK)
		goto bad;
	if ((st = sw_db_stmt(db, STMT_OP_INSERT)) == NULL) {
		e = SW_EDB;
		goto bad;
	}
	sw_bind_text(st, 1, id);
	sw_bind_text(st, 2, n->kind);
	sw_bind_text(st, 3, n->target);
	if (n->cluster)
		sw_bind_text(st, 4, n->cluster);
	sw_bind_text_copy(st, 5, n->params ? sw_json_str(n->params) : "{}");
	if (n->idem_key) {
		sw_bind_text(st, 6, n->idem_key);
		sw_bind_text(st, 7, hash);
	}
	sw_bind_text(st, 8, n->token_name);
	sw_bind_int64(st, 9, now);
	if ((e = sw_db_exec(db, st)) != SW_OK)
		goto bad;
	for (seq = 0; n->stages != NULL && n->stages[seq] != NULL; seq++) {
		if (seq >= SW_MAX_STAGES) {
			e = SW_EINTERNAL;
			goto bad;
		}
		if ((st = sw_db_stmt(db, STMT_STAGE_INSERT)) == NULL) {
			e = SW_EDB;
			goto bad;
		}
		sw_bind_text(st, 1, id);
		sw_bind_int64(st, 2, seq);
		sw_bind_text(st, 3, n->stages[seq]);
		if ((e = sw_db_exec(db, st)) != SW_OK)
			goto bad;
	}
	if ((st = sw_db_stmt(db, STMT_EVENT_INSERT)) == NULL) {
		e = SW_EDB;
		goto bad;
	}
	sw_bind_text(st, 1, id);
	sw_bind_int64(st, 2, now);
	sw_bind_text(st, 4, "info");
	sw_bind_text(st, 5, "operation requested");
	if ((e = sw_db_exec(db, st)) != SW_OK)
		goto bad;
	return sw_db_commit(db);
bad:
	sw_db_rollback(db);
	return e;
}

sw_err
sw_op_find_idem(struct sw_db *db, const char *token_name, const char *key,
    const char *hash, char id[SW_OP_ID_LEN])
{
	struct sw_st *st;
	int rc, same = 0;

	if ((st = sw_db_stmt(db, STMT_OP_BY_IDEM)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, token_name);
	sw_bind_text(st, 2, key);
	rc = sw_db_step(st);
	if (rc == SW_DB_ROW) {
		if (col_copy(st, 0, id, SW_OP_ID_LEN) != 0)
			rc = SW_DB_CORRUPT;
		same = strcmp(sw_col_text(st, 1), hash) == 0;
	}
	sw_reset(st);
	if (rc == SW_DB_DONE)
		return SW_ENOTFOUND;
	if (rc != SW_DB_ROW)
		return sw_db_err(db, rc);
	return same ? SW_OK : SW_ECONFLICT;
}

static json_object *
parse_text_col(struct sw_st *st, int col)
{
	const char *s = sw_col_text_or_null(st, col);
	json_object *o;
	char why[64];

	if (s == NULL)
		return NULL;
	if (sw_json_parse(s, strlen(s), &o, why, sizeof(why)) != SW_OK)
		return json_object_new_string(s);
	return o;
}

/* One operation row (STMT_OP_BY_ID / STMT_OP_LIST column order). */
static json_object *
op_row_json(struct sw_st *st)
{
	json_object *o = json_object_new_object();

	sw_json_add_str(o, "id", sw_col_text(st, 0));
	sw_json_add_str(o, "kind", sw_col_text(st, 1));
	sw_json_add_str(o, "target", sw_col_text(st, 2));
	if (!sw_col_null(st, 3))
		sw_json_add_str(o, "cluster", sw_col_text(st, 3));
	json_object_object_add(o, "params", parse_text_col(st, 4));
	sw_json_add_str(o, "state", sw_col_text(st, 5));
	sw_json_add_str(o, "requested_by", sw_col_text(st, 6));
	sw_json_add_int(o, "created_ms", sw_col_int64(st, 7));
	sw_json_add_int(o, "updated_ms", sw_col_int64(st, 8));
	if (!sw_col_null(st, 9))
		json_object_object_add(o, "result", parse_text_col(st, 9));
	if (!sw_col_null(st, 10))
		sw_json_add_str(o, "error", sw_col_text(st, 10));
	sw_json_add_bool(o, "cancel_requested", sw_col_int(st, 11));
	if (!sw_col_null(st, 12))
		sw_json_add_str(o, "idempotency_key", sw_col_text(st, 12));
	sw_json_add_int(o, "due_ms", sw_col_int64(st, 13));
	return o;
}

sw_err
sw_op_get(struct sw_db *db, const char *id, int with_events, int64_t since,
    json_object **out)
{
	struct sw_st *st;
	json_object *o = NULL, *arr, *s;
	int rc;

	*out = NULL;
	if ((st = sw_db_stmt(db, STMT_OP_BY_ID)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, id);
	rc = sw_db_step(st);
	if (rc == SW_DB_ROW)
		o = op_row_json(st);
	sw_reset(st);
	if (rc == SW_DB_DONE)
		return SW_ENOTFOUND;
	if (o == NULL)
		return sw_db_err(db, rc);

	if ((st = sw_db_stmt(db, STMT_STAGE_LIST)) == NULL)
		goto bad;
	sw_bind_text(st, 1, id);
	arr = json_object_new_array();
	json_object_object_add(o, "stages", arr);
	while ((rc = sw_db_step(st)) == SW_DB_ROW) {
		s = json_object_new_object();
		sw_json_add_int(s, "seq", sw_col_int(st, 0));
		sw_json_add_str(s, "name", sw_col_text(st, 1));
		sw_json_add_str(s, "state", sw_col_text(st, 2));
		sw_json_add_int(s, "attempts", sw_col_int(st, 3));
		if (!sw_col_null(st, 4))
			sw_json_add_int(s, "started_ms", sw_col_int64(st, 4));
		if (!sw_col_null(st, 5))
			sw_json_add_int(s, "finished_ms", sw_col_int64(st, 5));
		json_object_object_add(s, "resources", parse_text_col(st, 6));
		if (!sw_col_null(st, 7))
			sw_json_add_str(s, "error", sw_col_text(st, 7));
		json_object_array_add(arr, s);
	}
	sw_reset(st);
	if (rc != SW_DB_DONE)
		goto bad;
	if (with_events) {
		if ((st = sw_db_stmt(db, STMT_EVENT_LIST)) == NULL)
			goto bad;
		sw_bind_text(st, 1, id);
		sw_bind_int64(st, 2, since);
		sw_bind_int64(st, 3, SW_MAX_EVENTS);
		arr = json_object_new_array();
		json_object_object_add(o, "events", arr);
		while ((rc = sw_db_step(st)) == SW_DB_ROW) {
			s = json_object_new_object();
			sw_json_add_int(s, "id", sw_col_int64(st, 0));
			sw_json_add_int(s, "time_ms", sw_col_int64(st, 1));
			if (!sw_col_null(st, 2))
				sw_json_add_int(s, "stage", sw_col_int(st, 2));
			sw_json_add_str(s, "level", sw_col_text(st, 3));
			sw_json_add_str(s, "message", sw_col_text(st, 4));
			if (!sw_col_null(st, 5))
				json_object_object_add(
				    s, "data", parse_text_col(st, 5));
			json_object_array_add(arr, s);
		}
		sw_reset(st);
		if (rc != SW_DB_DONE)
			goto bad;
	}
	*out = o;
	return SW_OK;
bad:
	json_object_put(o);
	return SW_EDB;
}

sw_err
sw_op_list(struct sw_db *db, const struct sw_op_filter *f, json_object **out)
{
	struct sw_st *st;
	json_object *o, *items, *last = NULL;
	int rc, n = 0, limit;
	char cur_id[SW_OP_ID_LEN] = "", next[64];
	long long cur_created = 0;

	*out = NULL;
	limit = f->limit > 0 && f->limit <= SW_MAX_PAGE ? f->limit : 50;
	if (f->cursor != NULL &&
	    sscanf(f->cursor, "%lld.%19s", &cur_created, cur_id) != 2)
		return SW_EINVAL;
	if ((st = sw_db_stmt(db, STMT_OP_LIST)) == NULL)
		return SW_EDB;
	sw_bind_opt(st, 1, f->kind);
	sw_bind_opt(st, 2, f->state);
	sw_bind_opt(st, 3, f->cluster);
	sw_bind_opt(st, 4, f->token_name);
	if (f->cursor != NULL) {
		sw_bind_int64(st, 5, cur_created);
		sw_bind_text(st, 6, cur_id);
	}
	sw_bind_int64(st, 7, limit);
	o = json_object_new_object();
	items = json_object_new_array();
	json_object_object_add(o, "items", items);
	while ((rc = sw_db_step(st)) == SW_DB_ROW) {
		last = op_row_json(st);
		json_object_array_add(items, last);
		n++;
	}
	sw_reset(st);
	if (rc != SW_DB_DONE) {
		json_object_put(o);
		return sw_db_err(db, rc);
	}
	if (n == limit && last != NULL) {
		if (sw_fmt(next, sizeof(next), "%lld.%s",
			(long long)sw_json_get_int(last, "created_ms", 0),
			sw_json_get_str(last, "id")) != SW_OK) {
			json_object_put(o);
			return SW_EINTERNAL;
		}
		sw_json_add_str(o, "next", next);
	}
	*out = o;
	return SW_OK;
}

/* Pick a due operation and take it for lease, at the database's now. */
static sw_err
claim_take(struct sw_db *db, struct sw_lease *lease, int64_t now)
{
	struct sw_st *st;
	int rc;
	sw_err e;

	if ((st = sw_db_stmt(db, STMT_OP_CLAIM_PICK)) == NULL)
		return SW_EDB;
	sw_bind_int64(st, 1, now);
	rc = sw_db_step(st);
	if (rc == SW_DB_ROW && col_copy(st, 0, lease->id, SW_OP_ID_LEN) != 0)
		rc = SW_DB_CORRUPT;
	sw_reset(st);
	if (rc == SW_DB_DONE)
		return SW_ENOTFOUND;
	if (rc != SW_DB_ROW)
		return sw_db_err(db, rc);
	if ((st = sw_db_stmt(db, STMT_OP_CLAIM_TAKE)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, lease->id);
	sw_bind_text(st, 2, lease->owner);
	sw_bind_int64(st, 3, now + lease->ms);
	sw_bind_int64(st, 4, now);
	if ((e = sw_db_exec(db, st)) != SW_OK)
		return e;
	if (sw_db_changes(db) != 1)
		return SW_ENOTFOUND;
	if ((st = sw_db_stmt(db, STMT_OP_FENCE_GET)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, lease->id);
	if ((rc = sw_db_step(st)) == SW_DB_ROW)
		lease->token = sw_col_int64(st, 0);
	sw_reset(st);
	return rc == SW_DB_ROW ? SW_OK : sw_db_err(db, rc);
}

sw_err
sw_op_claim_lease(struct sw_db *db, struct sw_lease *lease)
{
	int64_t now;
	sw_err e;

	lease->lost = 0;
	lease->rejected = 0;
	lease->token = 0;
	if ((e = sw_db_begin(db)) != SW_OK)
		return e;
	if ((e = sw_db_clock_ms(db, &now)) != SW_OK ||
	    (e = claim_take(db, lease, now)) != SW_OK) {
		sw_db_rollback(db);
		return e;
	}
	return sw_db_commit(db);
}

sw_err
sw_op_claim(struct sw_db *db, const char *owner, int64_t lease_ms,
    char id[SW_OP_ID_LEN])
{
	struct sw_lease lease;
	sw_err e;

	memset(&lease, 0, sizeof(lease));
	if (sw_fmt(lease.owner, sizeof(lease.owner), "%s", owner) != SW_OK)
		return SW_EINVAL;
	lease.ms = lease_ms;
	if ((e = sw_op_claim_lease(db, &lease)) == SW_OK)
		memcpy(id, lease.id, SW_OP_ID_LEN);
	return e;
}

sw_err
sw_lease_begin(struct sw_db *db, struct sw_lease *lease)
{
	struct timespec ts;
	struct sw_st *st;
	int64_t now;
	sw_err e;

	if (lease->lost)
		return SW_ECONFLICT;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	lease->checked_mono = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	if ((e = sw_db_begin(db)) != SW_OK)
		return e;
	if ((e = sw_db_clock_ms(db, &now)) != SW_OK)
		goto bad;
	if ((st = sw_db_stmt(db, STMT_OP_FENCE_CHECK)) == NULL) {
		e = SW_EDB;
		goto bad;
	}
	sw_bind_text(st, 1, lease->id);
	sw_bind_text(st, 2, lease->owner);
	sw_bind_int64(st, 3, lease->token);
	sw_bind_int64(st, 4, now + lease->ms);
	if ((e = sw_db_exec(db, st)) != SW_OK)
		goto bad;
	if (sw_db_changes(db) == 1)
		return SW_OK;
	lease->lost = 1;
	lease->rejected++;
	sw_warn("operation %s: lease token %lld of %s is no longer current: "
		"write rejected",
	    lease->id, (long long)lease->token, lease->owner);
	e = SW_ECONFLICT;
bad:
	sw_db_rollback(db);
	return e;
}

int64_t
sw_lease_send_by(const struct sw_lease *lease)
{
	return lease->checked_mono + lease->ms - lease->ms / 10;
}

sw_err
sw_lease_release(struct sw_db *db, struct sw_lease *lease, int64_t delay_ms)
{
	struct sw_st *st;
	int64_t now;
	sw_err e;

	if (lease->lost)
		return SW_OK;
	if ((e = sw_db_clock_ms(db, &now)) != SW_OK)
		return e;
	if ((st = sw_db_stmt(db, STMT_OP_FENCE_DUE)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, lease->id);
	sw_bind_text(st, 2, lease->owner);
	sw_bind_int64(st, 3, lease->token);
	sw_bind_int64(st, 4, delay_ms > 0 ? now + delay_ms : 0);
	sw_bind_int64(st, 5, now);
	return sw_db_exec(db, st);
}

sw_err
sw_op_release(
    struct sw_db *db, const char *id, const char *owner, int64_t due_ms)
{
	int64_t now = sw_db_now_ms(db);
	struct sw_st *st;
	sw_err e;

	if ((e = sw_db_begin(db)) != SW_OK)
		return e;
	if ((st = sw_db_stmt(db, STMT_OP_SET_DUE)) == NULL)
		goto bad;
	sw_bind_text(st, 1, id);
	sw_bind_int64(st, 2, due_ms);
	sw_bind_int64(st, 3, now);
	if ((e = sw_db_exec(db, st)) != SW_OK)
		goto bad;
	if ((st = sw_db_stmt(db, STMT_OP_RELEASE)) == NULL)
		goto bad;
	sw_bind_text(st, 1, id);
	sw_bind_text(st, 2, owner);
	if ((e = sw_db_exec(db, st)) != SW_OK)
		goto bad;
	return sw_db_commit(db);
bad:
	sw_db_rollback(db);
	return e != SW_OK ? e : SW_EDB;
}

sw_err
sw_op_set_state(
    struct sw_db *db, const char *id, const char *state, const char *error)
{
	int64_t now = sw_db_now_ms(db);
	struct sw_st *st;

	if ((st = sw_db_stmt(db, STMT_OP_SET_STATE)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, id);
	sw_bind_text(st, 2, state);
	sw_bind_opt(st, 3, error);
	sw_bind_int64(st, 4, now);
	return sw_db_exec(db, st);
}

sw_err
sw_op_set_result(struct sw_db *db, const char *id, json_object *res)
{
	int64_t now = sw_db_now_ms(db);
	struct sw_st *st;

	if ((st = sw_db_stmt(db, STMT_OP_SET_RESULT)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, id);
	sw_bind_text_copy(st, 2, sw_json_str(res));
	sw_bind_int64(st, 3, now);
	return sw_db_exec(db, st);
}

sw_err
sw_stage_set_state(struct sw_db *db, const char *id, int seq, const char *state,
    const char *error)
{
	int64_t now = sw_db_now_ms(db);
	struct sw_st *st;

	if ((st = sw_db_stmt(db, STMT_STAGE_SET_STATE)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, id);
	sw_bind_int64(st, 2, seq);
	sw_bind_text(st, 3, state);
	sw_bind_opt(st, 4, error);
	sw_bind_int64(st, 5, now);
	return sw_db_exec(db, st);
}

sw_err
sw_stage_set_ext(struct sw_db *db, const char *id, int seq, json_object *ext)
{
	struct sw_st *st;

	if ((st = sw_db_stmt(db, STMT_STAGE_SET_EXT)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, id);
	sw_bind_int64(st, 2, seq);
	sw_bind_text_copy(st, 3, sw_json_str(ext));
	return sw_db_exec(db, st);
}

sw_err
sw_op_event(struct sw_db *db, const char *id, int stage, const char *level,
    const char *message, json_object *data)
{
	int64_t now = sw_db_now_ms(db);
	struct sw_st *st;

	if ((st = sw_db_stmt(db, STMT_EVENT_INSERT)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, id);
	sw_bind_int64(st, 2, now);
	if (stage >= 0)
		sw_bind_int64(st, 3, stage);
	sw_bind_text(st, 4, level);
	sw_bind_text_copy(st, 5, message);
	if (data != NULL)
		sw_bind_text_copy(st, 6, sw_json_str(data));
	return sw_db_exec(db, st);
}

/* Read the state of id inside the current transaction. */
static sw_err
op_state(struct sw_db *db, const char *id, char state[16])
{
	struct sw_st *st;
	int rc;

	if ((st = sw_db_stmt(db, STMT_OP_UPDATED)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, id);
	rc = sw_db_step(st);
	if (rc == SW_DB_ROW && col_copy(st, 1, state, 16) != 0)
		rc = SW_DB_CORRUPT;
	sw_reset(st);
	if (rc == SW_DB_DONE)
		return SW_ENOTFOUND;
	return rc == SW_DB_ROW ? SW_OK : sw_db_err(db, rc);
}

sw_err
sw_op_retry(struct sw_db *db, const char *id, char busy[SW_OP_ID_LEN])
{
	int64_t now = sw_db_now_ms(db);
	struct sw_st *st;
	char state[16];
	sw_err e;

	if ((e = sw_db_begin(db)) != SW_OK)
		return e;
	if ((e = op_state(db, id, state)) != SW_OK)
		goto bad;
	if (!sw_op_state_unsuccessful(state)) {
		e = SW_ECONFLICT;
		goto bad;
	}
	if ((e = live_on_cluster(db, NULL, id, busy)) != SW_OK)
		goto bad;
	if ((st = sw_db_stmt(db, STMT_STAGE_RESET_FROM)) == NULL) {
		e = SW_EDB;
		goto bad;
	}
	sw_bind_text(st, 1, id);
	if ((e = sw_db_exec(db, st)) != SW_OK)
		goto bad;
	if ((st = sw_db_stmt(db, STMT_OP_REQUEUE)) == NULL) {
		e = SW_EDB;
		goto bad;
	}
	sw_bind_text(st, 1, id);
	sw_bind_int64(st, 2, now);
	if ((e = sw_db_exec(db, st)) != SW_OK)
		goto bad;
	if ((e = sw_op_event(db, id, -1, "info", "retry requested", NULL)) !=
	    SW_OK)
		goto bad;
	return sw_db_commit(db);
bad:
	sw_db_rollback(db);
	return e;
}

sw_err
sw_op_cancel(struct sw_db *db, const char *id)
{
	int64_t now = sw_db_now_ms(db);
	struct sw_st *st;
	char state[16];
	sw_err e;

	if ((e = sw_db_begin(db)) != SW_OK)
		return e;
	if ((e = op_state(db, id, state)) != SW_OK)
		goto bad;
	if (sw_op_state_terminal(state)) {
		e = SW_ECONFLICT;
		goto bad;
	}
	if ((st = sw_db_stmt(db, STMT_OP_CANCEL_REQ)) == NULL) {
		e = SW_EDB;
		goto bad;
	}
	sw_bind_text(st, 1, id);
	sw_bind_int64(st, 2, now);
	if ((e = sw_db_exec(db, st)) != SW_OK)
		goto bad;
	if (strcmp(state, "pending") == 0 &&
	    (e = sw_op_set_state(
		 db, id, "cancelled", "cancelled by request")) != SW_OK)
		goto bad;
	if ((e = sw_op_event(db, id, -1, "info", "cancel requested", NULL)) !=
	    SW_OK)
		goto bad;
	return sw_db_commit(db);
bad:
	sw_db_rollback(db);
	return e;
}

sw_err
sw_op_updated(
    struct sw_db *db, const char *id, int64_t *updated, char state[16])
{
	struct sw_st *st;
	int rc;

	if ((st = sw_db_stmt(db, STMT_OP_UPDATED)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, id);
	rc = sw_db_step(st);
	if (rc == SW_DB_ROW) {
		*updated = sw_col_int64(st, 0);
		if (col_copy(st, 1, state, 16) != 0)
			rc = SW_DB_CORRUPT;
	}
	sw_reset(st);
	if (rc == SW_DB_DONE)
		return SW_ENOTFOUND;
	return rc == SW_DB_ROW ? SW_OK : sw_db_err(db, rc);
}

int
sw_op_release_dead(struct sw_db *db, const char *mine,
    int (*alive)(const char *, void *), void *arg)
{
	char owners[16][64];
	struct sw_st *st;
	int n = 0, i, released = 0;

	if ((st = sw_db_stmt(db, STMT_OP_OWNERS)) == NULL)
		return 0;
	sw_bind_text(st, 1, mine);
	/* An owner too long to hold is no poller's: left alone. */
	while (n < 16 && sw_db_step(st) == SW_DB_ROW)
		if (col_copy(st, 0, owners[n], sizeof(owners[0])) == 0)
			n++;
	sw_reset(st);
	for (i = 0; i < n; i++) {
		if (alive(owners[i], arg))
			continue;
		if ((st = sw_db_stmt(db, STMT_OP_RELEASE_OWNER)) == NULL)
			break;
		sw_bind_text(st, 1, owners[i]);
		if (sw_db_exec(db, st) == SW_OK)
			released++;
	}
	return released;
}

/* ---- the clusters Slipway owns ------------------------------------- */

sw_err
sw_cluster_get(struct sw_db *db, const char *name, struct sw_cluster_rec *rec)
{
	struct sw_st *st;
	int rc;

	memset(rec, 0, sizeof(*rec));
	if ((st = sw_db_stmt(db, STMT_CLUSTER_GET)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, name);
	rc = sw_db_step(st);
	if (rc == SW_DB_ROW &&
	    (col_copy(st, 0, rec->id, sizeof(rec->id)) != 0 ||
		col_copy(st, 1, rec->origin, sizeof(rec->origin)) != 0 ||
		col_copy(st, 2, rec->account, sizeof(rec->account)) != 0 ||
		col_copy(st, 3, rec->region, sizeof(rec->region)) != 0))
		rc = SW_DB_CORRUPT;
	sw_reset(st);
	if (rc == SW_DB_DONE)
		return SW_ENOTFOUND;
	return rc == SW_DB_ROW ? SW_OK : sw_db_err(db, rc);
}

sw_err
sw_cluster_new_id(char id[SW_CLUSTER_ID_LEN])
{
	char hex[17];

	if (sw_random_hex(hex, 8) != SW_OK)
		return SW_EINTERNAL;
	return sw_fmt(id, SW_CLUSTER_ID_LEN, "swc-%s", hex);
}

sw_err
sw_cluster_record(struct sw_db *db, const char *name, const char *id,
    const char *origin, struct sw_cluster_rec *rec)
{
	int64_t now = sw_db_now_ms(db);
	struct sw_st *st;
	int rc;

	if ((st = sw_db_stmt(db, STMT_CLUSTER_INSERT)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, name);
	sw_bind_text(st, 2, id);
	sw_bind_text(st, 3, origin);
	sw_bind_int64(st, 4, now);
	rc = sw_db_step(st);
	sw_reset(st);
	if (rc != SW_DB_DONE)
		return sw_db_err(db, rc);
	return sw_cluster_get(db, name, rec);
}

/* Run the statement s, which deletes the record (name, id). */
static sw_err
cluster_delete(
    struct sw_db *db, enum sw_stmt s, const char *name, const char *id)
{
	struct sw_st *st;
	int rc;

	if ((st = sw_db_stmt(db, s)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, name);
	sw_bind_text(st, 2, id);
	rc = sw_db_step(st);
	sw_reset(st);
	return rc == SW_DB_DONE ? SW_OK : sw_db_err(db, rc);
}

sw_err
sw_cluster_forget(struct sw_db *db, const char *name, const char *id)
{
	return cluster_delete(db, STMT_CLUSTER_FORGET, name, id);
}

sw_err
sw_cluster_unclaim(struct sw_db *db, const char *name, const char *id)
{
	return cluster_delete(db, STMT_CLUSTER_UNCLAIM, name, id);
}

/* NULL for "" : a column that names Slipway's own account or region. */
static void
bind_or_null(struct sw_st *st, int col, const char *v)
{
	if (v == NULL || v[0] == '\0')
		sw_bind_null(st, col);
	else
		sw_bind_text(st, col, v);
}

sw_err
sw_cluster_place(struct sw_db *db, const char *name, const char *id,
    const char *account, const char *region)
{
	struct sw_st *st;

	if ((st = sw_db_stmt(db, STMT_CLUSTER_PLACE)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, name);
	sw_bind_text(st, 2, id);
	bind_or_null(st, 3, account);
	bind_or_null(st, 4, region);
	return sw_db_exec(db, st);
}

sw_err
sw_cluster_access_get(struct sw_db *db, const char *name, char **endpoint,
    char **pem, size_t *pemlen)
{
	struct sw_st *st;
	sw_err e = SW_OK;
	int rc;

	*endpoint = *pem = NULL;
	*pemlen = 0;
	if ((st = sw_db_stmt(db, STMT_CLUSTER_ACCESS_GET)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, name);
	rc = sw_db_step(st);
	if (rc == SW_DB_ROW) {
		*endpoint = sw_strdup(sw_col_text(st, 0));
		*pem = sw_strdup(sw_col_text(st, 1));
		if (*endpoint == NULL || *pem == NULL) {
			free(*endpoint);
			free(*pem);
			*endpoint = *pem = NULL;
			e = SW_ENOMEM;
		} else
			*pemlen = strlen(*pem);
	} else
		e = rc == SW_DB_DONE ? SW_ENOTFOUND : sw_db_err(db, rc);
	sw_reset(st);
	return e;
}

/* Row st of STMT_CLUSTER_STATES: creating, and HyperPod answered. */
static void
states_of(struct sw_st *st, int *creating, int *hyperpod)
{
	*creating = sw_col_int(st, 3) != 0;
	*hyperpod = !*creating || !sw_col_null(st, 4);
}

sw_err
sw_cluster_creating(
    struct sw_db *db, const char *name, int *creating, int *hyperpod)
{
	struct sw_st *st;
	int rc;

	*creating = 0;
	*hyperpod = 1;
	if ((st = sw_db_stmt(db, STMT_CLUSTER_STATES)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, name);
	if ((rc = sw_db_step(st)) == SW_DB_ROW)
		states_of(st, creating, hyperpod);
	sw_reset(st);
	return rc == SW_DB_ROW || rc == SW_DB_DONE ? SW_OK : sw_db_err(db, rc);
}

sw_err
sw_cluster_states(struct sw_db *db, json_object **out)
{
	struct sw_st *st;
	int rc, creating, hyperpod;

	*out = NULL;
	if ((st = sw_db_stmt(db, STMT_CLUSTER_STATES)) == NULL)
		return SW_EDB;
	*out = json_object_new_array();
	while ((rc = sw_db_step(st)) == SW_DB_ROW) {
		states_of(st, &creating, &hyperpod);
		json_object_array_add(*out,
		    sw_jo("name", sw_js(sw_col_text(st, 0)), "account",
			sw_js(sw_col_text(st, 1)), "region",
			sw_js(sw_col_text(st, 2)), "creating",
			json_object_new_boolean(creating), "hyperpod",
			json_object_new_boolean(hyperpod), NULL));
	}
	return sw_db_rows_end(db, st, rc, out);
}

sw_err
sw_turns_waiting(struct sw_db *db, const char *prefix, json_object **out)
{
	struct sw_st *st;
	int rc;

	*out = NULL;
	if ((st = sw_db_stmt(db, STMT_TURNS_WAITING)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, prefix);
	sw_bind_int64(st, 2, sw_db_now_ms(db));
	*out = json_object_new_object();
	while ((rc = sw_db_step(st)) == SW_DB_ROW)
		json_object_object_add(
		    *out, sw_col_text(st, 0), json_object_new_boolean(1));
	return sw_db_rows_end(db, st, rc, out);
}

sw_err
sw_cluster_access_set(
    struct sw_db *db, const char *name, const char *endpoint, const char *pem)
{
	struct sw_st *st;

	if ((st = sw_db_stmt(db, STMT_CLUSTER_ACCESS_SET)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, name);
	bind_or_null(st, 2, endpoint);
	bind_or_null(st, 3, endpoint != NULL ? pem : NULL);
	return sw_db_exec(db, st);
}

sw_err
sw_cluster_places(struct sw_db *db, json_object **out)
{
	struct sw_st *st;
	int rc;

	*out = json_object_new_array();
	if ((st = sw_db_stmt(db, STMT_CLUSTER_PLACES)) == NULL)
		return SW_EDB;
	while ((rc = sw_db_step(st)) == SW_DB_ROW)
		json_object_array_add(*out,
		    sw_jo("account", sw_js(sw_col_text(st, 0)), "region",
			sw_js(sw_col_text(st, 1)), NULL));
	sw_reset(st);
	return rc == SW_DB_DONE ? SW_OK : sw_db_err(db, rc);
}

sw_err
sw_fact_get(struct sw_db *db, const char *key, char **text)
{
	struct sw_st *st;
	int rc;

	*text = NULL;
	if ((st = sw_db_stmt(db, STMT_FACT_GET)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, key);
	sw_bind_int64(st, 2, sw_db_now_ms(db));
	rc = sw_db_step(st);
	if (rc == SW_DB_ROW)
		*text = sw_strdup(sw_col_text(st, 0));
	sw_reset(st);
	if (rc == SW_DB_ROW && *text == NULL)
		return SW_ENOMEM;
	return rc == SW_DB_ROW || rc == SW_DB_DONE ? SW_OK : sw_db_err(db, rc);
}

sw_err
sw_fact_put(struct sw_db *db, const char *key, const char *text, int64_t ttl_ms)
{
	struct sw_st *st;

	if ((st = sw_db_stmt(db, STMT_FACT_PUT)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, key);
	sw_bind_text(st, 2, text);
	sw_bind_int64(st, 3, sw_db_now_ms(db) + ttl_ms);
	return sw_db_exec(db, st);
}

sw_err
sw_turn_take(struct sw_db *db, const char *name, int64_t every_ms, int *mine)
{
	struct sw_st *st;
	sw_err e;

	*mine = 0;
	if ((st = sw_db_stmt(db, STMT_TURN_TAKE)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, name);
	sw_bind_int64(st, 2, sw_db_now_ms(db));
	sw_bind_int64(st, 3, every_ms);
	if ((e = sw_db_exec(db, st)) != SW_OK)
		return e;
	*mine = sw_db_changes(db) == 1;
	return SW_OK;
}
