/*
 * mcp.h: the Model Context Protocol endpoint (/mcp) of slipway-mcp.
 *
 * One endpoint serves both eras of MCP over Streamable HTTP:
 *   - modern (2026-07-28): stateless; every request carries its version,
 *     client capabilities and identity in params._meta and mirrors the
 *     version, method and name in MCP-Protocol-Version, Mcp-Method and
 *     Mcp-Name headers; server/discover; resultType, ttlMs, cacheScope.
 *   - legacy (2025-03-26, 2025-06-18, 2025-11-25): initialize hands out
 *     an Mcp-Session-Id, notifications get 202, GET/DELETE get 405.
 * The tools are the rows of the operation table (api/optable.c) that do
 * not carry SW_OP_NO_MCP, plus the sysadmin's descriptors in
 * <state-dir>/tools.d/NAME.json.  A tools/call of a row goes to the
 * router's dispatch in this process with its arguments as JSON and the
 * principal this endpoint authenticated (one token check), so it is
 * validated, authorized and handled exactly as REST does for a browser
 * or curl, with no URL built and no HTTP hop.  A plugin
 * tool is a request to its /ext/NAME FastCGI program (mcp/mcp_rest.c).
 *
 * Nothing here knows about FastCGI: cgi/mcp.c fills a struct
 * sw_mcp_http from the environment and writes the struct sw_mcp_answer
 * back; the unit tests do the same with plain strings.
 */
#ifndef SW_MCP_H
#define SW_MCP_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/auth.h"
#include "lib/buf.h"
#include "lib/conf.h"
#include "lib/db.h"
#include "lib/err.h"
#include "lib/limits.h"
#include "api/optable.h"
#include "api/tooldesc.h"
#include "api/router.h"

/* ---- limits of the MCP endpoint (see lib/limits.h for the others) ---- */
/* A legacy Mcp-Session-Id is honoured this long (seconds); after that
 * the client gets 404 and initializes again, as the spec intends. */
#define SW_MCP_SESSION_TTL (24 * 3600)
/* One plugin tool request (tools.d -> /ext/NAME) may take this long
 * (seconds); below nginx's fastcgi_read_timeout for /mcp (90 s). */
#define SW_MCP_REST_TIMEOUT (SW_MAX_WAIT + 20)
/* Largest plugin answer relayed into a tool result. */
#define SW_MCP_MAX_REST_BODY (4 * 1024 * 1024)
/* A skill file (skills/NAME/SKILL.md) is at most this big, and at most
 * this many skills are served. */
#define SW_MCP_MAX_SKILL (256 * 1024)
#define SW_MCP_MAX_SKILLS 64
/* completion/complete gives at most this many values (the spec's cap). */
#define SW_MCP_MAX_COMPLETIONS 100
/* A notification stream (legacy GET, 2026-07-28 subscriptions/listen)
 * with something to watch stays open this long (seconds), well inside
 * nginx's fastcgi_read_timeout; an idle GET stream closes at once and
 * asks the client back after SW_MCP_STREAM_IDLE_RETRY_MS. */
#define SW_MCP_STREAM_HOLD 30
#define SW_MCP_STREAM_IDLE_RETRY_MS 5000
/* Resources one session (or one listen) may subscribe to, and the
 * sessions of one token that may hold subscriptions at once (each a
 * folder under run/mcp-subs, gone when its session expires). */
#define SW_MCP_MAX_SUBS 32
#define SW_MCP_MAX_SUB_SESSIONS 4
/* Cache hint (ttlMs) on server/discover and tools/list: plugins can
 * appear at a restart, so keep it short. */
#define SW_MCP_LIST_TTL_MS 60000

/* ---- protocol versions ------------------------------------------------ */
#define SW_MCP_MODERN_VERSION "2026-07-28"
#define SW_MCP_LEGACY_LATEST "2025-11-25"
/* The only legacy version that still allows JSON-RPC batches. */
#define SW_MCP_BATCH_VERSION "2025-03-26"

/* ---- JSON-RPC and MCP error codes -------------------------------------- */
#define SW_RPC_PARSE_ERROR (-32700)
#define SW_RPC_INVALID_REQUEST (-32600)
#define SW_RPC_METHOD_NOT_FOUND (-32601)
#define SW_RPC_INVALID_PARAMS (-32602)
#define SW_RPC_INTERNAL (-32603)
#define SW_RPC_RESOURCE_NOT_FOUND (-32002) /* legacy era only */
#define SW_RPC_HEADER_MISMATCH (-32020) /* 2026-07-28 */
#define SW_RPC_UNSUPPORTED_VER (-32022) /* 2026-07-28 */

/* NULL-terminated lists, newest first. */
extern const char *const sw_mcp_versions[]; /* every one served */
extern const char *const sw_mcp_legacy_versions[]; /* initialize era */

/* One HTTP request to /mcp.  Every string is borrowed (NULL if absent). */
struct sw_mcp_http {
	const char *method; /* REQUEST_METHOD */
	const char *authorization;
	const char *origin;
	const char *host; /* with the port */
	const char *content_type;
	const char *accept;
	const char *protocol_version; /* MCP-Protocol-Version */
	const char *mcp_method; /* Mcp-Method */
	const char *mcp_name; /* Mcp-Name */
	const char *session_id; /* Mcp-Session-Id */
	const char *last_event_id; /* Last-Event-ID */
	const char *body;
	size_t body_len;
	int body_too_big;
};

/* Write bytes of a streamed answer to the client now; SW_OK while the
 * client still listens. */
typedef sw_err (*sw_mcp_stream_fn)(void *arg, const char *data, size_t len);

/*
 * The HTTP answer.  Owned; sw_mcp_answer_free() releases it.  When the
 * caller sets stream, a request that asks for notifications (progress,
 * logs, a GET stream) is answered as text/event-stream written through
 * it as the work goes; streamed then says the answer has been written
 * whole and nothing is left to render.
 */
struct sw_mcp_answer {
	int status;
	const char *content_type; /* static; NULL: no body */
	struct sw_buf headers; /* "Name: value\r\n" lines */
	struct sw_buf body;
	sw_mcp_stream_fn stream; /* NULL: never stream */
	void *stream_arg;
	int streamed;
	int stream_broken; /* the client went away */
};

/* Begin an SSE answer (status 200, the headers so far); -1 when the
 * answer cannot stream. */
int sw_mcp_sse_begin(struct sw_mcp_answer *a);
/* One SSE event carrying a JSON-RPC message (borrowed), or a comment
 * line when msg is NULL; with id (may be NULL) as the event id. */
sw_err sw_mcp_sse_send(
    struct sw_mcp_answer *a, json_object *msg, const char *id);

/*
 * How a plugin tool call reaches its /ext/ program: perform method on
 * target (path and query, already percent-encoded) with the caller's
 * Authorization header value and an optional JSON body; the HTTP status
 * goes to *status and the body to resp.  SW_OK whenever an HTTP answer
 * came back, whatever its status.
 */
typedef sw_err (*sw_mcp_rest_fn)(void *arg, const char *method,
    const char *target, const char *authorization, const char *body,
    long *status, struct sw_buf *resp);

struct sw_mcp {
	const struct sw_config *cfg; /* borrowed */
	struct sw_db *db; /* borrowed: token checks */
	const struct sw_handler_row *handlers; /* borrowed: REST handlers */
	sw_mcp_rest_fn rest; /* plugin tools only */
	void *rest_arg;
	json_object *plugins; /* owned: validated tools.d */
	unsigned char key[32]; /* session HMAC key */
	int64_t now; /* seconds; 0: the clock */
	void *curl; /* owned: CURL * for rest */
	char base_url[128]; /* nginx internal URL */
	char skills_dir[512]; /* skills/; "": none */
	const struct sw_mcp_extras *extras; /* borrowed; NULL: none */
	json_object *server_info; /* owned; lazily made */
	char *answer_end; /* owned; a plain result's last fields, made once */
	struct json_tokener *tok; /* owned; the requests' parser */
	struct json_tokener *tok_args; /* owned; a tools/call's arguments' */
};

/*
 * Set up an endpoint: reads <state-dir>/mcp-session.key (creating it
 * once, shared by all workers), loads tools.d and points rest (plugin
 * tools) at nginx's internal_url from the configuration.  cfg, db and
 * handlers (the program's handler table) are borrowed and must outlive
 * m.  Fails closed (SW_EINTERNAL with a log
 * line) when the key cannot be made or internal_url is not loopback.
 */
sw_err sw_mcp_init(struct sw_mcp *m, const struct sw_config *cfg,
    struct sw_db *db, const struct sw_handler_row *handlers);
void sw_mcp_free(struct sw_mcp *m);

/* Answer one HTTP request; out must have been sw_mcp_answer_init()ed. */
void sw_mcp_handle(
    struct sw_mcp *m, const struct sw_mcp_http *in, struct sw_mcp_answer *out);

void sw_mcp_answer_init(struct sw_mcp_answer *);
void sw_mcp_answer_free(struct sw_mcp_answer *);
/* The CGI head of the answer (Status, headers, blank line), appended to
 * out; the body (the answer's body buffer) follows it as it is. */
sw_err sw_mcp_answer_head(const struct sw_mcp_answer *, struct sw_buf *out);

/* ---- sessions (legacy era) --------------------------------------------- */

/* Mint a session id (66 visible ASCII characters) for version, bound to
 * the token id; out must hold 67 bytes. */
sw_err sw_mcp_session_new(const struct sw_mcp *m, const char *version,
    const char *token_id, char out[67]);
/* The version a valid, unexpired session of this token negotiated
 * (static string), or NULL. */
const char *sw_mcp_session_check(
    const struct sw_mcp *m, const char *sid, const char *token_id);

/* ---- tools (mcp/mcp_tools.c) ------------------------------------------- */

/* The MCP Tool object of a table row (name, title, description,
 * inputSchema, outputSchema, annotations, _meta).  New reference. */
json_object *sw_mcp_tool_of_op(const struct sw_op *op);
/* Every tool who may call (its scope and the team rule), in table order, then
 * plugins in file-name order.  New reference (an array). */
json_object *sw_mcp_tool_list(
    const struct sw_mcp *m, const struct sw_principal *who);
struct sw_ferrs;
/* A problem document of our own (transport failures, scope refusals,
 * arguments we cannot place; errs may be NULL).  New reference. */
json_object *sw_mcp_problem_new(int status, const char *slug, const char *title,
    const char *detail, const struct sw_ferrs *errs);

/*
 * Run tools/call for the principal who (borrowed; authorization is its
 * header, relayed to plugin programs only): name and arguments
 * (borrowed, may be NULL) go to the row's dispatch in process (a
 * plugin's become an HTTP request).  *result is a new CallToolResult
 * {content, structuredContent?, isError?}.  Returns
 * SW_ENOTFOUND for an unknown tool and SW_EINVAL when arguments is not
 * an object (both JSON-RPC -32602 with a reason in why); every failure
 * of the call itself is an isError result and SW_OK.
 */
sw_err sw_mcp_tool_call(struct sw_mcp *m, const struct sw_principal *who,
    const char *authorization, const char *name, json_object *arguments,
    json_object **result, char *why, size_t whysz);
/* The row whose tool is name, or NULL (no such tool, or a plugin's). */
const struct sw_op *sw_mcp_row_tool(const char *name);
/*
 * tools/call of row op with arguments (borrowed, may be NULL), its
 * CallToolResult's members written as text at the end of b: the same
 * characters sw_mcp_tool_call's result prints as.  *is_error says
 * which it was.  Fails only when b is full.
 */
sw_err sw_mcp_row_answer(struct sw_mcp *m, const struct sw_principal *who,
    const struct sw_op *op, json_object *args, struct sw_buf *b, int *is_error);

/*
 * Run the tool row op_name with arguments (borrowed, may be NULL) for
 * who in this process, as tools/call does: *status gets the HTTP status
 * and *doc (new reference) the answer or its problem document.
 * SW_ENOTFOUND when no tool row has that name.
 */
sw_err sw_mcp_op_run(struct sw_mcp *m, const struct sw_principal *who,
    const char *op_name, json_object *args, long *status, json_object **doc);

/* ---- tool classes of a token (mcp/mcp_tools.c) ------------------------- */

/* May a token limited to classes ("" or NULL: no limit) call tool name?
 * A tool is in "read-only" and "diagnose" when it changes nothing, and
 * in the class named by its row's tag; a token may call the tools of
 * any of its classes (its scope still decides the rest). */
int sw_mcp_tool_allowed(
    const struct sw_mcp *m, const char *classes, const char *name);
/* Is name a tool (a row or a plugin)? */
int sw_mcp_tool_known(const struct sw_mcp *m, const char *name);

/* ---- confirmation of destructive calls (mcp/mcp_confirm.c) -------------- */

/* Does this row take a "confirm" argument (SW_OP_DESTRUCTIVE or
 * SW_OP_CONFIRM_OFF)? */
int sw_mcp_confirm_asked(const struct sw_op *op);
/* Must this call (arguments borrowed) be confirmed by the user first? */
int sw_mcp_needs_confirm(struct sw_mcp *m, const struct sw_principal *who,
    const char *name, json_object *args);
/* Append the plan the user is shown (the call's dry run) to out; the
 * dry run's HTTP status. */
long sw_mcp_confirm_plan(struct sw_mcp *m, const struct sw_principal *who,
    const char *name, json_object *args, struct sw_buf *out);
/* The requestState of an elicitation for this call: 64 hex characters,
 * an HMAC of the token id, tool name and arguments (without confirm). */
void sw_mcp_confirm_state(const struct sw_mcp *m,
    const struct sw_principal *who, const char *name, json_object *args,
    char out[65]);
/* Copy every member of args but "confirm" into out (both borrowed). */
void sw_mcp_args_copy(json_object *args, json_object *out);

/* ---- subscriptions (mcp/mcp_subs.c) ------------------------------------ */

#define SW_MCP_META_SUBSCRIPTION "io.modelcontextprotocol/subscriptionId"

/* May who subscribe to uri (an operation or a cluster it can read)?
 * SW_OK, or an error with why. */
sw_err sw_mcp_sub_check(struct sw_mcp *m, const struct sw_principal *who,
    const char *uri, char *why, size_t whysz);
/* resources/subscribe (on) or unsubscribe of a legacy session sid. */
sw_err sw_mcp_subscribe(struct sw_mcp *m, const struct sw_principal *who,
    const char *sid, const char *uri, int on, char *why, size_t whysz);
/* The GET stream of legacy session sid: its updates, written to out. */
void sw_mcp_stream_session(struct sw_mcp *m, const struct sw_principal *who,
    const char *sid, struct sw_mcp_answer *out);
/*
 * subscriptions/listen (2026-07-28) with request id and params (both
 * borrowed): acknowledges and streams updates on out; the caller then
 * sends the (empty) result.  0 done; -1 bad params, -2 no slot free
 * (why says which).
 */
int sw_mcp_listen(struct sw_mcp *m, const struct sw_principal *who,
    json_object *id, json_object *params, struct sw_mcp_answer *out, char *why,
    size_t whysz);

/* ---- extras: what a test program serves beside the product's ---------- */

/* The request a tool runs in, for its notifications (opaque). */
struct sw_mcp_call;

/*
 * Tools, resources and prompts a program adds to the endpoint's own (the
 * conformance suite's fixtures, t/mcp_fixtures.c, in the test build of
 * slipway-mcp).  The product sets none.  Each list function appends to
 * arr; call, read and prompt return a new reference, or NULL when the
 * name is not theirs.
 */
struct sw_mcp_extras {
	int (*is_tool)(const char *name);
	void (*tools)(json_object *arr);
	json_object *(*call)(
	    struct sw_mcp_call *, const char *name, json_object *params);
	void (*resources)(json_object *arr, int templates);
	json_object *(*read)(const char *uri);
	int (*subscribable)(const char *uri);
	void (*prompts)(json_object *arr);
	json_object *(*prompt)(const char *name, json_object *args);
};

/* From an extra tool: a progress notification (when the caller asked for
 * them with a progressToken), a log message (level "info", ...). */
void sw_mcp_call_progress(
    struct sw_mcp_call *, json_object *params, int progress, int total);
void sw_mcp_call_log(struct sw_mcp_call *, const char *level, const char *text);

/* ---- resources (mcp/mcp_resources.c) ------------------------------------ */

/* resources/list: slipway://clusters, each cluster who may read and
 * each skill.  New reference (an array). */
json_object *sw_mcp_resource_list(
    struct sw_mcp *m, const struct sw_principal *who);
/* resources/templates/list.  New reference (an array). */
json_object *sw_mcp_resource_templates(void);
/*
 * resources/read of uri for who: *result is a new ReadResourceResult.
 * On failure *result is NULL, *problem (new reference or NULL) the REST
 * problem behind it, and the return SW_ENOTFOUND, SW_EFORBIDDEN,
 * SW_EINVAL or SW_EINTERNAL.
 */
sw_err sw_mcp_resource_read(struct sw_mcp *m, const struct sw_principal *who,
    const char *uri, json_object **result, json_object **problem);

/* ---- skills and prompts (mcp/mcp_prompts.c) ------------------------------ */

/* Every skill's front matter {name, description, version, mode, tools,
 * title...} in name order.  New reference (an array). */
json_object *sw_mcp_skills(const struct sw_mcp *m);
/* Append skills/NAME/SKILL.md to out; *front (when front is not NULL)
 * gets its front matter (new reference).  SW_ENOTFOUND for a name that
 * is not a skill. */
sw_err sw_mcp_skill_read(const struct sw_mcp *m, const char *name,
    struct sw_buf *out, json_object **front);
/* The front matter of a skill's text as an object.  New reference. */
json_object *sw_mcp_skill_front(const char *text);
/* prompts/list.  New reference (an array). */
json_object *sw_mcp_prompt_list(const struct sw_mcp *m);
/* prompts/get of name with arguments (borrowed, may be NULL): *result
 * a new GetPromptResult, or SW_ENOTFOUND / SW_EINVAL with why. */
sw_err sw_mcp_prompt_get(const struct sw_mcp *m, const char *name,
    json_object *arguments, json_object **result, char *why, size_t whysz);

/* ---- completions (mcp/mcp_complete.c) ----------------------------------- */

/* completion/complete of argument arg starting with prefix, for who.
 * New CompleteResult. */
json_object *sw_mcp_complete(struct sw_mcp *m, const struct sw_principal *who,
    const char *arg, const char *prefix);

/* ---- plugin requests over libcurl (mcp/mcp_rest.c) ---------------------- */

/* The default sw_mcp_rest_fn, for plugin tools; arg is the sw_mcp. */
sw_err sw_mcp_rest_curl(void *arg, const char *method, const char *target,
    const char *authorization, const char *body, long *status,
    struct sw_buf *resp);
void sw_mcp_rest_cleanup(struct sw_mcp *m);

#endif
