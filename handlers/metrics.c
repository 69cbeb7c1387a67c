/*
 * metrics.c: GET /metrics, Prometheus text for an admin token.  The
 * counters every process keeps (AWS requests by service, operation and
 * outcome, retries, throttles, MCP calls by tool, worker restarts; see
 * lib/metrics.h) are summed here, and what the state store knows is
 * read at scrape time: operations by kind and state, how long
 * succeeded stages ran (a histogram) and the poller's lag, the age of
 * the oldest operation that is due and not being run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/handlers.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/db.h"
#include "lib/metrics.h"
#include "lib/ops.h"

/* Stage duration buckets, seconds of wall time. */
static const double buckets[] = { 1, 5, 15, 60, 300, 900, 3600 };
#define NBUCKETS (sizeof(buckets) / sizeof(buckets[0]))

static sw_err
render_operations(struct sw_db *db, struct sw_buf *b)
{
	struct sw_st *st = sw_db_stmt(db, STMT_METRIC_OPS);
	sw_err e;
	int rc;

	if (st == NULL)
		return SW_EINTERNAL;
	e = sw_buf_puts(b,
	    "# HELP slipway_operations Operations by kind and "
	    "state.\n# TYPE slipway_operations gauge\n");
	while (e == SW_OK && (rc = sw_db_step(st)) == SW_DB_ROW)
		e = sw_buf_printf(b,
		    "slipway_operations{kind=\"%s\","
		    "state=\"%s\"} %lld\n",
		    sw_col_text(st, 0), sw_col_text(st, 1),
		    (long long)sw_col_int64(st, 2));
	sw_reset(st);
	return e;
}

struct hist {
	char kind[64], stage[64];
	long long count[NBUCKETS];
	long long n;
	double sum;
};

static sw_err
render_stages(struct sw_db *db, struct sw_buf *b)
{
	struct sw_st *st = sw_db_stmt(db, STMT_METRIC_STAGES);
	struct hist *h = NULL, *nh;
	size_t nh_len = 0, i, k;
	double secs;
	sw_err e;

	if (st == NULL)
		return SW_EINTERNAL;
	while (sw_db_step(st) == SW_DB_ROW) {
		const char *kind = sw_col_text(st, 0),
			   *stage = sw_col_text(st, 1);

		secs = (double)sw_col_int64(st, 2) / 1000.0;
		for (i = 0; i < nh_len; i++)
			if (strcmp(h[i].kind, kind) == 0 &&
			    strcmp(h[i].stage, stage) == 0)
				break;
		if (i == nh_len) {
			if ((nh = sw_realloc(h, (nh_len + 1) * sizeof(*h))) ==
			    NULL) {
				free(h);
				return SW_ENOMEM;
			}
			h = nh;
			memset(&h[i], 0, sizeof(h[i]));
			if (sw_fmt(h[i].kind, sizeof(h[i].kind), "%s", kind) !=
				SW_OK ||
			    sw_fmt(h[i].stage, sizeof(h[i].stage), "%s",
				stage) != SW_OK) {
				free(h);
				return SW_ETOOBIG;
			}
			nh_len++;
		}
		for (k = 0; k < NBUCKETS; k++)
			if (secs <= buckets[k])
				h[i].count[k]++;
		h[i].n++;
		h[i].sum += secs;
	}
	sw_reset(st);
	e = sw_buf_puts(b,
	    "# HELP slipway_stage_duration_seconds How long "
	    "succeeded stages ran.\n# TYPE slipway_stage_duration_seconds "
	    "histogram\n");
	for (i = 0; e == SW_OK && i < nh_len; i++) {
		for (k = 0; e == SW_OK && k < NBUCKETS; k++)
			e = sw_buf_printf(b,
			    "slipway_stage_duration_seconds_"
			    "bucket{kind=\"%s\",stage=\"%s\",le=\"%g\"} %lld\n",
			    h[i].kind, h[i].stage, buckets[k], h[i].count[k]);
		if (e == SW_OK)
			e = sw_buf_printf(b,
			    "slipway_stage_duration_seconds_"
			    "bucket{kind=\"%s\",stage=\"%s\",le=\"+Inf\"} "
			    "%lld\nslipway_stage_duration_seconds_sum{kind="
			    "\"%s\",stage=\"%s\"} %.3f\n"
			    "slipway_stage_duration_seconds_count{kind=\"%s\","
			    "stage=\"%s\"} %lld\n",
			    h[i].kind, h[i].stage, h[i].n, h[i].kind,
			    h[i].stage, h[i].sum, h[i].kind, h[i].stage,
			    h[i].n);
	}
	free(h);
	return e;
}

static sw_err
render_lag(struct sw_db *db, struct sw_buf *b)
{
	/* due times are the database's clock */
	int64_t now = sw_db_now_ms(db), lag = 0;
	struct sw_st *st = sw_db_stmt(db, STMT_METRIC_DUE);

	if (st == NULL)
		return SW_EINTERNAL;
	sw_bind_int64(st, 1, now);
	if (sw_db_step(st) == SW_DB_ROW && !sw_col_null(st, 0))
		lag = now - sw_col_int64(st, 0);
	sw_reset(st);
	return sw_buf_printf(b,
	    "# HELP slipway_poller_lag_seconds Age of the "
	    "oldest operation that is due and not being run.\n"
	    "# TYPE slipway_poller_lag_seconds gauge\n"
	    "slipway_poller_lag_seconds %.3f\n",
	    (double)lag / 1000.0);
}

sw_err
h_metrics(struct sw_req *r)
{
	struct sw_buf b;
	char dir[600];
	sw_err e;

	sw_buf_init(&b, 4 << 20);
	if ((e = sw_fmt(dir, sizeof(dir), "%s/run/metrics",
		 r->cfg->state_dir)) == SW_OK &&
	    (e = render_operations(r->db, &b)) == SW_OK &&

	    (e = render_stages(r->db, &b)) == SW_OK &&
	    (e = render_lag(r->db, &b)) == SW_OK)
		e = sw_metrics_render_counters(dir, &b);
	if (e != SW_OK) {
		sw_buf_free(&b);
		return sw_req_fail(r, e, "cannot render the metrics");
	}
	r->raw = b.data;
	r->raw_len = b.len;
	r->raw_type = "text/plain; version=0.0.4; charset=utf-8";
	r->status = 200;
	return SW_OK;
}
