/*
 * pace.c: periodic per-cluster work in turns, paced per account and
 * region (pace.h).
 */
#include <string.h>

#include "lib/buf.h"
#include "lib/json.h"
#include "lib/ledger.h"
#include "lib/ops.h"
#include "poller/pace.h"

/*
 * Each cluster's account and region ("account|region", "" parts for
 * Slipway's own) into homes, and how many clusters each holds into
 * counts ({home: n}).  A cluster whose record is gone since the names
 * were read counts as Slipway's own.
 */
static void
homes_of(struct sw_db *db, json_object *names, json_object *homes,
    json_object *counts)
{
	struct sw_cluster_rec rec;
	const char *name;
	char home[64];
	size_t i;

	for (i = 0; i < json_object_array_length(names); i++) {
		name =
		    json_object_get_string(json_object_array_get_idx(names, i));
		if (sw_cluster_get(db, name, &rec) != SW_OK)
			memset(&rec, 0, sizeof(rec));
		if (sw_fmt(home, sizeof(home), "%s|%s", rec.account,
			rec.region) != SW_OK)
			home[0] = '\0'; /* 16 + 32 bytes fit */
		json_object_array_add(homes, sw_js(home));
		json_object_object_add(counts, home,
		    json_object_new_int64(
			sw_json_get_int(counts, home, 0) + 1));
	}
	(void)sw_db_idle(db);
}

sw_err
sw_pace_begin(struct sw_pace *p, struct sw_db *db, const char *what,
    int64_t every_ms, int rate, int64_t *last_ms)
{
	int64_t now = sw_now_ms(), since;
	sw_err e;

	memset(p, 0, sizeof(*p));
	p->what = what;
	p->every_ms = every_ms;
	p->rate = rate;
	if ((e = sw_cluster_names(db, &p->names)) != SW_OK)
		return e;
	p->homes = json_object_new_array();
	p->counts = json_object_new_object();
	p->taken = json_object_new_object();
	if (rate > 0) {
		homes_of(db, p->names, p->homes, p->counts);
		since = *last_ms > 0 && now - *last_ms < every_ms
		    ? now - *last_ms
		    : every_ms;
		p->cap = rate * since / 1000 > 0 ? rate * since / 1000 : 1;
	}
	*last_ms = now;
	return SW_OK;
}

size_t
sw_pace_count(const struct sw_pace *p)
{
	return json_object_array_length(p->names);
}

const char *
sw_pace_cluster(const struct sw_pace *p, size_t i)
{
	return json_object_get_string(json_object_array_get_idx(p->names, i));
}

int
sw_pace_take(struct sw_pace *p, struct sw_db *db, size_t i)
{
	int64_t interval = p->every_ms, n;
	const char *home = NULL;
	char turn[128];
	int mine;

	if (p->rate > 0) {
		home = json_object_get_string(
		    json_object_array_get_idx(p->homes, i));
		if (sw_json_get_int(p->taken, home, 0) >= p->cap)
			return 0; /* the next pass's */
		n = sw_json_get_int(p->counts, home, 1);
		if (n * 1000 / p->rate > interval)
			interval = n * 1000 / p->rate;
	}
	if (sw_fmt(turn, sizeof(turn), "%s %s", p->what,
		sw_pace_cluster(p, i)) != SW_OK ||
	    sw_turn_take(db, turn, interval, &mine) != SW_OK || !mine)
		return 0;
	if (home != NULL)
		json_object_object_add(p->taken, home,
		    json_object_new_int64(
			sw_json_get_int(p->taken, home, 0) + 1));
	return 1;
}

void
sw_pace_end(struct sw_pace *p)
{
	json_object_put(p->names);
	json_object_put(p->homes);
	json_object_put(p->counts);
	json_object_put(p->taken);
	memset(p, 0, sizeof(*p));
}
