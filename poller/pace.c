/*
 * pace.c: periodic per-cluster work in turns, paced per account and
 * region (pace.h).
 */
#include <string.h>

#include "lib/buf.h"
#include "lib/json.h"
#include "lib/ops.h"
#include "poller/pace.h"

/*
 * Each cluster's account and region ("account|region", "" parts for
 * Slipway's own) into homes, and how many clusters each holds into
 * counts ({home: n}).
 */
static void
homes_of(json_object *rows, json_object *homes, json_object *counts)
{
	json_object *row;
	char home[64];
	size_t i;

	for (i = 0; i < json_object_array_length(rows); i++) {
		row = json_object_array_get_idx(rows, i);
		if (sw_fmt(home, sizeof(home), "%s|%s",
			sw_json_get_str(row, "account") ?: "",
			sw_json_get_str(row, "region") ?: "") != SW_OK)
			home[0] = '\0'; /* 16 + 32 bytes fit */
		json_object_array_add(homes, sw_js(home));
		json_object_object_add(counts, home,
		    json_object_new_int64(
			sw_json_get_int(counts, home, 0) + 1));
	}
}

/*
 * A pass reads the clusters with their homes and create states, and
 * which of its turns are not due, in two statements whatever the number
 * of clusters; a turn it cannot get is not asked for.
 */
sw_err
sw_pace_begin(struct sw_pace *p, struct sw_db *db, const char *what,
    int64_t every_ms, int rate, int64_t *last_ms)
{
	int64_t now = sw_now_ms(), since;
	char prefix[32];
	sw_err e;

	memset(p, 0, sizeof(*p));
	p->what = what;
	p->every_ms = every_ms;
	p->rate = rate;
	if ((e = sw_fmt(prefix, sizeof(prefix), "%s ", what)) != SW_OK ||
	    (e = sw_cluster_states(db, &p->rows)) != SW_OK)
		return e;
	if ((e = sw_turns_waiting(db, prefix, &p->waiting)) != SW_OK) {
		json_object_put(p->rows);
		return e;
	}
	(void)sw_db_idle(db);
	p->homes = json_object_new_array();
	p->counts = json_object_new_object();
	p->taken = json_object_new_object();
	if (rate > 0) {
		homes_of(p->rows, p->homes, p->counts);
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
	return json_object_array_length(p->rows);
}

const char *
sw_pace_cluster(const struct sw_pace *p, size_t i)
{
	return sw_json_get_str(json_object_array_get_idx(p->rows, i), "name");
}

void
sw_pace_creating(
    const struct sw_pace *p, size_t i, int *creating, int *hyperpod)
{
	json_object *row = json_object_array_get_idx(p->rows, i);

	*creating = sw_json_get_bool(row, "creating", 0);
	*hyperpod = sw_json_get_bool(row, "hyperpod", 1);
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
	    sw_json_get(p->waiting, turn) != NULL ||
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
	json_object_put(p->rows);
	json_object_put(p->waiting);
	json_object_put(p->homes);
	json_object_put(p->counts);
	json_object_put(p->taken);
	memset(p, 0, sizeof(*p));
}
