/* test-notify.c: subscriptions and the notification outbox: the
 * triggers write an event and its deliveries with the state change (by
 * kind and cluster, once per change, nothing nobody wants), a delivery
 * is leased to one poller, retried until dead, released when its
 * poller is gone, and deleted with its subscription. */
#include <string.h>

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
	sqlite3_stmt *st;
	int n = -1;

	if (sqlite3_prepare_v2(sw_db_handle(db), "SELECT count(*) FROM "
	    "notify_events", -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
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
	    count(db, NULL, NULL) == 0, "running is no event");
	ok(sw_op_set_state(db, a, "failed", "boom") == SW_OK,
	    "c1's operation fails");
	is_int(count(db, "pending", "all"), 1, "the wide one gets it");
	is_int(count(db, "pending", "c1-failures"), 1,
	    "the cluster's one gets it");
	ok(sw_op_set_state(db, a, "failed", "boom") == SW_OK &&
	    count(db, NULL, NULL) == 2, "the same state again is no event");
	ok(sw_op_set_state(db, b, "failed", "boom") == SW_OK &&
	    count(db, NULL, "c1-failures") == 1 && count(db, NULL, "all") ==
	    2, "another cluster's failure: only the wide one");
	ok(sw_stage_set_state(db, b, 0, "succeeded", NULL) == SW_OK &&
	    count(db, NULL, "all") == 3, "a stage that succeeds is an event");
	is_int(events_kept(db), 3, "one event per change");
	ok(sw_op_set_state(db, c, "cancelled", NULL) == SW_OK &&
	    events_kept(db) == 3, "an event nobody wants is not kept");
	ok(sw_delivery_list(db, NULL, "all", 0, 10, &list) == SW_OK &&
	    strncmp(sw_json_get_str(json_object_array_get_idx(list, 0),
	    "event_id"), "ev-", 3) == 0, "events have an ev- id");
	json_object_put(list);

	ok(sw_delivery_list(db, NULL, NULL, 0, 3, &list) == SW_OK &&
	    json_object_array_length(list) == 3, "a page of three");
	seq = sw_json_get_int(json_object_array_get_idx(list, 2), "seq", 0);
	json_object_put(list);
	ok(sw_delivery_list(db, NULL, NULL, seq, 3, &list) == SW_OK &&
	    json_object_array_length(list) == 1, "and the one left after it");
	json_object_put(list);
	ok(sw_delivery_due(db, sw_now_ms() + 1000, refs, 8, &n) == SW_OK &&
	    n == 4, "four deliveries due");
	ok(sw_delivery_take(db, &refs[0], "poller-1", sw_now_ms() + 60000,
	    &doc) == SW_OK && doc != NULL, "a poller takes one");
	is_int(sw_json_get_int(doc, "attempts", 0), 1, "the attempt counts");
	ok(sw_json_get_str(doc, "data") != NULL &&
	    sw_json_get_str(doc, "address") != NULL, "with what to send");
	json_object_put(doc);
	ok(sw_delivery_take(db, &refs[0], "poller-2", sw_now_ms() + 60000,
	    &doc) == SW_ECONFLICT, "another cannot take it while leased");
	ok(sw_delivery_done(db, &refs[0], "poller-2") == SW_OK &&
	    count(db, "delivered", NULL) == 0, "nor record it");
	ok(sw_delivery_retry(db, &refs[0], "poller-1", 0, "HTTP 500", 2) ==
	    SW_OK && count(db, "pending", NULL) == 4, "a failure: again later");
	ok(sw_delivery_take(db, &refs[0], "poller-1", sw_now_ms() + 60000,
	    &doc) == SW_OK, "taken again once due");
	json_object_put(doc);
	ok(sw_delivery_retry(db, &refs[0], "poller-1", 0, "HTTP 500", 2) ==
	    SW_OK && count(db, "dead", NULL) == 1,
	    "the last attempt's failure: dead");
	ok(sw_delivery_take(db, &refs[0], "poller-1", sw_now_ms() + 60000,
	    &doc) == SW_ECONFLICT, "a dead letter is not taken");
	ok(sw_delivery_take(db, &refs[1], "poller-gone", sw_now_ms() + 60000,
	    &doc) == SW_OK, "a poller that will die takes one");
	json_object_put(doc);
	is_int(sw_delivery_release_dead(db, gone_owner, NULL), 1,
	    "its lease is released");
	ok(sw_delivery_take(db, &refs[1], "poller-3", sw_now_ms() + 60000,
	    &doc) == SW_OK, "and another poller takes it");
	json_object_put(doc);
	ok(sw_delivery_done(db, &refs[1], "poller-3") == SW_OK &&
	    count(db, "delivered", NULL) == 1, "delivered");
	ok(sw_sub_list(db, NULL, &list) == SW_OK &&
	    json_object_array_length(list) == 2, "both listed");
	json_object_put(list);
	ok(sw_sub_delete(db, "all") == SW_OK && count(db, NULL, "all") == 0,
	    "a deleted subscription's deliveries go with it");
	ok(sw_sub_delete(db, "all") == SW_ENOTFOUND, "deleting again: none");
	ok(sw_sub_list(db, "all", &list) == SW_ENOTFOUND, "nor listed");
	tmpdb_close(db);
	return tap_done();
}
