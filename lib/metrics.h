/*
 * metrics.h: Prometheus counters shared by every Slipway process.
 *
 * Each process counts into a small file of its own under
 * $SLIPWAY_STATE_DIR/run/metrics/ (mapped shared, opened on first use,
 * reopened after a fork), so a counter survives the process that made
 * it and GET /metrics sums the files of every process: the API and MCP
 * workers, the poller and the supervisor.  Without SLIPWAY_STATE_DIR
 * counting is off.  Label values are reduced to [A-Za-z0-9_.:/-].
 */
#ifndef SW_METRICS_H
#define SW_METRICS_H

#include <stdint.h>

#include "lib/buf.h"
#include "lib/err.h"

/* Counter slots per process, and the longest name{labels} key. */
#define SW_METRIC_SLOTS 512
#define SW_METRIC_KEY 120

/*
 * Add n to counter name with labels given as key, value pairs ended by
 * NULL (a NULL value is shown as ""), e.g.
 * sw_metric_add("slipway_mcp_calls_total", 1, "tool", name, NULL).
 * Never fails the caller: a full table or a file that cannot be opened
 * drops the count (logged once).
 */
void sw_metric_add(const char *name, int64_t n, ...) __attribute__((sentinel));

/*
 * Append every counter of every process under dir (the metrics
 * directory of a state directory), summed by key, as Prometheus text
 * with a TYPE line per name.
 */
sw_err sw_metrics_render_counters(const char *dir, struct sw_buf *out);

#endif
