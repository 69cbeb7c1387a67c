/*
 * budgets.c: monthly budgets per team or cluster (lib/budget.h): set,
 * read with what was spent this month, the forecast to its end and the
 * thresholds crossed, removed.  The poller records the crossings
 * (poller/budgets.c); a read only sums what the ledger holds.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "handlers/handlers.h"
#include "lib/budget.h"
#include "lib/buf.h"
#include "lib/json.h"

static const int default_thresholds[] = { 50, 80, 100 };

static json_object *
rfc3339(int64_t s)
{
	char buf[32];
	time_t t = (time_t)s;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	return json_object_new_string(buf);
}

/* a of b, percent, two decimals */
static json_object *
percent(int64_t a, int64_t b)
{
	char text[32];
	int64_t bp = b > 0 ? a * 10000 / b : 0;

	if (sw_fmt(text, sizeof(text), "%" PRId64 ".%02" PRId64, bp / 100,
		bp % 100) != SW_OK)
		return NULL;
	return json_object_new_double_s((double)bp / 100.0, text);
}

static json_object *
alerts_json(json_object *rows)
{
	json_object *out = json_object_new_array();
	size_t i;

	for (i = 0; i < json_object_array_length(rows); i++) {
		json_object *a = json_object_array_get_idx(rows, i);

		json_object_array_add(out,
		    sw_jo("threshold",
			json_object_new_int64(
			    sw_json_get_int(a, "threshold", 0)),
			"crossed_at", rfc3339(sw_json_get_int(a, "crossed", 0)),
			"spent_usd",
			h_usd(sw_json_get_int(a, "spent_micro", 0)), NULL));
	}
	return out;
}

/* The answer for budget b at the ledger's clock now; NULL on failure
 * (r's problem filled). */
static json_object *
budget_json(struct sw_req *r, const struct sw_budget *b, int64_t now)
{
	struct sw_budget_state st;
	json_object *rows = NULL, *thr, *o;
	int i;
	sw_err e;

	if ((e = sw_budget_state(r->db, b, now, &st)) != SW_OK ||
	    (e = sw_budget_alerts(r->db, b->scope, b->name, st.month, 0,
		 SW_BUDGET_MAX_THRESHOLDS, &rows)) != SW_OK) {
		(void)sw_req_fail(
		    r, e, "cannot read budget %s/%s", b->scope, b->name);
		return NULL;
	}
	thr = json_object_new_array();
	for (i = 0; i < b->nthreshold; i++)
		json_object_array_add(
		    thr, json_object_new_int(b->threshold[i]));
	o = sw_jo("scope", sw_js(b->scope), "name", sw_js(b->name), "limit_usd",
	    h_usd(b->limit_micro), "thresholds", thr, "month", sw_js(st.month),
	    "as_of", rfc3339(st.now), "month_end", rfc3339(st.month_end),
	    "remaining_seconds", json_object_new_int64(st.month_end - st.now),
	    "spent_usd", h_usd(st.spent_micro), "percent",
	    percent(st.spent_micro, b->limit_micro), "burn_usd_per_hour",
	    h_usd(st.burn_micro_hour), "forecast_usd", h_usd(st.forecast_micro),
	    "forecast_percent", percent(st.forecast_micro, b->limit_micro),
	    "unpriced", json_object_new_boolean(st.unpriced), "alerts",
	    alerts_json(rows), "created_ms", json_object_new_int64(b->created),
	    "updated_ms", json_object_new_int64(b->updated), NULL);
	json_object_put(rows);
	return o;
}

/* The ledger's clock, or r's problem filled. */
static sw_err
ledger_now(struct sw_req *r, int64_t *now)
{
	sw_err e;

	if ((e = sw_ledger_now(r->db, now)) != SW_OK)
		return sw_req_fail(r, e, "cannot read the ledger's clock");
	return SW_OK;
}

sw_err
h_budget_list(struct sw_req *r)
{
	struct sw_budget *b = NULL;
	json_object *items, *o;
	int64_t now;
	char month[8];
	struct tm tm;
	time_t t;
	size_t i, n = 0;
	sw_err e;

	if (ledger_now(r, &now) != SW_OK)
		return r->err;
	if ((e = sw_budget_list(
		 r->db, sw_json_get_str(r->args, "scope"), &b, &n)) != SW_OK)
		return sw_req_fail(r, e, "cannot list the budgets");
	items = json_object_new_array();
	for (i = 0; i < n; i++) {
		if ((o = budget_json(r, &b[i], now)) == NULL) {
			free(b);
			json_object_put(items);
			return r->err;
		}
		json_object_array_add(items, o);
	}
	free(b);
	t = (time_t)now;
	gmtime_r(&t, &tm);
	strftime(month, sizeof(month), "%Y-%m", &tm);
	sw_req_reply(r, 200,
	    sw_jo("month", sw_js(month), "as_of", rfc3339(now), "currency",
		sw_js("USD"), "items", items, NULL));
	return SW_OK;
}

static sw_err
reply_budget(struct sw_req *r, int status, const char *scope, const char *name)
{
	struct sw_budget b;
	json_object *o;
	int64_t now;
	sw_err e;

	if ((e = sw_budget_get(r->db, scope, name, &b)) == SW_ENOTFOUND)
		return sw_req_fail(
		    r, e, "no budget is set for %s %s", scope, name);
	if (e != SW_OK)
		return sw_req_fail(
		    r, e, "cannot read budget %s/%s", scope, name);
	if (ledger_now(r, &now) != SW_OK ||
	    (o = budget_json(r, &b, now)) == NULL)
		return r->err;
	sw_req_reply(r, status, o);
	return SW_OK;
}

sw_err
h_budget_get(struct sw_req *r)
{
	return reply_budget(r, 200, sw_json_get_str(r->args, "scope"),
	    sw_json_get_str(r->args, "name"));
}

/* The thresholds asked for (or the defaults) into b; ascending only. */
static sw_err
take_thresholds(struct sw_req *r, struct sw_budget *b)
{
	json_object *t = sw_json_get(r->args, "thresholds");
	char field[32];
	size_t i;

	b->nthreshold = 0;
	if (t == NULL) {
		for (i = 0; i < 3; i++)
			b->threshold[b->nthreshold++] = default_thresholds[i];
		return SW_OK;
	}
	for (i = 0;
	     i < json_object_array_length(t) && i < SW_BUDGET_MAX_THRESHOLDS;
	     i++) {
		b->threshold[i] =
		    json_object_get_int(json_object_array_get_idx(t, i));
		if (i > 0 && b->threshold[i] <= b->threshold[i - 1]) {
			sw_fmt_text(field, sizeof(field), "thresholds[%zu]", i);
			sw_ferr_add(&r->ferrs, field, "ascending",
			    "must be "
			    "more than the threshold before it (%d)",
			    b->threshold[i - 1]);
		}
		b->nthreshold++;
	}
	if (r->ferrs.n > 0)
		return sw_req_fail(r, SW_EINVAL, "%s: %s", r->ferrs.e[0].field,
		    r->ferrs.e[0].msg);
	return SW_OK;
}

/* A cluster's budget names a cluster: the cluster pattern. */
static sw_err
check_name(struct sw_req *r, const char *scope, const char *name)
{
	size_t n = strlen(name);

	if (strcmp(scope, "cluster") != 0 ||
	    (n >= 2 && n <= 32 && name[0] >= 'a' && name[0] <= 'z' &&
		name[n - 1] != '-'))
		return SW_OK;
	sw_ferr_add(&r->ferrs, "name", "pattern",
	    "a cluster name: 2 to 32 "
	    "of a-z, 0-9 and '-', starting with a letter");
	return sw_req_fail(r, SW_EINVAL, "name: not a cluster name");
}

sw_err
h_budget_set(struct sw_req *r)
{
	const char *scope = sw_json_get_str(r->args, "scope");
	const char *name = sw_json_get_str(r->args, "name");
	struct sw_budget b;
	double usd = json_object_get_double(sw_json_get(r->args, "limit_usd"));
	int created = 0;
	sw_err e;

	memset(&b, 0, sizeof(b));
	if (check_name(r, scope, name) != SW_OK ||
	    take_thresholds(r, &b) != SW_OK)
		return r->err;
	/* both fit: the table bounds them (scope an enum, name 63) */
	if (sw_fmt(b.scope, sizeof(b.scope), "%s", scope) != SW_OK ||
	    sw_fmt(b.name, sizeof(b.name), "%s", name) != SW_OK)
		return sw_req_fail(r, SW_EINVAL, "name: too long");
	/* to the micro-dollar, rounded */
	b.limit_micro = (int64_t)(usd * 1e6 + 0.5);
	if ((e = sw_budget_put(r->db, &b, sw_db_now_ms(r->db), &created)) !=
	    SW_OK)
		return sw_req_fail(
		    r, e, "cannot keep budget %s/%s", scope, name);
	return reply_budget(r, created ? 201 : 200, scope, name);
}

sw_err
h_budget_delete(struct sw_req *r)
{
	const char *scope = sw_json_get_str(r->args, "scope");
	const char *name = sw_json_get_str(r->args, "name");
	sw_err e;

	if ((e = sw_budget_delete(r->db, scope, name)) == SW_ENOTFOUND)
		return sw_req_fail(
		    r, e, "no budget is set for %s %s", scope, name);
	if (e != SW_OK)
		return sw_req_fail(
		    r, e, "cannot remove budget %s/%s", scope, name);
	sw_req_reply(r, 200,
	    sw_jo("scope", sw_js(scope), "name", sw_js(name), "deleted",
		json_object_new_boolean(1), NULL));
	return SW_OK;
}
