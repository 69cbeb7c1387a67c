/*
 * logs.c: `slipway logs [-f] job|endpoint NAME --cluster C`, a training
 * job's or an inference endpoint's log for a person at a terminal or a
 * script.  One code path for both: they differ in the row that lists
 * the pods with their last lines (training_job_logs, inference_logs)
 * and in how the end is decided.
 *
 * Without -f: the last lines of each started pod (the row, REST,
 * bounded by --tail), exit 0 once read.
 *
 * With -f: the pods come from the row (asked again every 2 s while
 * none has started), then each pod's log is followed over the stream
 * service's WebSocket, /ws/clusters/{c}/pods/{ns}/{pod}/logs, the one
 * the UI follows: the REST row never follows, while the stream numbers
 * lines (a dropped socket resumes with after=SEQ, nothing printed
 * twice), shares one Kubernetes follow among all viewers and checks the
 * credential again while it runs.  The context's token rides as
 * Authorization: Bearer.  A job: when every pod's stream has ended, its
 * own state (training_job_get) gives the exit code: 0 Succeeded, 1
 * Failed (or not ended a minute after its pods).  An endpoint does not
 * end: when every pod's stream has ended its pods are listed again and
 * followed (a pod seen before from its last printed line), until the
 * endpoint is gone (0).  130 on Ctrl-C, and the codes of every verb on
 * error (4 refused, 3 not found, 7 no answer; 6 when a pod's stream was
 * refused or lost).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libwebsockets.h>

#include "cli/client.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "lib/url.h"

enum {
	LX_OK = 0,
	LX_FAILED = 1,
	LX_USAGE = 2,
	LX_NOTFOUND = 3,
	LX_SERVER = 6,
	LX_STOPPED = 130
};

#define LOG_MAX_PODS 8 /* as training_job_logs reads */
#define LOG_MAX_TRIES 5 /* sockets opened again per pod */
#define LOG_END_WAIT 60 /* seconds for the job to say it ended */

struct follow;

struct pod {
	struct follow *fw;
	char name[254], ns[64], path[768];
	long last; /* seq of the last line printed */
	int heard, ended, failed, again, tries;
	struct lws *wsi;
	struct sw_buf msg;
};

struct follow {
	struct lws_context *ctx;
	const char *cluster;
	char auth[8192];
	char url[1024], host[300], prefix[512];
	int port, tls, many;
	struct pod pods[LOG_MAX_PODS];
	size_t npods;
};

struct logs_kind;

struct logs_args {
	const struct logs_kind *k;
	const char *kind, *name, *cluster, *ns, *tail, *context;
	int follow;
};

static volatile sig_atomic_t stopped;

static void
on_int(int sig)
{
	(void)sig;
	stopped = 1;
}

/* ---- one pod's stream ------------------------------------------------- */

static void
pod_message(struct pod *p)
{
	json_object *m = json_tokener_parse(sw_buf_str(&p->msg));
	const char *type = sw_json_get_str(m, "type");
	long seq;

	p->heard = 1;
	if (type == NULL)
		;
	else if (strcmp(type, "line") == 0) {
		if ((seq = (long)sw_json_get_int(m, "seq", 0)) > p->last) {
			p->last = seq;
			printf("%s%s%s%s\n", p->fw->many ? "[" : "",
			    p->fw->many ? p->name : "", p->fw->many ? "] " : "",
			    sw_json_get_str(m, "text")
				? sw_json_get_str(m, "text")
				: "");
			fflush(stdout);
		}
	} else if (strcmp(type, "end") == 0)
		p->ended = 1;
	else if (strcmp(type, "error") == 0 &&
	    sw_json_get_int(m, "status", 0) == 404) {
		/* deleted under the follow: its log is over, and the next
		 * round (its endpoint's pods, its job's state) says what
		 * comes of it */
		fprintf(stderr, "slipway: %s: the pod is gone\n", p->name);
		p->ended = 1;
	} else if (strcmp(type, "error") == 0) {
		fprintf(stderr, "slipway: %s: %lld %s\n", p->name,
		    (long long)sw_json_get_int(m, "status", 0),
		    sw_json_get_str(m, "detail") ? sw_json_get_str(m, "detail")
						 : "error");
		p->failed = 1;
	}
	json_object_put(m);
}

/* The socket went: open it again from the last line when it carried
 * lines, else the pod's stream failed. */
static void
pod_closed(struct pod *p, const char *why)
{
	p->wsi = NULL;
	if (p->ended || p->failed || stopped)
		return;
	if (p->heard && p->tries < LOG_MAX_TRIES) {
		p->again = 1;
		return;
	}
	fprintf(stderr, "slipway: %s: the log stream %s\n", p->name,
	    why != NULL ? why : "closed");
	p->failed = 1;
}

static int
ws_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
    void *in, size_t len)
{
	struct pod *p = lws_get_opaque_user_data(wsi);
	unsigned char **pp = in;

	(void)user;
	if (p == NULL)
		return 0;
	switch (reason) {
	case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
		if (p->fw->auth[0] != '\0' &&
		    lws_add_http_header_by_token(wsi,
			WSI_TOKEN_HTTP_AUTHORIZATION,
			(const unsigned char *)p->fw->auth,
			(int)strlen(p->fw->auth), pp, *pp + len) != 0)
			return -1;
		break;
	case LWS_CALLBACK_CLIENT_ESTABLISHED:
		p->heard = 0;
		break;
	case LWS_CALLBACK_CLIENT_RECEIVE:
		if (sw_buf_add(&p->msg, in, len) != SW_OK)
			return -1;
		if (lws_is_final_fragment(wsi) &&
		    lws_remaining_packet_payload(wsi) == 0) {
			pod_message(p);
			sw_buf_reset(&p->msg);
		}
		break;
	case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
		pod_closed(p, in != NULL ? "was refused" : "cannot connect");
		break;
	case LWS_CALLBACK_CLIENT_CLOSED:
		pod_closed(p, "closed before the pod ended");
		break;
	default:
		break;
	}
	return 0;
}

/* clang-format off */
static const struct lws_protocols ws_protocols[] = {
	{ "slipway-logs", ws_callback, 0, 65536, 0, NULL, 0 },
	{ NULL, NULL, 0, 0, 0, NULL, 0 }
};
/* clang-format on */

static int
pod_connect(struct pod *p)
{
	struct follow *fw = p->fw;
	struct lws_client_connect_info ci;
	struct sw_buf b;

	sw_buf_init(&b, 0);
	sw_buf_printf(&b, "%s/ws/clusters/", fw->prefix);
	sw_url_encode(&b, fw->cluster);
	sw_buf_puts(&b, "/pods/");
	sw_url_encode(&b, p->ns);
	sw_buf_puts(&b, "/");
	sw_url_encode(&b, p->name);
	sw_buf_puts(&b, "/logs");
	if (p->last > 0)
		sw_buf_printf(&b, "?after=%ld", p->last);
	sw_fmt_text(p->path, sizeof(p->path), "%s", sw_buf_str(&b));
	sw_buf_free(&b);
	memset(&ci, 0, sizeof(ci));
	ci.context = fw->ctx;
	ci.address = fw->host;
	ci.port = fw->port;
	ci.path = p->path;
	ci.host = fw->host;
	ci.ssl_connection = fw->tls ? LCCSCF_USE_SSL : 0;
	ci.local_protocol_name = ws_protocols[0].name;
	ci.opaque_user_data = p;
	ci.pwsi = &p->wsi;
	p->tries++;
	p->again = 0;
	p->heard = 0;
	if (lws_client_connect_via_info(&ci) == NULL && !p->failed) {
		fprintf(stderr, "slipway: %s: cannot open the log stream\n",
		    p->name);
		p->failed = 1;
		return -1;
	}
	return 0;
}

/* ---- the follow ------------------------------------------------------- */

/* Host, port, TLS and path prefix of the server's URL into fw. */
static int
follow_target(struct follow *fw, const char *server)
{
	const char *prot, *ads, *path;

	if (sw_fmt(fw->url, sizeof(fw->url), "%s", server) != SW_OK ||
	    lws_parse_uri(fw->url, &prot, &ads, &fw->port, &path) != 0 ||
	    (strcmp(prot, "http") != 0 && strcmp(prot, "https") != 0)) {
		fprintf(stderr,
		    "slipway: the server %s is not an http(s) "
		    "URL\n",
		    server);
		return -1;
	}
	fw->tls = strcmp(prot, "https") == 0;
	sw_fmt_text(fw->host, sizeof(fw->host), "%s", ads);
	sw_fmt_text(
	    fw->prefix, sizeof(fw->prefix), "%s%s", path[0] ? "/" : "", path);
	while (
	    fw->prefix[0] != '\0' && fw->prefix[strlen(fw->prefix) - 1] == '/')
		fw->prefix[strlen(fw->prefix) - 1] = '\0';
	return 0;
}

static int
follow_done(const struct follow *fw)
{
	size_t i;

	for (i = 0; i < fw->npods; i++)
		if (!fw->pods[i].ended && !fw->pods[i].failed)
			return 0;
	return 1;
}

/* Follow every pod of fw until each ended; EX codes. */
static int
follow_pods(struct follow *fw)
{
	struct lws_context_creation_info info;
	size_t i;
	int rc = LX_OK;

	memset(&info, 0, sizeof(info));
	info.port = CONTEXT_PORT_NO_LISTEN;
	info.protocols = ws_protocols;
	info.gid = -1;
	info.uid = -1;
	if (fw->tls)
		info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
	lws_set_log_level(LLL_ERR, NULL);
	if ((fw->ctx = lws_create_context(&info)) == NULL) {
		fprintf(stderr, "slipway: cannot start the WebSocket client\n");
		return LX_SERVER;
	}
	for (i = 0; i < fw->npods; i++)
		pod_connect(&fw->pods[i]);
	while (!stopped && !follow_done(fw)) {
		lws_service(fw->ctx, 250);
		for (i = 0; i < fw->npods; i++)
			if (fw->pods[i].again && fw->pods[i].wsi == NULL)
				pod_connect(&fw->pods[i]);
	}
	for (i = 0; i < fw->npods; i++) {
		if (fw->pods[i].failed)
			rc = LX_SERVER;
		sw_buf_free(&fw->pods[i].msg);
	}
	lws_context_destroy(fw->ctx);
	return stopped ? LX_STOPPED : rc;
}

/* ---- what has logs ----------------------------------------------------- */

/* A kind of thing whose pods have logs: the words naming it, the row
 * that lists its pods with their last lines and the path field naming
 * it; a job ends, an endpoint does not. */
struct logs_kind {
	const char *words[3];
	const char *row, *field, *what;
	int ends;
};

/* clang-format off */
static const struct logs_kind logs_kinds[] = {
	{ { "job", "jobs", "training-job" }, "training_job_logs", "job",
	  "job", 1 },
	{ { "endpoint", "endpoints", "inference" }, "inference_logs",
	  "endpoint", "endpoint", 0 },
	{ { NULL }, NULL, NULL, NULL, 0 }
};
/* clang-format on */

static const struct logs_kind *
logs_kind(const char *word)
{
	size_t i, j;

	for (i = 0; logs_kinds[i].row != NULL; i++)
		for (j = 0; j < 3; j++)
			if (strcmp(logs_kinds[i].words[j], word) == 0)
				return &logs_kinds[i];
	return NULL;
}

static json_object *
target_args(const struct logs_args *a, const char *tail)
{
	json_object *o = json_object_new_object();

	sw_json_add_str(o, "name", a->cluster);
	sw_json_add_str(o, a->k->field, a->name);
	if (a->ns != NULL)
		sw_json_add_str(o, "namespace", a->ns);
	if (tail != NULL)
		sw_json_add_str(o, "tail", tail);
	return o;
}

/* The length of an array, 0 for anything else. */
static size_t
count(json_object *a)
{
	return json_object_is_type(a, json_type_array)
	    ? json_object_array_length(a)
	    : 0;
}

static int
terminal(const char *state)
{
	return state != NULL &&
	    (strcmp(state, "Succeeded") == 0 || strcmp(state, "Failed") == 0);
}

static void
pause_s(int s)
{
	struct timespec ts = { s, 0 };

	if (!stopped)
		nanosleep(&ts, NULL);
}

static void
print_lines(json_object *doc)
{
	json_object *pods = sw_json_get(doc, "pods");
	size_t i, j, n = count(pods);

	for (i = 0; i < n; i++) {
		json_object *p = json_object_array_get_idx(pods, i);
		json_object *lines = sw_json_get(p, "lines");

		for (j = 0; j < count(lines); j++)
			printf("%s%s%s%s\n", n > 1 ? "[" : "",
			    n > 1 ? sw_json_get_str(p, "pod") : "",
			    n > 1 ? "] " : "",
			    json_object_get_string(
				json_object_array_get_idx(lines, j)));
		if (sw_json_get_str(p, "error") != NULL)
			fprintf(stderr, "slipway: %s: %s\n",
			    sw_json_get_str(p, "pod"),
			    sw_json_get_str(p, "error"));
	}
}

/* The started pods (or a job's end): the kind's row until one has
 * started or the job ended; *doc its last answer, *seen 1 once the row
 * answered. */
static int
list_pods(const struct logs_args *a, json_object **doc, int *seen)
{
	json_object *args = target_args(a, "1");
	int rc;

	for (;;) {
		*doc = NULL;
		if ((rc = sw_cli_call(
			 a->k->row, args, NULL, a->context, doc)) != LX_OK ||
		    stopped)
			break;
		*seen = 1;
		if (count(sw_json_get(*doc, "pods")) > 0 ||
		    (a->k->ends && terminal(sw_json_get_str(*doc, "state"))))
			break;
		json_object_put(*doc);
		pause_s(2);
	}
	json_object_put(args);
	return stopped ? LX_STOPPED : rc;
}

/* The job's state once its pods ended: 0 Succeeded, 1 otherwise. */
static int
job_outcome(const struct logs_args *a)
{
	json_object *args = target_args(a, NULL), *doc;
	time_t until = time(NULL) + LOG_END_WAIT;
	char state[32] = "";
	int rc;

	while (!stopped) {
		doc = NULL;
		if ((rc = sw_cli_call("training_job_get", args, NULL,
			 a->context, &doc)) != LX_OK) {
			json_object_put(args);
			return rc;
		}
		sw_fmt_text(state, sizeof(state), "%s",
		    sw_json_get_str(doc, "state")
			? sw_json_get_str(doc, "state")
			: "");
		json_object_put(doc);
		if (terminal(state) || time(NULL) >= until)
			break;
		pause_s(1);
	}
	json_object_put(args);
	if (stopped)
		return LX_STOPPED;
	fprintf(stderr, "slipway: job %s: %s\n", a->name,
	    state[0] ? state : "state unknown");
	return strcmp(state, "Succeeded") == 0 ? LX_OK : LX_FAILED;
}

/* The last line printed of pod name in an earlier round, or 0. */
static long
last_seen(const struct follow *fw, const char *name)
{
	size_t i;

	for (i = 0; i < fw->npods; i++)
		if (strcmp(fw->pods[i].name, name) == 0)
			return fw->pods[i].last;
	return 0;
}

/* fw's pods from the row's answer doc, a pod seen before resuming
 * after its last printed line. */
static void
follow_fill(struct follow *fw, json_object *doc)
{
	json_object *pods = sw_json_get(doc, "pods");
	struct pod np[LOG_MAX_PODS];
	size_t i, n = 0;

	memset(np, 0, sizeof(np));
	for (i = 0; i < count(pods) && n < LOG_MAX_PODS; i++) {
		struct pod *p = &np[n++];

		p->fw = fw;
		sw_buf_init(&p->msg, 1024 * 1024);
		sw_fmt_text(p->name, sizeof(p->name), "%s",
		    sw_json_get_str(json_object_array_get_idx(pods, i), "pod"));
		sw_fmt_text(p->ns, sizeof(p->ns), "%s",
		    sw_json_get_str(doc, "namespace"));
		p->last = last_seen(fw, p->name);
	}
	memcpy(fw->pods, np, sizeof(np));
	fw->npods = n;
	fw->many = n > 1 || fw->many;
}

/*
 * Round after round while the thing lasts: its started pods, each
 * followed to its stream's end.  A job ends after one round (its
 * state decides); an endpoint's pods are listed again, and it ends
 * when it is gone (0) or on Ctrl-C.  A pod that never started has no
 * log to follow: its stream's refusal is said.
 */
static int
follow_rounds(const struct logs_args *a, struct follow *fw)
{
	json_object *doc = NULL;
	int rc, seen = 0;

	for (;;) {
		if ((rc = list_pods(a, &doc, &seen)) != LX_OK) {
			json_object_put(doc);
			if (rc == LX_NOTFOUND && seen) {
				fprintf(stderr, "slipway: %s %s is gone\n",
				    a->k->what, a->name);
				return LX_OK;
			}
			return rc;
		}
		follow_fill(fw, doc);
		json_object_put(doc);
		rc = fw->npods > 0 ? follow_pods(fw) : LX_OK;
		if (rc == LX_STOPPED || a->k->ends)
			break;
		if (rc != LX_OK)
			return rc;
		pause_s(2);
	}
	if (rc != LX_STOPPED) {
		int end = job_outcome(a);

		rc = end != LX_OK || rc == LX_OK ? end : rc;
	}
	return rc;
}

static int
follow(const struct logs_args *a)
{
	struct follow *fw = sw_calloc(1, sizeof(*fw));
	json_object *all = NULL;
	const char *server, *token;
	int rc;

	if (sw_cli_target(a->context, &server, &token, &all) != 0 ||
	    follow_target(fw, server) != 0)
		rc = LX_USAGE;
	else {
		if (token != NULL)
			sw_fmt_text(
			    fw->auth, sizeof(fw->auth), "Bearer %s", token);
		fw->cluster = a->cluster;
		rc = follow_rounds(a, fw);
	}
	json_object_put(all);
	free(fw);
	return stopped ? LX_STOPPED : rc;
}

/* ---- the verb ----------------------------------------------------------- */

static int
logs_args(int argc, char **argv, struct logs_args *a)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(argv[i], "-f") == 0 ||
		    strcmp(argv[i], "--follow") == 0)
			a->follow = 1;
		else if (strcmp(argv[i], "--cluster") == 0 && v != NULL)
			a->cluster = argv[++i];
		else if (strcmp(argv[i], "--namespace") == 0 && v != NULL)
			a->ns = argv[++i];
		else if (strcmp(argv[i], "--tail") == 0 && v != NULL)
			a->tail = argv[++i];
		else if (strcmp(argv[i], "--context") == 0 && v != NULL)
			a->context = argv[++i];
		else if (argv[i][0] != '-' && a->kind == NULL)
			a->kind = argv[i];
		else if (argv[i][0] != '-' && a->name == NULL)
			a->name = argv[i];
		else
			return -1;
	}
	return a->kind != NULL && a->name != NULL && a->cluster != NULL ? 0
									: -1;
}

int
sw_cli_logs(int argc, char **argv)
{
	struct logs_args a = { 0 };
	struct sigaction sa;
	json_object *args, *doc = NULL;
	int rc;

	if (logs_args(argc, argv, &a) != 0) {
		fprintf(stderr,
		    "usage: slipway logs [-f] job|endpoint NAME "
		    "--cluster CLUSTER [--namespace NS] [--tail N] "
		    "[--context NAME]\n");
		return LX_USAGE;
	}
	if ((a.k = logs_kind(a.kind)) == NULL) {
		fprintf(stderr,
		    "slipway: logs of what? a job (training_job_"
		    "logs) or an endpoint (inference_logs); %s has no log "
		    "verb\n",
		    a.kind);
		return LX_USAGE;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_int;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (a.follow)
		return follow(&a);
	args = target_args(&a, a.tail);
	if ((rc = sw_cli_call(a.k->row, args, NULL, a.context, &doc)) == LX_OK)
		print_lines(doc);
	json_object_put(doc);
	json_object_put(args);
	return rc;
}
