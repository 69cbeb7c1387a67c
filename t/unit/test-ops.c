/* test-ops.c: operations, stages and events: enqueue with idempotency,
 * claim under a lease, transitions, retry of failed stages only,
 * cancel, listing with filters and cursors. */
#include <string.h>
#include <time.h>

#include "lib/json.h"
#include "lib/ops.h"
#include "t/tap.h"
#include "t/unit/tmpdb.h"

static const char *const stages[] = { "network", "eks", "hyperpod", NULL };

/* Claim operations until want's is taken (others stay leased). */
static sw_err
claim_this(struct sw_db *db, struct sw_lease *l, const char *want)
{
	sw_err e;
	int i;

	for (i = 0; i < 50; i++) {
		if ((e = sw_op_claim_lease(db, l)) != SW_OK)
			return e;
		if (strcmp(l->id, want) == 0)
			return SW_OK;
	}
	return SW_ENOTFOUND;
}

/*
 * Fencing: a lease that ran out and was claimed by another poller
 * writes nothing more, and its holder learns so; the new holder's
 * token is one more and its writes go through.
 */
/*
 * A watch of the database (sw_db_wait) is woken by a write of another
 * connection: on PostgreSQL by the trigger's NOTIFY naming the
 * operation, on SQLite by the WAL file's write (what it changed unsaid).
 */
static void
watching(struct sw_db *db, json_object *params)
{
	static const char *const one[] = { "network", NULL };
	struct sw_db_watch *w = NULL;
	struct sw_op_new n;
	char id[SW_OP_ID_LEN], what[128], want[160];
	int existed, rc;

	memset(&n, 0, sizeof(n));
	n.kind = "cluster.create";
	n.target = "watched";
	n.cluster = "watched";
	n.params = params;
	n.stages = one;
	n.token_name = "carol";
	ok(sw_op_enqueue(db, &n, id, &existed) == SW_OK, "watch: enqueue");
	ok(sw_db_watch_open(db, &w) == SW_OK, "a watch of the database");
	if (w == NULL)
		return;
	is_int(sw_db_wait(w, 0, what, sizeof(what)), 0,
	    "nothing written since: it times out");
	ok(sw_op_set_state(db, id, "running", NULL) == SW_OK, "a write");
	rc = sw_db_wait(w, 10000, what, sizeof(what));
	is_int(rc, 1, "the write wakes the watch");
	snprintf(want, sizeof(want), "op %s", id);
	if (strcmp(sw_db_engine(db), "postgresql") == 0)
		is_str(what, want, "the notification names the operation");
	else
		is_str(what, "", "SQLite cannot say what changed");
	sw_db_watch_close(w);
}

static void
fencing(struct sw_db *db, json_object *params)
{
	static const char *const one[] = { "network", NULL };
	struct sw_lease a, b;
	struct sw_op_new n;
	json_object *o;
	struct timespec mono;
	char id[SW_OP_ID_LEN];
	int existed;

	memset(&n, 0, sizeof(n));
	n.kind = "cluster.create";
	n.target = "fence";
	n.cluster = "fence";
	n.params = params;
	n.stages = one;
	n.token_name = "carol";
	ok(sw_op_enqueue(db, &n, id, &existed) == SW_OK, "fencing: enqueue");
	memset(&a, 0, sizeof(a));
	strcpy(a.owner, "poller-1@a");
	a.ms = 60000;
	ok(claim_this(db, &a, id) == SW_OK && a.token == 1,
	    "first claim: token 1");
	clock_gettime(CLOCK_MONOTONIC, &mono);
	ok(sw_lease_begin(db, &a) == SW_OK && sw_db_commit(db) == SW_OK &&
		sw_lease_send_by(&a) >= (int64_t)mono.tv_sec * 1000 +
			mono.tv_nsec / 1000000 + 54000 - 1000 &&
		sw_lease_send_by(&a) <= (int64_t)mono.tv_sec * 1000 +
			mono.tv_nsec / 1000000 + 54000 + 1000,
	    "a checked lease of 60 s holds for calls for 54 s from the check");
	a.ms = -60000; /* this renewal ends it: it ran out */
	ok(sw_lease_begin(db, &a) == SW_OK &&
		sw_stage_set_state(db, id, 0, "running", NULL) == SW_OK &&
		sw_db_commit(db) == SW_OK,
	    "the holder writes under its token");
	memset(&b, 0, sizeof(b));
	strcpy(b.owner, "poller-2@b");
	b.ms = 60000;
	ok(claim_this(db, &b, id) == SW_OK && b.token == 2,
	    "the lease ran out: another poller claims it, token 2");
	ok(sw_lease_begin(db, &a) == SW_ECONFLICT && a.lost && a.rejected == 1,
	    "the old holder's write is rejected");
	ok(sw_lease_release(db, &a, 0) == SW_OK,
	    "the old holder's release changes nothing");
	ok(sw_lease_begin(db, &b) == SW_OK &&
		sw_stage_set_state(db, id, 0, "succeeded", NULL) == SW_OK &&
		sw_db_commit(db) == SW_OK,
	    "the new holder writes");
	ok(sw_op_get(db, id, 0, 0, &o) == SW_OK &&
		strcmp(sw_json_get_str(json_object_array_get_idx(
					   sw_json_get(o, "stages"), 0),
			   "state"),
		    "succeeded") == 0,
	    "the new holder's write is the one kept");
	json_object_put(o);
	ok(sw_lease_release(db, &b, 600000) == SW_OK,
	    "the new holder releases it, due in ten minutes");
	a.ms = 60000;
	ok(claim_this(db, &a, id) == SW_ENOTFOUND,
	    "released and not due: nobody claims it");
}

/* Of "poller-<pid>@<host>" owners, only poller-99@here is gone; each
 * owner asked about is counted. */
static int asked;

static int
alive_but_99(const char *owner, void *arg)
{
	(void)arg;
	asked++;
	return strcmp(owner, "poller-99@here") != 0;
}

/*
 * A dead poller of this host is found among the live leases of more
 * pollers of other hosts than one look holds (which cannot be asked
 * about), and owners of finished operations are not asked at all.
 */
static void
dead_among_many(struct sw_db *db, json_object *params)
{
	static const char *const one[] = { "network", NULL };
	struct sw_lease l;
	struct sw_op_new n;
	char id[SW_OP_ID_LEN], name[32], last[SW_OP_ID_LEN] = "";
	int i, existed, made = 0;

	memset(&n, 0, sizeof(n));
	n.kind = "cluster.create";
	n.params = params;
	n.stages = one;
	n.token_name = "dave";
	for (i = 0; i < 22; i++) {
		snprintf(name, sizeof(name), "many-%02d", i);
		n.target = n.cluster = name;
		memset(&l, 0, sizeof(l));
		snprintf(l.owner, sizeof(l.owner), "poller-%d@%s",
		    i < 20 ? 100 + i : 98 + (i - 20),
		    i < 20 ? "there" : "here");
		l.ms = 60000;
		made += sw_op_enqueue(db, &n, id, &existed) == SW_OK &&
		    claim_this(db, &l, id) == SW_OK;
		if (i == 20) /* poller-98@here: its operation is finished */
			made +=
			    sw_op_set_state(db, id, "succeeded", NULL) == SW_OK;
		snprintf(last, sizeof(last), "%s", id);
	}
	is_int(made, 23, "22 operations leased to 22 pollers, 20 elsewhere");
	asked = 0;
	is_int(sw_op_release_dead(db, "@here", alive_but_99, NULL), 1,
	    "the dead poller of this host is found and released");
	is_int(
	    asked, 1, "and only it was asked about (not the finished one's)");
	memset(&l, 0, sizeof(l));
	strcpy(l.owner, "poller-7@here");
	l.ms = 60000;
	ok(claim_this(db, &l, last) == SW_OK, "its operation is claimed anew");
}

/*
 * The database's clock is one statement kept with the others: read a
 * thousand times, it leaves no statement behind it on a PostgreSQL
 * connection (each used to stay prepared for the connection's life),
 * nor does a single-use one (the schema's version).
 */
static void
clock_reads(struct sw_db *db)
{
	struct sw_st *st = NULL;
	int64_t a, b = 0, n = -1;
	int i;

	a = sw_db_now_ms(db);
	for (i = 0; i < 1000; i++)
		b = sw_db_now_ms(db);
	ok(a > 1700000000000LL && b >= a,
	    "the database's clock, read 1,001 times, moves on");
	ok(sw_db_version(db) == sw_db_version_latest(),
	    "the schema's version, read once more");
	if (strcmp(sw_db_engine(db), "postgresql") != 0) {
		skip(1, "SQLite keeps no statement beyond the connection's");
		return;
	}
	if (sw_db_prepare(db, "SELECT count(*) FROM pg_prepared_statements",
		&st) == SW_OK &&
	    sw_db_step(st) == SW_DB_ROW)
		n = sw_col_int64(st, 0);
	sw_st_free(st);
	ok(n >= 1 && n <= STMT__MAX,
	    "statements prepared on the connection: %lld, at most the %d of "
	    "the table",
	    (long long)n, (int)STMT__MAX);
}

/* Every cluster's create state in one read says what each read of one
 * says. */
static void
states_agree(struct sw_db *db)
{
	json_object *rows = NULL, *row;
	const char *name;
	int creating, hyperpod, agree = 0;
	size_t i, n = 0;

	ok(sw_cluster_states(db, &rows) == SW_OK && rows != NULL,
	    "every cluster's state, in one read");
	for (i = 0; rows && i < json_object_array_length(rows); i++) {
		row = json_object_array_get_idx(rows, i);
		name = sw_json_get_str(row, "name");
		n++;
		agree += name != NULL &&
		    sw_cluster_creating(db, name, &creating, &hyperpod) ==
			SW_OK &&
		    creating == sw_json_get_bool(row, "creating", -1) &&
		    hyperpod == sw_json_get_bool(row, "hyperpod", -1);
		if (name != NULL && strcmp(name, "c7") == 0)
			ok(creating && hyperpod,
			    "c7 among them: being created, HyperPod answered");
	}
	ok(n > 0 && agree == (int)n,
	    "%d of %d clusters as each one's own read says", agree, (int)n);
	json_object_put(rows);
}

/* The turns a pass cannot get are known in one read. */
static void
turns_waiting(struct sw_db *db)
{
	json_object *w = NULL, *v = NULL;
	int mine = 0, again = 1;

	ok(sw_turn_take(db, "ledger c7", 600000, &mine) == SW_OK && mine &&
		sw_turn_take(db, "ledger c8", 0, &again) == SW_OK && again,
	    "two turns taken, one due again at once");
	ok(sw_turns_waiting(db, "ledger ", &w) == SW_OK &&
		sw_json_get(w, "ledger c7") != NULL &&
		sw_json_get(w, "ledger c8") == NULL,
	    "waiting: the turn not due, not the one due");
	ok(sw_turns_waiting(db, "watch ", &v) == SW_OK &&
		json_object_object_length(v) == 0,
	    "nothing waiting of another kind of turn");
	ok(sw_turn_take(db, "ledger c7", 600000, &mine) == SW_OK && !mine,
	    "and the waiting turn is indeed not to be had");
	json_object_put(w);
	json_object_put(v);
}

int
main(void)
{
	struct sw_db *db = tmpdb_open();
	struct sw_op_new n;
	struct sw_op_filter f;
	char id[SW_OP_ID_LEN], id2[SW_OP_ID_LEN], id3[SW_OP_ID_LEN],
	    claimed[SW_OP_ID_LEN], state[16];
	json_object *params, *o, *st, *list;
	int existed;
	int64_t upd;

	if (db == NULL)
		skip_all("cannot create a database");
	params = json_tokener_parse("{\"name\":\"c1\",\"count\":2}");
	memset(&n, 0, sizeof(n));
	n.kind = "cluster.create";
	n.target = "c1";
	n.cluster = "c1";
	n.params = params;
	n.stages = stages;
	n.idem_key = "key-1";
	n.token_name = "alice";
	ok(sw_op_enqueue(db, &n, id, &existed) == SW_OK && !existed,
	    "enqueue creates an operation");
	ok(strncmp(id, "op-", 3) == 0 && strlen(id) == 19, "id looks right");
	ok(sw_op_enqueue(db, &n, id2, &existed) == SW_OK && existed &&
		strcmp(id, id2) == 0,
	    "same key and request gives the same op");
	n.target = "c2";
	ok(sw_op_enqueue(db, &n, id2, &existed) == SW_ECONFLICT,
	    "same key, different request is a conflict");
	n.token_name = "bob";
	n.cluster = "c2";
	ok(sw_op_enqueue(db, &n, id2, &existed) == SW_OK && !existed &&
		strcmp(id, id2) != 0,
	    "keys are per token");
	n.idem_key = NULL;
	n.cluster = "c3";
	ok(sw_op_enqueue(db, &n, id3, &existed) == SW_OK, "no key: new op");

	ok(sw_op_get(db, id, 1, 0, &o) == SW_OK, "get");
	is_str(sw_json_get_str(o, "state"), "pending", "starts pending");
	st = sw_json_get(o, "stages");
	is_int((long long)json_object_array_length(st), 3, "three stages");
	is_str(sw_json_get_str(json_object_array_get_idx(st, 1), "name"), "eks",
	    "stages in order");
	is_str(sw_json_get_str(o, "requested_by"), "alice", "audit: who");
	ok(json_object_array_length(sw_json_get(o, "events")) == 1,
	    "enqueue records an event");
	json_object_put(o);
	ok(sw_op_get(db, "op-0000000000000000", 0, 0, &o) == SW_ENOTFOUND,
	    "unknown id is not found");

	/* Claim: one at a time, lease respected. */
	ok(sw_op_claim(db, "poller-1", 60000, claimed) == SW_OK, "claim");
	ok(sw_op_claim(db, "poller-1", 60000, id2) == SW_OK &&
		strcmp(id2, claimed) != 0,
	    "second claim gets another op");
	ok(sw_op_claim(db, "poller-1", 60000, id2) == SW_OK, "third claim");
	ok(sw_op_claim(db, "poller-2", 60000, id2) == SW_ENOTFOUND,
	    "nothing left while leases are held");
	ok(sw_op_release(db, id, "poller-1", sw_now_ms() - 1) == SW_OK,
	    "release with a due time");
	ok(sw_op_claim(db, "poller-2", 60000, claimed) == SW_OK &&
		strcmp(claimed, id) == 0,
	    "released op can be claimed again");

	/* Run stages: first succeeds, second fails. */
	json_object *ext = json_tokener_parse("{\"vpc_id\":\"vpc-1\"}");
	ok(sw_stage_set_ext(db, id, 0, ext) == SW_OK,
	    "record resources "
	    "before creating them");
	json_object_put(ext);
	sw_stage_set_state(db, id, 0, "running", NULL);
	sw_stage_set_state(db, id, 0, "succeeded", NULL);
	sw_stage_set_state(db, id, 1, "running", NULL);
	sw_stage_set_state(db, id, 1, "failed", "boom");
	sw_op_set_state(db, id, "failed", "stage eks: boom");
	ok(sw_op_event(db, id, 1, "error", "stage eks failed", NULL) == SW_OK,
	    "event appended");
	ok(sw_op_cancel(db, id) == SW_ECONFLICT, "cannot cancel a failed op");
	ok(sw_op_retry(db, id, id2) == SW_OK, "retry a failed op");
	sw_op_get(db, id, 1, 0, &o);
	st = sw_json_get(o, "stages");
	is_str(sw_json_get_str(o, "state"), "pending", "retry -> pending");
	is_str(sw_json_get_str(json_object_array_get_idx(st, 0), "state"),
	    "succeeded", "succeeded stage is kept");
	is_str(sw_json_get_str(json_object_array_get_idx(st, 1), "state"),
	    "pending", "failed stage runs again");
	is_int(sw_json_get_int(json_object_array_get_idx(st, 1), "attempts", 0),
	    1, "attempts counted");
	is_str(sw_json_get_str(
		   sw_json_get(json_object_array_get_idx(st, 0), "resources"),
		   "vpc_id"),
	    "vpc-1", "resources survive");
	json_object_put(o);
	ok(sw_op_retry(db, id, id2) == SW_ECONFLICT,
	    "cannot retry a pending op");

	/* Cancel: pending ends at once. */
	ok(sw_op_cancel(db, id3) == SW_OK, "cancel a running op");
	ok(sw_op_updated(db, id3, &upd, state) == SW_OK &&
		strcmp(state, "running") == 0 && upd > 0,
	    "a running op keeps running until the next stage boundary");
	sw_op_get(db, id3, 0, 0, &o);
	ok(sw_json_get_bool(o, "cancel_requested", 0), "cancel recorded");
	json_object_put(o);
	n.target = "c4";
	n.cluster = "c4";
	sw_op_enqueue(db, &n, id3, &existed);
	ok(sw_op_cancel(db, id3) == SW_OK &&
		sw_op_updated(db, id3, &upd, state) == SW_OK &&
		strcmp(state, "cancelled") == 0,
	    "a pending op is cancelled at once");

	/* One live operation per cluster; a retry must find it free too. */
	{
		char a[SW_OP_ID_LEN], b[SW_OP_ID_LEN], holder[SW_OP_ID_LEN];

		n.kind = "node.reboot";
		n.target = "c5";
		n.cluster = "c5";
		ok(sw_op_enqueue(db, &n, a, &existed) == SW_OK, "op on c5");
		n.kind = "storage.add";
		ok(sw_op_enqueue(db, &n, b, &existed) == SW_EBUSY &&
			strcmp(b, a) == 0,
		    "a second op on c5 is busy and names "
		    "the holder");
		n.cluster = "c6";
		ok(sw_op_enqueue(db, &n, b, &existed) == SW_OK,
		    "another cluster is free");
		ok(sw_op_cancel(db, a) == SW_OK, "cancel the c5 op");
		n.cluster = "c5";
		ok(sw_op_enqueue(db, &n, b, &existed) == SW_OK,
		    "a cancelled op frees the cluster");
		ok(sw_op_retry(db, a, holder) == SW_EBUSY &&
			strcmp(holder, b) == 0,
		    "retry waits for the live op on "
		    "its cluster");
		sw_op_set_state(db, b, "succeeded", NULL);
		ok(sw_op_retry(db, a, holder) == SW_OK, "then it may retry");
		sw_op_get(db, a, 0, 0, &o);
		is_str(sw_json_get_str(o, "state"), "pending",
		    "retried after cancel: pending");
		ok(!sw_json_get_bool(o, "cancel_requested", 1),
		    "the old cancel request is cleared");
		json_object_put(o);
		ok(sw_op_claim(db, "poller-3", 60000, claimed) == SW_OK,
		    "the retried op can be claimed");
		n.kind = "cluster.create";
	}

	/* Two creates of one name at once: the second found the first's
	 * record and started with its id; the first, refused, must not
	 * take the record away from it. */
	{
		char a[SW_OP_ID_LEN];
		struct sw_cluster_rec rec;
		json_object *said;
		int creating = 0, hyperpod = 1;

		ok(sw_cluster_record(db, "c7", "swc-00000000000000c7",
		       "created", &rec) == SW_OK,
		    "c7 recorded");
		/* Between the record and its create's enqueue, the poller
		 * must not read a cluster HyperPod has never heard of. */
		ok(sw_cluster_creating(db, "c7", &creating, &hyperpod) ==
			    SW_OK &&
			creating && !hyperpod,
		    "recorded, not yet enqueued: being created, HyperPod "
		    "has no cluster");
		n.kind = "cluster.create";
		n.target = "c7";
		n.cluster = "c7";
		ok(sw_op_enqueue(db, &n, a, &existed) == SW_OK,
		    "a create of c7 started with that record");
		ok(sw_cluster_creating(db, "c7", &creating, &hyperpod) ==
			    SW_OK &&
			creating && !hyperpod,
		    "enqueued: still being created, HyperPod not asked");
		said = json_tokener_parse("{\"create_requested\":true}");
		ok(sw_stage_set_ext(db, a, 2, said) == SW_OK &&
			sw_cluster_creating(db, "c7", &creating, &hyperpod) ==
			    SW_OK &&
			creating && hyperpod,
		    "HyperPod answered the create: being created, and read");
		json_object_put(said);
		states_agree(db);
		turns_waiting(db);
		ok(sw_cluster_unclaim(db, "c7", "swc-00000000000000c7") ==
			    SW_OK &&
			sw_cluster_get(db, "c7", &rec) == SW_OK,
		    "the record stays while an operation holds c7");
		sw_op_set_state(db, a, "failed", NULL);
		ok(sw_cluster_creating(db, "c7", &creating, &hyperpod) ==
			    SW_OK &&
			!creating && hyperpod,
		    "the create over: no longer being created, HyperPod "
		    "may hold something to read");
		ok(sw_cluster_unclaim(db, "c7", "swc-00000000000000c7") ==
			    SW_OK &&
			sw_cluster_get(db, "c7", &rec) == SW_ENOTFOUND,
		    "with none live, the unused record goes");
	}

	/* Listing. */
	memset(&f, 0, sizeof(f));
	f.token_name = "alice";
	ok(sw_op_list(db, &f, &list) == SW_OK, "list by token");
	is_int((long long)json_object_array_length(sw_json_get(list, "items")),
	    1, "one op by alice");
	json_object_put(list);
	memset(&f, 0, sizeof(f));
	f.limit = 2;
	sw_op_list(db, &f, &list);
	is_int((long long)json_object_array_length(sw_json_get(list, "items")),
	    2, "page of 2");
	ok(sw_json_get_str(list, "next") != NULL, "next cursor given");
	f.cursor = strdup(sw_json_get_str(list, "next"));
	json_object_put(list);
	sw_op_list(db, &f, &list);
	is_int((long long)json_object_array_length(sw_json_get(list, "items")),
	    2, "second page has the rest");
	free((void *)(uintptr_t)f.cursor);
	json_object_put(list);
	memset(&f, 0, sizeof(f));
	f.state = "cancelled";
	sw_op_list(db, &f, &list);
	is_int((long long)json_object_array_length(sw_json_get(list, "items")),
	    1, "filter by state");
	json_object_put(list);
	ok(sw_op_state_terminal("succeeded") &&
		!sw_op_state_terminal("running"),
	    "terminal states");
	ok(sw_op_state_terminal("failed") &&
		sw_op_state_terminal("cancelled") &&
		!sw_op_state_terminal("pending") &&
		!sw_op_state_terminal("bogus"),
	    "failed and cancelled end too");
	ok(sw_op_state_unsuccessful("failed") &&
		sw_op_state_unsuccessful("cancelled") &&
		!sw_op_state_unsuccessful("succeeded") &&
		!sw_op_state_unsuccessful("running"),
	    "failed and cancelled ended without success");

	fencing(db, params);
	dead_among_many(db, params);
	watching(db, params);
	clock_reads(db);
	json_object_put(params);
	tmpdb_close(db);
	return tap_done();
}
