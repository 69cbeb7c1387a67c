/*
 * optable.h: the one table of API operations.  A row names the
 * operation (also its MCP tool name and OpenAPI operationId), its HTTP
 * method and path, its input fields, flags, the scope it needs, the
 * tool that decides when its work is done.  From this table the REST
 * router routes and validates, slipway-mcp lists tools, and openapi.c
 * writes the OpenAPI document.  The table names no handler: lib/ knows
 * no handler or pipeline.  The programs that route own the table that
 * maps an operation name to its handler (handlers/table.c) and pass it
 * to sw_route().
 */
#ifndef SW_OPTABLE_H
#define SW_OPTABLE_H

#include <stddef.h>

#include "lib/auth.h"
#include "lib/valid.h"

#define SW_OP_READONLY 0x01 /* changes nothing */
#define SW_OP_DESTRUCTIVE 0x02 /* deletes or replaces things */
#define SW_OP_IDEMPOTENT 0x04 /* repeating it changes nothing more */
#define SW_OP_LONG 0x08 /* answers 202 with an operation */
#define SW_OP_PUBLIC 0x10 /* no credentials needed */
#define SW_OP_NO_MCP 0x20 /* not offered as an MCP tool */
#define SW_OP_DRY_RUN 0x40 /* accepts ?dry_run=true */
#define SW_OP_LONG_POLL \
	0x80 /* holds the request (bounded):
					 * served by the wait pool, capped
					 * per token (router.h) */
/* What a face does beyond REST, as rules of the row, never of a name: */
#define SW_OP_CONFIRM_OFF \
	0x100 /* turning something off while the
					 * cluster runs workloads needs the
					 * user's confirmation (MCP) */
#define SW_OP_WORKLOADS \
	0x200 /* lists a cluster's workloads
					 * ({name}); each item not
					 * "terminal" counts as running */
#define SW_OP_PROGRESS \
	0x400 /* waits on an operation ({id}):
					 * with a progress token, its events
					 * arrive as progress (MCP) */
#define SW_OP_CONFIGURED \
	0x800 /* serves a part of the
					 * configuration that may be absent:
					 * 404 then (OpenAPI lists it) */
#define SW_OP_SIGN_IN \
	0x1000 /* checks the credentials it is
					 * given (public, yet 401 when they
					 * are refused) */
#define SW_OP_TEAM_ARG \
	0x2000 /* a PLATFORM row whose team
					 * argument names the team it is
					 * for (service accounts): it needs
					 * platform-admin of that team */
#define SW_OP_ANY_HOST \
	0x4000 /* answers whatever the Host header
					 * names: a load balancer's health
					 * check names the target's address
					 * (public, read-only, no data) */

/*
 * One answer an operation sends besides a problem document: its status,
 * whether a dry run sends it, and its members, either a shared shape by
 * name (sw_shapes, api/ops/shapes.c) or the row's own fields.  The
 * OpenAPI document, MCP's outputSchema and the test builds' check of
 * every answer (api/router.c) read these rows.
 */
#define SW_DRY_NOT 0 /* only when not a dry run */
#define SW_DRY_ONLY 1 /* only for ?dry_run=true */
#define SW_DRY_TOO 2 /* either way */

struct sw_answer {
	int status; /* 200, 201, 202...; 0 ends */
	int dry_run; /* SW_DRY_*: when it is sent */
	const char *desc; /* what it says */
	const char *shape; /* a shared shape, or */
	const struct sw_field *fields; /* the answer's own members */
	const char *media; /* NULL: application/json */
};

/* A shape more than one answer has (Operation, Plan, Problem...). */
struct sw_shape {
	const char *name;
	const char *desc;
	const struct sw_field *fields;
};

/* What a row touches (enum sw_touch, lib/auth.h): the team rule reads
 * it, with the row's scope and flags (sw_authz_decide, api/router.h). */
struct sw_op {
	const char *name; /* snake_case, unique */
	const char *method; /* GET POST PUT PATCH DELETE */
	const char *path; /* /api/v1/x/{id}[:verb] */
	const char *tag; /* OpenAPI tag / tool group */
	const char *summary; /* one line */
	const char *description; /* for agents; may be NULL */
	const struct sw_field *params; /* SW_F_PATH / SW_F_QUERY */
	const struct sw_field *body; /* JSON body or NULL */
	unsigned flags;
	enum sw_scope scope; /* least scope to call it */
	enum sw_touch touch; /* what it touches */
	const char *status_tool; /* decides completion */
	int poll_seconds; /* suggested poll interval */
	const char *output; /* schema name (openapi.c) */
	/* Every answer but a problem, ended by a row of status 0; NULL
	 * while the row describes its answer only by .output. */
	const struct sw_answer *answers;
};

/* The dry_run query parameter every SW_OP_DRY_RUN row takes: one row
 * read by the router, the MCP tool schemas and the OpenAPI document. */
extern const struct sw_field sw_dry_run_field;
/* The team argument every SW_TOUCH_TEAM row takes (query, or a body
 * member): its workloads are that team's, in hyperpod-ns-<team>. */
extern const struct sw_field sw_team_field;
/* Does the row take a team argument: every TEAM row, and a row flagged
 * SW_OP_TEAM_ARG (the service accounts')?  Such a row also reads the
 * Slipway-Team header, the team the UI works as, when it names none. */
int sw_op_takes_team(const struct sw_op *);
#define SW_TEAM_HEADER "Slipway-Team"
/* The rows of every family (api/ops/), joined before main() runs. */
extern const struct sw_op *const sw_optable;
extern size_t sw_optable_len;
/* The table's patterns in words (lib/valid.h's sw_valid_words). */
extern const struct sw_pattern_words sw_pattern_words[];

/* The shared shapes, ended by a row whose name is NULL, and one by
 * name (or NULL). */
extern const struct sw_shape sw_shapes[];
const struct sw_shape *sw_shape_by_name(const char *name);

/* The members of an answer (its own or its shape's); NULL when its
 * body is not JSON. */
const struct sw_field *sw_answer_fields(const struct sw_answer *a);

/* Could op send answer a with status, for a dry run or not? */
int sw_answer_fits(const struct sw_answer *a, int status, int dry_run);

/* Row by name, or NULL. */
const struct sw_op *sw_op_by_name(const char *name);

/*
 * Match a concrete path against a row's template.  Segments "{x}" and
 * "{x}:verb" bind x; vars (borrowed, may be NULL) gets the raw strings.
 * Returns 1 on a match.
 */
int sw_path_match(const char *tmpl, const char *path, json_object *vars);

/* Is cls a tool class a token may be limited to ("read-only",
 * "diagnose" or a table tag such as "workloads")?  Is every class of a
 * comma list one? */
int sw_tool_class_ok(const char *cls);
int sw_tool_classes_ok(const char *list);

#endif
