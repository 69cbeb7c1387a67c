/* test-notify.c: subscriptions and the notification outbox: the
 * triggers write an event and its deliveries with the state change (by
 * kind and cluster, once per change, nothing nobody wants), a delivery
 * is leased to one poller, retried until dead, released when its
 * poller is gone, and deleted with its subscription.  A budget's
 * threshold crossed is a budget.threshold event, once per crossing,
 * only with the crossing (a rolled-back crossing leaves none), to the
 * subscriptions of every cluster and, for a cluster budget, of that
 * cluster. */
#include <stdio.h>
#include <string.h>

#include "lib/budget.h"
#include "lib/json.h"
#include "lib/notify.h"
#include "lib/ops.h"
#include "t/tap.h"
#include "t/unit/tmpdb.h"

static const char *const stages[] = { "network", "eks", NULL };

static int
count(struct sw_db *db, const char *state, const char *sub)
{
	json_object *list;
	int n;

	if (sw_delivery_list(db, state, sub, 0, 500, &list) != SW_OK)
		return -1;
	n = (int)json_object_array_length(list);
	json_object_put(list);
	return n;
}

static int
events_kept(struct sw_db *db)
{
	struct sw_st *st;
	int n = -1;

	if (sw_db_prepare(db, "SELECT count(*) FROM notify_events", &st) !=
	    SW_OK)
		return -1;
	if (sw_db_step(st) == SW_DB_ROW)
		n = sw_col_int(st, 0);
	sw_st_free(st);
	return n;
}

static void
op_on(struct sw_db *db, const char *cluster, char id[SW_OP_ID_LEN])
{
	struct sw_op_new n;
	int existed;

	memset(&n, 0, sizeof(n));
	n.kind = "cluster.create";
	n.target = cluster;
	n.cluster = cluster;
	n.params = json_object_new_object();
	n.stages = stages;
	n.token_name = "alice";
	if (sw_op_enqueue(db, &n, id, &existed) != SW_OK)
		id[0] = '\0';
	json_object_put(n.params);
}

static void
sub_budget(
    struct sw_db *db, const char *name, const char *kinds, const char *cluster)
{
	struct sw_sub_new s;

	memset(&s, 0, sizeof(s));
	s.name = name;
	s.target = "webhook";
	s.address = "https://example.com/money";
	s.secret = "0123456789abcdef";
	s.format = "slipway";
	s.kinds = kinds;
	s.cluster = cluster;
	s.created_by = "bob";
	ok(sw_sub_create(db, &s) == SW_OK, "subscription %s (%s, %s)", name,
	    kinds, cluster ? cluster : "every cluster");
}

static int
cross(struct sw_db *db, const char *scope, const char *name, int thr)
{
	struct sw_budget_alert a;
	int is_new = -1;

	memset(&a, 0, sizeof(a));
	a.scope = scope;
	a.name = name;
	a.month = "2026-12";
	a.threshold = thr;
	a.crossed = 1798758000LL; /* 2026-12-31T23:00:00Z */
	a.spent_micro = 80123456;
	a.limit_micro = 100000000;
	a.has_forecast = strcmp(scope, "cluster") == 0;
	a.forecast_micro = 123450000;
	if (sw_budget_cross(db, &a, &is_new) != SW_OK)
		return -1;
	return is_new;
}

/* The newest budget event's data, parsed (new), its cluster in cl. */
static json_object *
budget_detail(struct sw_db *db, char *cl, size_t sz)
{
	json_object *det = NULL;
	struct sw_st *st;
	const char *d;
	char why[64];

	cl[0] = '\0';
	if (sw_db_prepare(db,
		"SELECT coalesce(cluster,"
		" ''), data FROM notify_events WHERE kind = 'budget.threshold'"
		" AND op_id = '' ORDER BY id DESC LIMIT 1",
		&st) != SW_OK)
		return NULL;
	if (sw_db_step(st) == SW_DB_ROW) {
		snprintf(cl, sz, "%s", sw_col_text(st, 0));
		d = sw_col_text_or_null(st, 1);
		if (sw_json_parse(d, strlen(d), &det, why, sizeof(why)) !=
		    SW_OK)
			det = NULL;
	}
	sw_st_free(st);
	return det;
}

static void
budget_events(struct sw_db *db)
{
	json_object *det, *list;
	char cl[32];
	int before = events_kept(db);

	ok(cross(db, "team", "nobody-listens", 50) == 1 &&
		events_kept(db) == before,
	    "a crossing nobody subscribed to "
	    "keeps no event");
	sub_budget(db, "money", "budget.threshold", NULL);
	sub_budget(db, "money-c1", "budget.threshold,operation.failed", "c1");
	sub_budget(db, "money-c2", "budget.threshold", "c2");
	sub_budget(db, "ops-only", "operation.failed", NULL);
	ok(cross(db, "team", "a", 50) == 1, "team a crosses 50 %%");
	ok(count(db, NULL, "money") == 1 && count(db, NULL, "money-c1") == 0 &&
		count(db, NULL, "money-c2") == 0 &&
		count(db, NULL, "ops-only") == 0,
	    "a team's crossing goes to the subscription of every cluster "
	    "only");
	det = budget_detail(db, cl, sizeof(cl));
	ok(det != NULL && cl[0] == '\0' &&
		strcmp(sw_json_get_str(det, "scope") ?: "", "team") == 0 &&
		strcmp(sw_json_get_str(det, "name") ?: "", "a") == 0 &&
		strcmp(sw_json_get_str(det, "month") ?: "", "2026-12") == 0 &&
		sw_json_get_int(det, "threshold", 0) == 50 &&
		strcmp(json_object_get_string(sw_json_get(det, "spent_usd")),
		    "80.123456") == 0 &&
		strcmp(json_object_get_string(sw_json_get(det, "limit_usd")),
		    "100.000000") == 0 &&
		sw_json_get(det, "forecast_usd") == NULL &&
		strcmp(sw_json_get_str(det, "crossed_at") ?: "",
		    "2026-12-31T23:00:00Z") == 0,
	    "its event: scope, name, month, "
	    "threshold, spent and limit to the micro-dollar, no forecast "
	    "when none is at hand (%s)",
	    json_object_to_json_string(det));
	json_object_put(det);
	ok(cross(db, "team", "a", 50) == 0 && count(db, NULL, "money") == 1,
	    "the same crossing again: no event");
	ok(cross(db, "cluster", "c1", 80) == 1 &&
		count(db, NULL, "money") == 2 &&
		count(db, NULL, "money-c1") == 1 &&
		count(db, NULL, "money-c2") == 0,
	    "cluster c1's crossing: to every "
	    "cluster's and to c1's, not c2's");
	det = budget_detail(db, cl, sizeof(cl));
	ok(det != NULL && strcmp(cl, "c1") == 0 &&
		strcmp(json_object_get_string(sw_json_get(det, "forecast_usd")),
		    "123.450000") == 0,
	    "with its cluster and forecast");
	json_object_put(det);
	ok(sw_delivery_list(db, NULL, "money-c1", 0, 10, &list) == SW_OK &&
		json_object_array_length(list) == 1 &&
		strcmp(sw_json_get_str(
			   json_object_array_get_idx(list, 0), "budget")
			?: "",
		    "cluster/c1") == 0 &&
		sw_json_get(
		    json_object_array_get_idx(list, 0), "operation_id") == NULL,
	    "listed as the budget's, with no operation");
	json_object_put(list);
	before = events_kept(db);
	ok(sw_db_begin(db) == SW_OK && cross(db, "cluster", "c1", 100) == 1,
	    "a crossing in a transaction");
	sw_db_rollback(db);
	ok(events_kept(db) == before && count(db, NULL, "money") == 2 &&
		cross(db, "cluster", "c1", 100) == 1,
	    "rolled back: neither the "
	    "event nor its deliveries remain, and it is new again");
	ok(count(db, NULL, "money") == 3 && count(db, NULL, "money-c1") == 2,
	    "then committed with its deliveries");
}

static int
gone_owner(const char *owner, void *arg)
{
	(void)arg;
	return strcmp(owner, "poller-gone") != 0;
}

int
main(void)
{
	struct sw_db *db = tmpdb_open();
	struct sw_sub_new s;
	struct sw_delivery_ref refs[8];
	json_object *doc = NULL, *list;
	char a[SW_OP_ID_LEN], b[SW_OP_ID_LEN], c[SW_OP_ID_LEN];
	int64_t seq;
	size_t n;

	if (db == NULL)
		skip_all("cannot create a database");
	memset(&s, 0, sizeof(s));
	s.name = "all";
	s.target = "webhook";
	s.address = "https://example.com/hook";
	s.secret = "0123456789abcdef";
	s.format = "slipway";
	s.kinds = "operation.succeeded,operation.failed,stage.succeeded";
	s.created_by = "alice";
	ok(sw_sub_create(db, &s) == SW_OK, "a subscription to every cluster");
	ok(sw_sub_create(db, &s) == SW_ECONFLICT, "a taken name: conflict");
	s.name = "c1-failures";
	s.target = "sns";
	s.address = "arn:aws:sns:us-west-2:123456789012:t";
	s.secret = NULL;
	s.kinds = "operation.failed";
	s.cluster = "c1";
	ok(sw_sub_create(db, &s) == SW_OK, "one to one cluster's failures");

	op_on(db, "c1", a);
	op_on(db, "c2", b);
	op_on(db, "c3", c);
	ok(sw_op_set_state(db, a, "running", NULL) == SW_OK &&
		count(db, NULL, NULL) == 0,
	    "running is no event");
	ok(sw_op_set_state(db, a, "failed", "boom") == SW_OK,
	    "c1's operation fails");
	is_int(count(db, "pending", "all"), 1, "the wide one gets it");
	is_int(count(db, "pending", "c1-failures"), 1,
	    "the cluster's one gets it");
	ok(sw_op_set_state(db, a, "failed", "boom") == SW_OK &&
		count(db, NULL, NULL) == 2,
	    "the same state again is no event");
	ok(sw_op_set_state(db, b, "failed", "boom") == SW_OK &&
		count(db, NULL, "c1-failures") == 1 &&
		count(db, NULL, "all") == 2,
	    "another cluster's failure: only the wide one");
	ok(sw_stage_set_state(db, b, 0, "succeeded", NULL) == SW_OK &&
		count(db, NULL, "all") == 3,
	    "a stage that succeeds is an event");
	is_int(events_kept(db), 3, "one event per change");
	ok(sw_op_set_state(db, c, "cancelled", NULL) == SW_OK &&
		events_kept(db) == 3,
	    "an event nobody wants is not kept");
	ok(sw_delivery_list(db, NULL, "all", 0, 10, &list) == SW_OK &&
		strncmp(sw_json_get_str(
			    json_object_array_get_idx(list, 0), "event_id"),
		    "ev-", 3) == 0,
	    "events have an ev- id");
	json_object_put(list);

	ok(sw_delivery_list(db, NULL, NULL, 0, 3, &list) == SW_OK &&
		json_object_array_length(list) == 3,
	    "a page of three");
	seq = sw_json_get_int(json_object_array_get_idx(list, 2), "seq", 0);
	json_object_put(list);
	ok(sw_delivery_list(db, NULL, NULL, seq, 3, &list) == SW_OK &&
		json_object_array_length(list) == 1,
	    "and the one left after it");
	json_object_put(list);
	ok(sw_delivery_due(db, sw_db_now_ms(db) + 1000, refs, 8, &n) == SW_OK &&
		n == 4,
	    "four deliveries due");
	ok(sw_delivery_take(db, &refs[0], "poller-1", 60000, &doc) == SW_OK &&
		doc != NULL,
	    "a poller takes one");
	is_int(sw_json_get_int(doc, "attempts", 0), 1, "the attempt counts");
	ok(sw_json_get_str(doc, "data") != NULL &&
		sw_json_get_str(doc, "address") != NULL,
	    "with what to send");
	json_object_put(doc);
	ok(sw_delivery_take(db, &refs[0], "poller-2", 60000, &doc) ==
		SW_ECONFLICT,
	    "another cannot take it while leased");
	ok(sw_delivery_done(db, &refs[0], "poller-2") == SW_OK &&
		count(db, "delivered", NULL) == 0,
	    "nor record it");
	ok(sw_delivery_retry(db, &refs[0], "poller-1", 0, "HTTP 500", 2) ==
		    SW_OK &&
		count(db, "pending", NULL) == 4,
	    "a failure: again later");
	ok(sw_delivery_take(db, &refs[0], "poller-1", 60000, &doc) == SW_OK,
	    "taken again once due");
	json_object_put(doc);
	ok(sw_delivery_retry(db, &refs[0], "poller-1", 0, "HTTP 500", 2) ==
		    SW_OK &&
		count(db, "dead", NULL) == 1,
	    "the last attempt's failure: dead");
	ok(sw_delivery_take(db, &refs[0], "poller-1", 60000, &doc) ==
		SW_ECONFLICT,
	    "a dead letter is not taken");
	ok(sw_delivery_take(db, &refs[1], "poller-gone", 60000, &doc) == SW_OK,
	    "a poller that will die takes one");
	json_object_put(doc);
	is_int(sw_delivery_release_dead(db, "", gone_owner, NULL), 1,
	    "its lease is released");
	ok(sw_delivery_take(db, &refs[1], "poller-3", 60000, &doc) == SW_OK,
	    "and another poller takes it");
	json_object_put(doc);
	ok(sw_delivery_done(db, &refs[1], "poller-3") == SW_OK &&
		count(db, "delivered", NULL) == 1,
	    "delivered");
	ok(sw_sub_list(db, NULL, &list) == SW_OK &&
		json_object_array_length(list) == 2,
	    "both listed");
	json_object_put(list);
	ok(sw_sub_delete(db, "all") == SW_OK && count(db, NULL, "all") == 0,
	    "a deleted subscription's deliveries go with it");
	ok(sw_sub_delete(db, "all") == SW_ENOTFOUND, "deleting again: none");
	ok(sw_sub_list(db, "all", &list) == SW_ENOTFOUND, "nor listed");
	budget_events(db);
	tmpdb_close(db);
	return tap_done();
}
