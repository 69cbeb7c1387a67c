/*
 * router.h: the two halves every request goes through.
 *
 * Match (REST only): HTTP method + raw path -> the row and its raw path
 * values (sw_route_match).  sw_route() then authenticates, authorizes
 * (scope, Origin), reads the body and turns path and query text into
 * typed JSON, and dispatches.
 *
 * Dispatch (every face): the row, the principal and the arguments as
 * JSON -> scope, validation against the row's field tables, dry_run,
 * the Idempotency-Key replay, the long-poll slots, the handler.  REST
 * reaches it through sw_route(); MCP's tools/call calls sw_dispatch()
 * with its arguments as they came, with no path or body text between.
 * A failure at any step ends the request with the matching problem
 * document; handlers only ever see validated input in req->args.
 *
 * The router knows no handler: the program that routes passes a table
 * of { operation name, handler } rows (handlers/table.c), so lib/ never
 * reaches up into handlers/.
 *
 * Paths are matched on the raw request target (REQUEST_URI), split on
 * '/' before any percent-decoding; each {variable} is then decoded and
 * must be one plain segment: a decoded '/', '\\', '%', a control
 * character, "." or ".." is refused (400), and a raw "." / ".." / empty
 * segment matches no route (404).  So an encoded separator can never
 * turn one route into another.
 */
#ifndef SW_ROUTER_H
#define SW_ROUTER_H

#include "api/req.h"

typedef sw_err (*sw_handler)(struct sw_req *);

/* One row of a handler table; a table ends with a row whose op is NULL. */
struct sw_handler_row {
	const char *op; /* operation name (api/optable.c) */
	sw_handler fn;
};

/*
 * REST: match, authenticate, parse, dispatch with the handlers of
 * table (borrowed); the answer is left in r for sw_req_render().  A
 * row without a handler in table is a 500 problem.
 */
void sw_route(struct sw_req *r, const struct sw_handler_row *table);

/*
 * The row of r's method and raw path (r->uri), with the raw (still
 * percent-encoded) path values added to vars (borrowed, may be NULL);
 * NULL with r failed: 404, or 405 with an Allow header.
 */
const struct sw_op *sw_route_match(struct sw_req *r, json_object *vars);

/*
 * Run row op for who (borrowed; unused by a public row) with args
 * (borrowed, a JSON object or NULL): members named by the row's path
 * and query fields (and dry_run where the row takes it) are those,
 * typed by their fields as REST types the text of a URL; the others
 * are the body.  Then the scope check, validation and the handler as
 * for REST.  r holds only its context (db, cfg) before; the answer or
 * the failure is left in r as sw_route() leaves it.
 */
void sw_dispatch(struct sw_req *r, const struct sw_op *op,
    const struct sw_principal *who, json_object *args,
    const struct sw_handler_row *table);

/*
 * Bound long polls (rows flagged SW_OP_LONG_POLL) in this process.  A
 * poll takes a slot first: a lock file under dir (created 0700) held
 * with flock() for the length of the request, so a crashed worker frees
 * its slots.  Per token at most SW_MAX_WAITS_PER_TOKEN slots across all
 * processes; per lane (e.g. "mcp") at most lane_slots, 0 meaning no lane
 * cap (the wait pool, bounded by its size).  Past either: 429
 * problem+json with Retry-After.  Without this call nothing is bounded
 * (unit tests).  dir is copied.  Fails (logged) when dir cannot be
 * made: a program must not start then.
 */
sw_err sw_route_long_polls(const char *dir, const char *lane, int lane_slots);

/*
 * Take the same slots as a long poll (the token's and this process's
 * lane) for another held request, e.g. an MCP notification stream:
 * 0 with the fds, -1 when the token or the lane has none free.
 * sw_route_hold_end() gives them back.
 */
int sw_route_hold_begin(const char *token_id, int fds[2]);
void sw_route_hold_end(int fds[2]);

/*
 * The team rule (sw_team_rule, lib/teams.h) for a row of the operation
 * table: may who call op for team (the team the request names or
 * dispatch chose for it; NULL: none)?  NULL when it may, else why,
 * naming the rule.  Dispatch decides every request of REST and MCP
 * with it.
 */
const char *sw_authz_decide(const struct sw_config *cfg,
    const struct sw_principal *who, const struct sw_op *op, const char *team,
    char *why, size_t whysz);

/* May who call op for some team (its default one)?  tools/list. */
int sw_authz_may(const struct sw_config *cfg, const struct sw_principal *who,
    const struct sw_op *op);

/* The handler of an operation in table, or NULL. */
sw_handler sw_route_handler(const struct sw_handler_row *table, const char *op);

/*
 * The answer of every operation-starting request: 202 with the
 * operation (read from r->db), its status tool and poll interval, and a
 * Location header.  Used by handlers and by Idempotency-Key replays.
 */
sw_err sw_route_accepted(struct sw_req *r, const char *op_id, int existed);

/*
 * Why a decoded path variable is not one plain segment ('/', '\\',
 * '%', control characters, "." or ".."), or NULL when it is.  Dispatch
 * checks every path value with it, whichever face it came from; MCP's
 * plugin tools check their path arguments with it too.
 */
const char *sw_path_segment_bad(const char *value);

#endif
