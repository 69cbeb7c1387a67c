/*
 * router.h: the REST pipeline every request goes through, in order:
 * route (operation table) -> authenticate -> authorize (scope, Origin)
 * -> read and parse the body -> validate path, query and body against
 * the row's field tables -> call the handler.  A failure at any step
 * ends the request with the matching problem document; handlers only
 * ever see validated input in req->args.
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
	const char	*op;		/* operation name (api/optable.c) */
	sw_handler	 fn;
};

/*
 * Run the pipeline with the handlers of table (borrowed); the answer is
 * left in r for sw_req_render().  A row without a handler in table is a
 * 501 problem.
 */
void	sw_route(struct sw_req *r, const struct sw_handler_row *table);

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
sw_err	sw_route_long_polls(const char *dir, const char *lane, int lane_slots);

/*
 * Take the same slots as a long poll (the token's and this process's
 * lane) for another held request, e.g. an MCP notification stream:
 * 0 with the fds, -1 when the token or the lane has none free.
 * sw_route_hold_end() gives them back.
 */
int	sw_route_hold_begin(const char *token_id, int fds[2]);
void	sw_route_hold_end(int fds[2]);

/* The handler of an operation in table, or NULL. */
sw_handler sw_route_handler(const struct sw_handler_row *table,
	    const char *op);

/*
 * The answer of every operation-starting request: 202 with the
 * operation (read from r->db), its status tool and poll interval, and a
 * Location header.  Used by handlers and by Idempotency-Key replays.
 */
sw_err	sw_route_accepted(struct sw_req *r, const char *op_id, int existed);

/*
 * Why a decoded path variable is not one plain segment ('/', '\\',
 * '%', control characters, "." or ".."), or NULL when it is.  MCP runs
 * the same check on tool arguments before it builds a path.
 */
const char *sw_path_segment_bad(const char *value);


#endif
