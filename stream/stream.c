/*
 * stream.c: slipway-stream, the WebSocket server behind nginx's /ws/.
 * One libwebsockets event loop serves two kinds of viewer:
 *
 *   /ws/operations/{id}  a snapshot of the operation (sw_op_get, the
 *	same code as GET /api/v1/operations/{id}), an update each time
 *	its rendering changes, and "end" when it is terminal.  A thread
 *	blocks in sw_db_wait on a watch of the database (PostgreSQL: a
 *	connection of its own that LISTENs for the triggers' NOTIFY;
 *	SQLite: an inotify watch of the state directory, where every
 *	commit writes state.db-wal, answered again 20 ms and 150 ms on
 *	since the commit is published after the WAL write) and wakes the
 *	loop with lws_cancel_service; the loop then renders each watched
 *	operation again.  A 2 s sweep covers a change that could be
 *	missed, and is all there is while the watch is broken (its
 *	connection lost: the thread makes it again every second).
 *
 *   /ws/clusters/{c}/pods/{ns}/{pod}/logs  pod log lines.  Each pod
 *	container has one source: one thread holding one Kubernetes
 *	follow=true&timestamps=true request, handing chunks to the loop.
 *	The loop numbers lines (seq from 1), appends "seq TAB time TAB
 *	text" to state/podlogs/..., and fans them out.  A viewer first
 *	catches up from the file from after= (at its own pace), then
 *	receives live lines through a bounded queue; a viewer whose queue
 *	overflows is closed with 1008.  The source stops when its last
 *	viewer leaves; a later follow skips the lines already stored by
 *	their timestamps, so seq stays stable.
 *
 * Authentication (session cookie or Bearer token, Origin) is checked
 * before the upgrade; refusals are 401/403 with a problem+json body, and
 * 429 past SW_STREAM_MAX_VIEWERS in all or SW_STREAM_MAX_PER_TOKEN for
 * one token.  The credential is checked again on every state change and
 * every sweep: a viewer whose token was revoked or whose session ended
 * is closed with 1008, its queue dropped.  A pod's log is served only
 * for a Slipway workload's pod (sw_kube_pod_ours, the rule REST's
 * training_job_logs uses), or one an object of Slipway's controls
 * through its owners (sw_kube_controlled_by_us: an inference
 * operator's or JumpStart's pods); its file is made with the first stored line
 * and removed when the source ends (the pod finished, or the follow
 * was refused), so a stream that never existed leaves nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <libwebsockets.h>

#include "lib/auth.h"
#include "lib/buf.h"
#include "lib/conf.h"
#include "lib/daemon.h"
#include "lib/db.h"
#include "lib/json.h"
#include "cloud/aws_member.h"
#include "cloud/http.h"
#include "cloud/kube.h"
#include "lib/limits.h"
#include "lib/log.h"
#include "lib/metrics.h"
#include "lib/oidc.h"
#include "lib/teams.h"
#include "lib/ops.h"
#include "pipelines/pipeline.h"
#include "stream/stream.h"

#define ST_NAME_MAX 253 /* Kubernetes names and ids */

enum vkind { V_NONE, V_OP, V_LOG };

struct msg {
	struct msg *next;
	size_t len;
	unsigned char data[]; /* LWS_PRE + len */
};

struct src;

/* One WebSocket viewer (lws per-session data). */
struct viewer {
	struct lws *wsi;
	enum vkind kind;
	struct viewer *next; /* in the op list or its source */
	struct msg *head, *tail;
	int queued;
	/* who, checked again while the viewer lives */
	char secret[SW_MAX_JWT + 1]; /* a token or a JWT */
	int via_cookie;
	char token_id[24];
	int counted; /* in S.nviewers */
	int close_code; /* close after the queue drains */
	char close_why[96];
	/* operations */
	char op_id[SW_OP_ID_LEN + 8];
	char *last; /* last rendering sent */
	int64_t terminal_ms; /* when first seen terminal */
	/* logs */
	struct src *src;
	int64_t cursor; /* last seq sent or skipped */
	int live; /* caught up: gets the queue */
};

/* A log line's time: seconds and nanoseconds since the epoch. */
struct stamp {
	int64_t sec;
	long nsec;
};

/* One pod container's upstream follow and its file. */
struct src {
	struct src *next;
	char key[1100]; /* cluster/ns/pod/container */
	char cluster[101], ns[ST_NAME_MAX + 1], pod[ST_NAME_MAX + 1],
	    container[ST_NAME_MAX + 1];
	char path[1600];
	int fd; /* the file, O_APPEND */
	int64_t seq; /* lines stored */
	int64_t *offs; /* file offset of each line */
	size_t noffs_cap;
	struct stamp last; /* time of the last stored line */
	int last_n; /* lines stored with that time */
	struct stamp from; /* this follow: skip up to here */
	int from_n, seen_n;
	struct sw_buf partial; /* an incomplete line */
	struct viewer *viewers;
	struct sw_cluster_rec place; /* the cluster's account and region,
					 * read before the thread starts */
	/* shared with the thread, under mu */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct sw_buf inbox;
	int done; /* the thread has finished */
	sw_err rc;
	long status; /* HTTP status of the follow */
	char why[1400];
	atomic_int cancel;
	int running; /* a thread exists (joinable) */
	pthread_t th;
	int ended; /* upstream said the pod ended */
	int failed; /* upstream refused: fail_* say how */
	int fail_status;
	char fail_title[32];
};

static struct {
	struct lws_context *ctx;
	struct sw_config cfg;
	struct sw_db *db;
	char podlogs[600];
	struct viewer *ops;
	struct src *srcs;
	int nviewers;
	atomic_int db_changed;
	atomic_int db_notified; /* a change named by the engine */
	atomic_int stopping;
	lws_sorted_usec_list_t sweep;
	lws_sorted_usec_list_t recheck;
	int rechecks; /* still to do */
} S;

static void viewer_flush(struct viewer *);

/* ---- messages --------------------------------------------------------- */

/* Valid UTF-8 of s (invalid bytes as U+FFFD) into b. */
static sw_err
utf8_clean(struct sw_buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k, need;
	sw_err e;

	while (i < n) {
		need = p[i] < 0x80          ? 0
		    : (p[i] & 0xe0) == 0xc0 ? 1
		    : (p[i] & 0xf0) == 0xe0 ? 2
		    : (p[i] & 0xf8) == 0xf0 ? 3
					    : 9;
		for (k = 1; need != 9 && k <= need; k++)
			if (i + k >= n || (p[i + k] & 0xc0) != 0x80)
				need = 9;
		if (need == 9 || p[i] == 0) {
			if ((e = sw_buf_add(b, p[i] == 0 ? " " : "\xef\xbf\xbd",
				 p[i] == 0 ? 1 : 3)) != SW_OK)
				return e;
			i++;
			continue;
		}
		if ((e = sw_buf_add(b, s + i, need + 1)) != SW_OK)
			return e;
		i += need + 1;
	}
	return SW_OK;
}

static struct msg *
msg_new(const char *text)
{
	size_t len = strlen(text);
	struct msg *m;

	if ((m = malloc(sizeof(*m) + LWS_PRE + len)) == NULL)
		return NULL;
	m->next = NULL;
	m->len = len;
	memcpy(m->data + LWS_PRE, text, len);
	return m;
}

/* Queue o's text for v (o is put).  Overflow closes v with 1008. */
static void
viewer_send(struct viewer *v, json_object *o)
{
	struct msg *m;

	if (v->close_code != 0) {
		json_object_put(o);
		return;
	}
	m = msg_new(sw_json_str(o));
	json_object_put(o);
	if (m == NULL || v->queued >= SW_STREAM_QUEUE_MAX) {
		free(m);
		sw_warn("viewer too slow (%d messages queued): closing it "
			"with 1008",
		    v->queued);
		viewer_flush(v);
		v->close_code = LWS_CLOSE_STATUS_POLICY_VIOLATION;
		sw_fmt_text(v->close_why, sizeof(v->close_why),
		    "too slow: more than %d messages queued",
		    SW_STREAM_QUEUE_MAX);
		/* A viewer that never reads is cut off all the same. */
		lws_set_timeout(v->wsi, PENDING_TIMEOUT_USER_OK, 5);
		lws_callback_on_writable(v->wsi);
		return;
	}
	if (v->tail != NULL)
		v->tail->next = m;
	else
		v->head = m;
	v->tail = m;
	v->queued++;
	lws_callback_on_writable(v->wsi);
}

static void
viewer_flush(struct viewer *v)
{
	struct msg *m;

	while ((m = v->head) != NULL) {
		v->head = m->next;
		free(m);
	}
	v->tail = NULL;
	v->queued = 0;
}

/* Send an error message, then close with code once it has gone. */
static void
viewer_fail(struct viewer *v, int status, const char *title, const char *detail,
    int code)
{
	viewer_send(v,
	    sw_jo("type", sw_js("error"), "status", sw_ji(status), "title",
		sw_js(title), "detail", sw_js(detail), NULL));
	if (v->close_code == 0) {
		v->close_code = code;
		sw_fmt_text(v->close_why, sizeof(v->close_why), "%s", title);
	}
	lws_callback_on_writable(v->wsi);
}

static void
viewer_end(struct viewer *v, json_object *end)
{
	viewer_send(v, end);
	if (v->close_code == 0) {
		v->close_code = LWS_CLOSE_STATUS_NORMAL;
		sw_fmt_text(v->close_why, sizeof(v->close_why), "end");
	}
	lws_callback_on_writable(v->wsi);
}

/* ---- operations -------------------------------------------------------- */

static void recheck_soon(void);
static void creds_recheck(void);

/* Render v's operation; send it when it changed, end when terminal. */
static void
op_refresh(struct viewer *v, int first)
{
	json_object *o;
	const char *text, *state;
	sw_err e;

	if (v->close_code != 0)
		return;
	e = sw_op_get(S.db, v->op_id, 1, 0, &o);
	if (e == SW_ENOTFOUND) {
		viewer_fail(v, 404, "Not Found", "no such operation",
		    LWS_CLOSE_STATUS_POLICY_VIOLATION);
		return;
	}
	if (e != SW_OK) {
		if (first)
			viewer_fail(v, 500, "Internal Server Error",
			    "cannot read the operation",
			    LWS_CLOSE_STATUS_UNEXPECTED_CONDITION);
		return;
	}
	text = sw_json_str(o);
	if (v->last == NULL || strcmp(v->last, text) != 0) {
		free(v->last);
		v->last = strdup(text);
		viewer_send(v,
		    sw_jo("type", sw_js(first ? "snapshot" : "update"),
			"operation", json_object_get(o), NULL));
	}
	/* The poller releases the operation in a write of its own just
	 * after the terminal one: end once the rendering has settled. */
	state = sw_json_get_str(o, "state");
	if (state != NULL && sw_op_state_terminal(state)) {
		if (v->terminal_ms == 0) {
			v->terminal_ms = sw_now_ms();
			recheck_soon();
		} else if (sw_now_ms() - v->terminal_ms >= SW_STREAM_SETTLE_MS)
			viewer_end(v,
			    sw_jo("type", sw_js("end"), "state", sw_js(state),
				NULL));
	} else
		v->terminal_ms = 0;
	json_object_put(o);
}

static void
ops_refresh_all(void)
{
	struct viewer *v;

	for (v = S.ops; v != NULL; v = v->next)
		op_refresh(v, 0);
}

/*
 * A terminal operation is ended once its rendering has settled (the
 * poller's release comes in a write of its own): look again 20 ms and
 * 150 ms on.
 */
static void
recheck_cb(lws_sorted_usec_list_t *sul)
{
	creds_recheck();
	ops_refresh_all();
	if (--S.rechecks > 0)
		lws_sul_schedule(
		    S.ctx, 0, sul, recheck_cb, 130 * LWS_US_PER_MS);
}

static void
recheck_soon(void)
{
	S.rechecks = 2;
	lws_sul_schedule(S.ctx, 0, &S.recheck, recheck_cb, 20 * LWS_US_PER_MS);
}

static void
db_changed(void)
{
	sw_metric_add("slipway_stream_wakes_total", 1, "by",
	    atomic_exchange(&S.db_notified, 0) ? "notification" : "change",
	    NULL);
	creds_recheck();
	ops_refresh_all();
}

static void
sweep_cb(lws_sorted_usec_list_t *sul)
{
	creds_recheck();
	ops_refresh_all();
	lws_sul_schedule(S.ctx, 0, sul, sweep_cb, SW_STREAM_SWEEP_US);
}

/* The watch thread's pause while its watch is broken. */
static void
watch_pause(void)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	int i;

	for (i = 0; i < SW_DB_WATCH_RETRY_MS / 100 && !atomic_load(&S.stopping);
	     i++)
		nanosleep(&ts, NULL);
}

/* Block in sw_db_wait; wake the loop on every change.  A watch that
 * cannot be made or breaks leaves the viewers to the sweep until it is
 * made again. */
static void *
db_watch_thread(void *arg)
{
	struct sw_db_watch *w = NULL;
	char what[128];
	int rc, warned = 0;

	(void)arg;
	while (!atomic_load(&S.stopping)) {
		if (w == NULL && sw_db_watch_open(S.db, &w) != SW_OK) {
			if (!warned++)
				sw_warn("no watch of the database; operations "
					"refresh every 2 s until there is one");
			watch_pause();
			continue;
		}
		if ((rc = sw_db_wait(w, 500, what, sizeof(what))) < 0) {
			watch_pause();
			continue;
		}
		if (rc == 0)
			continue;
		if (what[0] != '\0')
			atomic_store(&S.db_notified, 1);
		atomic_store(&S.db_changed, 1);
		lws_cancel_service(S.ctx);
	}
	sw_db_watch_close(w);
	return NULL;
}

/* ---- log sources ------------------------------------------------------- */

static int
name_ok(const char *s, size_t max)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > max)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
			(s[i] >= '0' && s[i] <= '9') || s[i] == '-' ||
			s[i] == '.'))
			return 0;
	return s[0] != '.' && s[0] != '-';
}

static int
cluster_ok(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > 100)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
			(s[i] >= 'A' && s[i] <= 'Z') ||
			(s[i] >= '0' && s[i] <= '9') || s[i] == '-' ||
			s[i] == '_'))
			return 0;
	return 1;
}

static int
stamp_cmp(struct stamp a, struct stamp b)
{
	if (a.sec != b.sec)
		return a.sec < b.sec ? -1 : 1;
	return a.nsec < b.nsec ? -1 : a.nsec > b.nsec;
}

/* "2026-12-03T18:09:35.123456789Z" (fraction optional). */
static int
stamp_parse(const char *s, size_t n, struct stamp *t)
{
	struct tm tm;
	char tmp[64], *end;
	long frac = 0, scale = 100000000;
	size_t i;

	if (n < 20 || n >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	memset(&tm, 0, sizeof(tm));
	if ((end = strptime(tmp, "%Y-%m-%dT%H:%M:%S", &tm)) == NULL)
		return -1;
	if (*end == '.')
		for (i = 1; end[i] >= '0' && end[i] <= '9'; i++) {
			frac += (end[i] - '0') * scale;
			scale /= 10;
		}
	t->sec = (int64_t)timegm(&tm);
	t->nsec = frac;
	return 0;
}

static sw_err
src_index(struct src *s, int64_t off)
{
	int64_t *n;
	size_t cap;

	if ((size_t)s->seq >= s->noffs_cap) {
		cap = s->noffs_cap ? s->noffs_cap * 2 : 1024;
		if ((n = realloc(s->offs, cap * sizeof(*n))) == NULL)
			return SW_ENOMEM;
		s->offs = n;
		s->noffs_cap = cap;
	}
	s->offs[s->seq] = off;
	return SW_OK;
}

static void
src_note_stamp(struct src *s, struct stamp t)
{
	if (stamp_cmp(t, s->last) == 0)
		s->last_n++;
	else {
		s->last = t;
		s->last_n = 1;
	}
}

/* The time as the file keeps it: "seconds.nanoseconds". */
static int
stamp_parse_stored(const char *s, struct stamp *t)
{
	char *end;

	errno = 0;
	t->sec = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '.')
		return -1;
	s = end + 1;
	t->nsec = strtol(s, &end, 10);
	if (errno != 0 || end - s != 9 || *end != '\t')
		return -1;
	return 0;
}

/* Read the file back: index, seq and the last time. */
static sw_err
src_load(struct src *s)
{
	char *line = NULL, *tab;
	size_t cap = 0;
	ssize_t n;
	int64_t off = 0;
	struct stamp t;
	FILE *f;
	int fd;

	if ((fd = dup(s->fd)) < 0 || (f = fdopen(fd, "r")) == NULL) {
		if (fd >= 0)
			close(fd);
		return SW_EINTERNAL;
	}
	rewind(f);
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] != '\n')
			break; /* a torn last write: ignored */
		if (src_index(s, off) != SW_OK)
			break;
		s->seq++;
		if ((tab = strchr(line, '\t')) != NULL &&
		    stamp_parse_stored(tab + 1, &t) == 0)
			src_note_stamp(s, t);
		off += n;
	}
	free(line);
	fclose(f);
	if (ftruncate(s->fd, off) != 0)
		return SW_EINTERNAL;
	return SW_OK;
}

static int
mkdirs(char *path)
{
	char *p;

	for (p = path + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0700) != 0 && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return 0;
}

static void src_start(struct src *);

static struct src *
src_get(
    const char *cluster, const char *ns, const char *pod, const char *container)
{
	struct src *s;

	for (s = S.srcs; s != NULL; s = s->next)
		if (strcmp(s->cluster, cluster) == 0 &&
		    strcmp(s->ns, ns) == 0 && strcmp(s->pod, pod) == 0 &&
		    strcmp(s->container, container) == 0)
			return s;
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	if (sw_fmt(s->cluster, sizeof(s->cluster), "%s", cluster) != SW_OK ||
	    sw_fmt(s->ns, sizeof(s->ns), "%s", ns) != SW_OK ||
	    sw_fmt(s->pod, sizeof(s->pod), "%s", pod) != SW_OK ||
	    sw_fmt(s->container, sizeof(s->container), "%s", container) !=
		SW_OK ||
	    sw_fmt(s->key, sizeof(s->key), "%s/%s/%s/%s", cluster, ns, pod,
		*container ? container : "-") != SW_OK ||
	    sw_fmt(s->path, sizeof(s->path), "%s/%s/%s/%s/%s.log", S.podlogs,
		cluster, ns, pod, *container ? container : "-") != SW_OK) {
		sw_warn(
		    "pod %s/%s/%s: names too long to follow", cluster, ns, pod);
		free(s);
		return NULL;
	}
	if (sw_cluster_get(S.db, cluster, &s->place) != SW_OK)
		memset(&s->place, 0, sizeof(s->place));
	sw_buf_init(&s->partial, SW_STREAM_LINE_MAX);
	sw_buf_init(&s->inbox, SW_STREAM_INBOX_MAX);
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->cv, NULL);
	/* An earlier follow's file, if any; a new one is made with the
	 * first line stored (src_open), never for a pod with no log. */
	s->fd = open(s->path, O_RDWR | O_APPEND | O_CLOEXEC);
	if ((s->fd < 0 && errno != ENOENT) ||
	    (s->fd >= 0 && src_load(s) != SW_OK)) {
		sw_error("log file %s: %s", s->path, strerror(errno));
		if (s->fd >= 0)
			close(s->fd);
		sw_buf_free(&s->partial);
		sw_buf_free(&s->inbox);
		free(s->offs);
		free(s);
		return NULL;
	}
	s->next = S.srcs;
	S.srcs = s;
	return s;
}

/* Make the source's file for its first line.  0, or -1 (logged). */
static int
src_open(struct src *s)
{
	if (s->fd >= 0)
		return 0;
	if (mkdirs(s->path) != 0 ||
	    (s->fd = open(
		 s->path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600)) < 0) {
		sw_error("log file %s: %s", s->path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Remove the source's file and the folders it leaves empty. */
static void
src_remove(struct src *s)
{
	char dir[sizeof(s->path)], *slash;
	size_t top = strlen(S.podlogs);

	if (unlink(s->path) != 0 && errno != ENOENT)
		sw_warn("cannot remove %s: %s", s->path, strerror(errno));
	memcpy(dir, s->path, sizeof(dir));
	while ((slash = strrchr(dir, '/')) != NULL &&
	    (size_t)(slash - dir) > top) {
		*slash = '\0';
		if (rmdir(dir) != 0)
			break; /* not empty: another pod's */
	}
}

static void
src_free(struct src *s)
{
	struct src **pp;

	for (pp = &S.srcs; *pp != NULL; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
	/* What an ended stream wrote goes with it; a follow stopped
	 * because its viewers left keeps its file, so seq stays stable
	 * when they come back. */
	if (s->ended || s->failed)
		src_remove(s);
	if (s->fd >= 0)
		close(s->fd);
	sw_buf_free(&s->partial);
	sw_buf_free(&s->inbox);
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s->offs);
	free(s);
}

/* Thread side: hand a chunk to the loop (waits while the inbox is full). */
static int
src_chunk(void *arg, const char *data, size_t len)
{
	struct src *s = arg;
	int stop;

	pthread_mutex_lock(&s->mu);
	while (s->inbox.len + len > SW_STREAM_INBOX_MAX &&
	    !atomic_load(&s->cancel) && s->inbox.len > 0)
		pthread_cond_wait(&s->cv, &s->mu);
	stop = atomic_load(&s->cancel) != 0 ||
	    sw_buf_add(&s->inbox, data, len) != SW_OK;
	pthread_mutex_unlock(&s->mu);
	lws_cancel_service(S.ctx);
	return stop;
}

/*
 * Thread side: is the pod there, and a Slipway workload's (the rule
 * training_job_logs applies too)?  Otherwise why and ke->status say
 * what the viewer is told: 404, or 403 for another's pod.
 */
static sw_err
pod_check(struct sw_kube *kb, struct src *s, struct k8s_error *ke, char *why,
    size_t whysz)
{
	json_object *pod = NULL;
	char path[1024];
	sw_err e;

	if ((e = k8s_path(path, sizeof(path), "v1", s->ns, "pods", s->pod)) !=
	    SW_OK) {
		ke->status = 400;
		sw_fmt_text(why, whysz, "not a pod name");
		return e;
	}
	if ((e = k8s_get(&kb->k, path, &pod, ke)) != SW_OK) {
		sw_fmt_text(why, whysz, "%s",
		    ke->message[0] ? ke->message : "cannot read the pod");
		return e;
	}
	if (!sw_kube_pod_ours(pod) && !sw_kube_controlled_by_us(kb, pod)) {
		ke->status = 403;
		sw_fmt_text(why, whysz,
		    "pod %s in namespace %s is not a "
		    "Slipway workload's: logs are served for training jobs, "
		    "model downloads and inference endpoints only",
		    s->pod, s->ns);
		e = SW_EFORBIDDEN;
	}
	json_object_put(pod);
	return e;
}

static void *
src_thread(void *arg)
{
	struct src *s = arg;
	struct aws_ctx aws;
	struct aws_error aerr;
	struct k8s_error ke;
	struct sw_kube kb;
	char why[1400] = "";
	long status = 0;
	sw_err e;

	memset(&aws, 0, sizeof(aws));
	memset(&kb, 0, sizeof(kb));
	memset(&aerr, 0, sizeof(aerr));
	memset(&ke, 0, sizeof(ke));
	if ((e = sw_aws_setup(&aws, &S.cfg)) != SW_OK)
		sw_fmt_text(why, sizeof(why), "no AWS client");
	else if ((e = aws_member_enter(&aws, &S.cfg, s->place.account,
		      s->place.region, &aerr)) != SW_OK)
		sw_fmt_text(why, sizeof(why),
		    "cluster %s: cannot reach "
		    "account %s: %s %s",
		    s->cluster, s->place.account, aerr.code, aerr.message);
	else if ((e = sw_kube_connect(&aws, s->cluster, &kb, &aerr)) != SW_OK) {
		if (e == SW_ENOTFOUND)
			sw_fmt_text(
			    why, sizeof(why), "no EKS cluster %s", s->cluster);
		else if (e == SW_ECONFLICT)
			sw_fmt_text(why, sizeof(why),
			    "cluster %s has no "
			    "Kubernetes endpoint yet",
			    s->cluster);
		else
			sw_fmt_text(why, sizeof(why), "cluster %s: %s %s",
			    s->cluster, aerr.code, aerr.message);
	} else if ((e = pod_check(&kb, s, &ke, why, sizeof(why))) != SW_OK)
		status = ke.status;
	else {
		kb.k.http.cancel = &s->cancel;
		e = k8s_logs_stamped(&kb.k, s->ns, s->pod,
		    *s->container ? s->container : NULL, 1, -1, 0, src_chunk, s,
		    &ke);
		status = ke.status;
		if (e != SW_OK)
			sw_fmt_text(why, sizeof(why), "%s",
			    ke.message[0]      ? ke.message
				: ke.reason[0] ? ke.reason
					       : "the log follow failed");
	}
	sw_kube_close(&kb);
	aws_ctx_free(&aws);
	pthread_mutex_lock(&s->mu);
	s->rc = e;
	s->status = status;
	memcpy(s->why, why, sizeof(why));
	s->done = 1;
	pthread_mutex_unlock(&s->mu);
	lws_cancel_service(S.ctx);
	return NULL;
}

static void
src_start(struct src *s)
{
	s->done = 0;
	s->ended = 0;
	s->failed = 0;
	s->rc = SW_OK;
	s->from = s->last;
	s->from_n = s->last_n;
	s->seen_n = 0;
	sw_buf_reset(&s->partial);
	atomic_store(&s->cancel, 0);
	if (pthread_create(&s->th, NULL, src_thread, s) != 0) {
		sw_error("cannot start the follow of %s", s->key);
		s->done = 1;
		s->rc = SW_EINTERNAL;
		sw_fmt_text(s->why, sizeof(s->why), "cannot start a thread");
		return;
	}
	s->running = 1;
	sw_info("following %s (%lld lines stored)", s->key, (long long)s->seq);
}

/* Store one upstream line ("time text") unless a past follow did. */
static void
src_line(struct src *s, const char *line, size_t n)
{
	const char *sp = memchr(line, ' ', n);
	struct sw_buf clean;
	struct viewer *v;
	struct stamp t = { 0, 0 };
	char head[96];
	int64_t off;
	int stamped;

	stamped = sp != NULL && stamp_parse(line, (size_t)(sp - line), &t) == 0;
	if (stamped) {
		int c = stamp_cmp(t, s->from);

		if (c < 0 || (c == 0 && ++s->seen_n <= s->from_n))
			return;
		n -= (size_t)(sp + 1 - line);
		line = sp + 1;
	}
	if (n > 0 && line[n - 1] == '\r')
		n--;
	sw_buf_init(&clean, SW_STREAM_LINE_MAX * 3 + 16);
	if (utf8_clean(&clean, line, n) != SW_OK) {
		sw_buf_free(&clean);
		return;
	}
	if (src_open(s) != 0) {
		sw_buf_free(&clean);
		return;
	}
	off = lseek(s->fd, 0, SEEK_END);
	if (sw_fmt(head, sizeof(head), "%lld\t", (long long)s->seq + 1) !=
		SW_OK ||
	    off < 0 || src_index(s, off) != SW_OK) {
		sw_buf_free(&clean);
		return;
	}
	{
		char ts[64];
		struct sw_buf rec;
		int ok;

		ts[0] = '\0';
		if (stamped &&
		    sw_fmt(ts, sizeof(ts), "%lld.%09ld", (long long)t.sec,
			t.nsec) != SW_OK) {
			sw_buf_free(&clean);
			return;
		}

		sw_buf_init(&rec, SW_STREAM_LINE_MAX * 3 + 200);
		ok = sw_buf_printf(&rec, "%s%s\t", head, ts) == SW_OK &&
		    sw_buf_add(&rec, clean.data, clean.len) == SW_OK &&
		    sw_buf_add(&rec, "\n", 1) == SW_OK &&
		    write(s->fd, rec.data, rec.len) == (ssize_t)rec.len;
		sw_buf_free(&rec);
		if (!ok) {
			sw_error("cannot append to %s", s->path);
			sw_buf_free(&clean);
			return;
		}
	}
	s->seq++;
	if (stamped)
		src_note_stamp(s, t);
	for (v = s->viewers; v != NULL; v = v->next)
		if (v->live && s->seq > v->cursor) {
			v->cursor = s->seq;
			viewer_send(v,
			    sw_jo("type", sw_js("line"), "seq", sw_ji(s->seq),
				"text", sw_js(sw_buf_str(&clean)), NULL));
		}
	sw_buf_free(&clean);
}

/* Split a chunk into lines; long lines are cut at SW_STREAM_LINE_MAX. */
static void
src_feed(struct src *s, const char *data, size_t len)
{
	const char *nl;
	size_t take;

	while (len > 0) {
		nl = memchr(data, '\n', len);
		take = nl != NULL ? (size_t)(nl - data) : len;
		if (s->partial.len + take >= SW_STREAM_LINE_MAX)
			take = SW_STREAM_LINE_MAX - 1 - s->partial.len;
		(void)sw_buf_add(&s->partial, data, take);
		data += take;
		len -= take;
		if (nl != NULL && data == nl) {
			data++;
			len--;
		} else if (s->partial.len < SW_STREAM_LINE_MAX - 1)
			break; /* wait for the rest of the line */
		src_line(
		    s, s->partial.data ? s->partial.data : "", s->partial.len);
		sw_buf_reset(&s->partial);
	}
}

/* A source with no viewer left: stop its follow, or free it. */
static void
src_release(struct src *s)
{
	if (s->viewers != NULL)
		return;
	if (s->running) {
		if (!atomic_load(&s->cancel))
			sw_info("last viewer of %s left: stopping its follow",
			    s->key);
		atomic_store(&s->cancel, 1);
		pthread_mutex_lock(&s->mu);
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
		return;
	}
	src_free(s);
}

/* Loop side: take what the thread handed over. */
static void
src_drain(struct src *s)
{
	struct sw_buf in;
	struct viewer *v;
	int done;

	sw_buf_init(&in, SW_STREAM_INBOX_MAX);
	pthread_mutex_lock(&s->mu);
	if (s->inbox.len > 0)
		(void)sw_buf_add(&in, s->inbox.data, s->inbox.len);
	sw_buf_reset(&s->inbox);
	pthread_cond_broadcast(&s->cv);
	done = s->done;
	pthread_mutex_unlock(&s->mu);
	if (in.len > 0 && !atomic_load(&s->cancel))
		src_feed(s, in.data, in.len);
	sw_buf_free(&in);
	if (!done || !s->running)
		return;
	pthread_join(s->th, NULL);
	s->running = 0;
	if (atomic_load(&s->cancel)) {
		sw_info("follow of %s stopped", s->key);
		if (s->viewers != NULL)
			src_start(s); /* a viewer came back meanwhile */
		else
			src_free(s);
		return;
	}
	if (s->partial.len > 0) {
		src_line(s, s->partial.data, s->partial.len);
		sw_buf_reset(&s->partial);
	}
	if (s->rc == SW_OK) {
		sw_info("follow of %s ended: the container finished", s->key);
		s->ended = 1;
	} else {
		int st = s->status >= 400 && s->status < 600
		    ? (int)s->status
		    : sw_err_http_status(s->rc);

		sw_warn("follow of %s failed: %s", s->key, s->why);
		/* Each viewer gets the stored lines first, then the error. */
		s->failed = 1;
		s->fail_status = st;
		sw_fmt_text(s->fail_title, sizeof(s->fail_title), "%s",
		    st == 404       ? "Not Found"
			: st == 403 ? "Forbidden"
			: st < 500  ? "Bad Request"
				    : "Bad Gateway");
	}
	for (v = s->viewers; v != NULL; v = v->next)
		lws_callback_on_writable(v->wsi);
	if (s->viewers == NULL)
		src_free(s);
}

static void
srcs_drain_all(void)
{
	struct src *s, *next;

	for (s = S.srcs; s != NULL; s = next) {
		next = s->next;
		src_drain(s);
	}
}

/* One stored line as a message, or NULL when it cannot be read. */
static json_object *
src_read_line(struct src *s, int64_t seq)
{
	char buf[SW_STREAM_LINE_MAX * 3 + 200], *t1, *t2, *nl;
	int64_t off, end;
	ssize_t n;

	off = s->offs[seq - 1];
	end = seq < s->seq ? s->offs[seq] : lseek(s->fd, 0, SEEK_END);
	if (end - off <= 0 || end - off >= (int64_t)sizeof(buf))
		return NULL;
	if ((n = pread(s->fd, buf, (size_t)(end - off), off)) !=
	    (ssize_t)(end - off))
		return NULL;
	buf[n] = '\0';
	if ((nl = strchr(buf, '\n')) != NULL)
		*nl = '\0';
	if ((t1 = strchr(buf, '\t')) == NULL ||
	    (t2 = strchr(t1 + 1, '\t')) == NULL)
		return NULL;
	return sw_jo("type", sw_js("line"), "seq", sw_ji(seq), "text",
	    sw_js(t2 + 1), NULL);
}

/* The next stored line after v's cursor, as a message; NULL at the
 * end.  A line that cannot be read is skipped (and logged). */
static json_object *
src_read_next(struct src *s, struct viewer *v)
{
	json_object *o;

	while (v->cursor < s->seq) {
		v->cursor++;
		if ((o = src_read_line(s, v->cursor)) != NULL)
			return o;
		sw_warn("%s: line %lld cannot be read back; skipped", s->path,
		    (long long)v->cursor);
	}
	return NULL;
}

/* ---- WebSocket protocol ------------------------------------------------ */

struct route {
	enum vkind kind;
	char op_id[SW_OP_ID_LEN + 8];
	char cluster[101], ns[ST_NAME_MAX + 1], pod[ST_NAME_MAX + 1],
	    container[ST_NAME_MAX + 1];
	int64_t after;
};

/* Parse the URI and its arguments.  0, or -1 (no such route). */
static int
route_parse(struct lws *wsi, struct route *r)
{
	char uri[1024], arg[300], *part[8], *p, *end;
	const char *a;
	int n = 0;

	memset(r, 0, sizeof(*r));
	if (lws_hdr_copy(wsi, uri, sizeof(uri), WSI_TOKEN_GET_URI) <= 0 ||
	    strncmp(uri, "/ws/", 4) != 0)
		return -1;
	for (p = uri + 4; n < 8 && p != NULL && *p != '\0'; n++) {
		part[n] = p;
		if ((p = strchr(p, '/')) != NULL)
			*p++ = '\0';
	}
	if (p != NULL && *p != '\0')
		return -1;
	if (n == 2 && strcmp(part[0], "operations") == 0) {
		if (strlen(part[1]) >= sizeof(r->op_id) ||
		    !name_ok(part[1], sizeof(r->op_id) - 1))
			return -1;
		r->kind = V_OP;
		return sw_fmt(r->op_id, sizeof(r->op_id), "%s", part[1]) ==
			SW_OK
		    ? 0
		    : -1;
	}
	if (n != 6 || strcmp(part[0], "clusters") != 0 ||
	    strcmp(part[2], "pods") != 0 || strcmp(part[5], "logs") != 0 ||
	    !cluster_ok(part[1]) || !name_ok(part[3], 63) ||
	    !name_ok(part[4], ST_NAME_MAX))
		return -1;
	r->kind = V_LOG;
	if (sw_fmt(r->cluster, sizeof(r->cluster), "%s", part[1]) != SW_OK ||
	    sw_fmt(r->ns, sizeof(r->ns), "%s", part[3]) != SW_OK ||
	    sw_fmt(r->pod, sizeof(r->pod), "%s", part[4]) != SW_OK)
		return -1;
	if ((a = lws_get_urlarg_by_name(wsi, "container=", arg, sizeof(arg))) !=
	    NULL) {
		if (!name_ok(a, 63) ||
		    sw_fmt(r->container, sizeof(r->container), "%s", a) !=
			SW_OK)
			return -1;
	}

	if ((a = lws_get_urlarg_by_name(wsi, "after=", arg, sizeof(arg))) !=
	    NULL) {
		errno = 0;
		r->after = strtoll(a, &end, 10);
		if (errno != 0 || end == a || *end != '\0' || r->after < 0)
			return -1;
	}
	return 0;
}

/* The value of cookie name in the Cookie header, into out. */
static int
cookie_get(struct lws *wsi, const char *name, char *out, size_t outsz)
{
	char hdr[4096], *p, *v;
	size_t nl = strlen(name), vl;

	if (lws_hdr_copy(wsi, hdr, sizeof(hdr), WSI_TOKEN_HTTP_COOKIE) <= 0)
		return 0;
	for (p = hdr; p != NULL && *p != '\0'; p = strchr(p, ';')) {
		while (*p == ';' || *p == ' ')
			p++;
		if (strncmp(p, name, nl) != 0 || p[nl] != '=')
			continue;
		v = p + nl + 1;
		vl = strcspn(v, "; ");
		if (vl >= outsz)
			return 0;
		memcpy(out, v, vl);
		out[vl] = '\0';
		return 1;
	}
	return 0;
}

/*
 * The credential of the upgrade request: a Bearer token, or the UI's
 * session cookie (*via_cookie).  0, or -1 with *why said.
 */
static int
cred_read(
    struct lws *wsi, char *secret, size_t sz, int *via_cookie, const char **why)
{
	char auth[SW_MAX_JWT + 8];

	*via_cookie = 0;
	if (lws_hdr_copy(
		wsi, auth, sizeof(auth), WSI_TOKEN_HTTP_AUTHORIZATION) > 0) {
		if (strncasecmp(auth, "Bearer ", 7) != 0) {
			*why = "Authorization must be a Bearer token";
			return -1;
		}
		if (strlen(auth + 7) >= sz) {
			*why = "the token is unknown, revoked or malformed";
			return -1;
		}
		memcpy(secret, auth + 7, strlen(auth + 7) + 1);
		return 0;
	}
	if (cookie_get(wsi, "sw_session", secret, sz)) {
		*via_cookie = 1;
		return 0;
	}
	*why = "send Authorization: Bearer <token> or log in";
	return -1;
}

/* The same checks as REST's, for a token (Slipway's or the OpenID
 * provider's) or a session. */
static sw_err
cred_check(const char *secret, int via_cookie, struct sw_principal *who)
{
	char why[160];

	return via_cookie
	    ? sw_session_check(S.db, secret, who)
	    : sw_bearer_check(S.db, &S.cfg, secret, who, why, sizeof(why));
}

/* Call fn for every viewer, of operations and of logs. */
static void
viewers_each(void (*fn)(struct viewer *, void *), void *arg)
{
	struct viewer *v, *vnext;
	struct src *s;

	for (v = S.ops; v != NULL; v = vnext) {
		vnext = v->next;
		fn(v, arg);
	}
	for (s = S.srcs; s != NULL; s = s->next)
		for (v = s->viewers; v != NULL; v = vnext) {
			vnext = v->next;
			fn(v, arg);
		}
}

/* A viewer whose token was revoked, or whose session ended or lost its
 * read scope, is told so and closed with 1008; what was queued for it
 * is dropped.  A database that cannot answer now is no verdict. */
static void
viewer_recheck(struct viewer *v, void *arg)
{
	struct sw_principal who;
	sw_err e;

	(void)arg;
	if (v->close_code != 0 || v->secret[0] == '\0')
		return;
	e = cred_check(v->secret, v->via_cookie, &who);
	if ((e == SW_OK && who.scope >= SW_SCOPE_READ) ||
	    (e != SW_OK && e != SW_EUNAUTH))
		return;
	viewer_flush(v);
	viewer_fail(v, 401, "Unauthorized",
	    v->via_cookie ? "the session "
			    "has ended; log in again"
			  : "the token was revoked",
	    LWS_CLOSE_STATUS_POLICY_VIOLATION);
}

static void
creds_recheck(void)
{
	if (S.nviewers > 0)
		viewers_each(viewer_recheck, NULL);
}

struct count {
	const char *token_id;
	int n;
};

static void
count_token(struct viewer *v, void *arg)
{
	struct count *c = arg;

	if (v->counted && strcmp(v->token_id, c->token_id) == 0)
		c->n++;
}

/* Why one more viewer of token_id is refused (429), or NULL. */
static const char *
viewers_full(const char *token_id)
{
	static char why[160];
	struct count c = { token_id, 0 };

	if (S.nviewers >= SW_STREAM_MAX_VIEWERS) {
		sw_fmt_text(why, sizeof(why),
		    "the stream serves at most %d "
		    "viewers at once; retry later",
		    SW_STREAM_MAX_VIEWERS);
		return why;
	}
	viewers_each(count_token, &c);
	if (c.n >= SW_STREAM_MAX_PER_TOKEN) {
		sw_fmt_text(why, sizeof(why),
		    "one token may hold at most %d "
		    "viewers at once; close one first",
		    SW_STREAM_MAX_PER_TOKEN);
		return why;
	}
	return NULL;
}

/* Refuse before the upgrade: status with a problem+json body. */
static int
refuse(struct lws *wsi, sw_err e, const char *detail)
{
	unsigned char buf[LWS_PRE + 1024], *start = buf + LWS_PRE, *p = start,
					   *end = buf + sizeof(buf) - 1;
	const struct sw_err_info *ei = sw_err_info(e);
	char body[600];
	json_object *o;
	int len;

	o = sw_jo("type", sw_jsf("/problems/%s", ei->slug), "title",
	    sw_js(ei->title), "status", sw_ji(ei->http_status), "detail",
	    sw_js(detail), NULL);
	len = snprintf(body, sizeof(body), "%s", sw_json_str(o));
	json_object_put(o);
	if (len < 0 || (size_t)len >= sizeof(body))
		return -1;
	if (lws_add_http_common_headers(wsi, (unsigned)ei->http_status,
		"application/problem+json", (lws_filepos_t)len, &p, end) ||
	    (e == SW_EUNAUTH &&
		lws_add_http_header_by_name(wsi,
		    (const unsigned char *)"WWW-Authenticate:",
		    (const unsigned char *)"Bearer", 6, &p, end)) ||
	    (e == SW_ETHROTTLED &&
		lws_add_http_header_by_name(wsi,
		    (const unsigned char *)"Retry-After:",
		    (const unsigned char *)"5", 1, &p, end)) ||
	    lws_finalize_write_http_header(wsi, start, &p, end))
		return -1;
	if (lws_write(wsi, (unsigned char *)body, (size_t)len,
		LWS_WRITE_HTTP_FINAL) != len)
		return -1;
	if (lws_http_transaction_completed(wsi))
		return -1;
	return 1;
}

/* Authenticate and check the Origin.  0 to upgrade, else refuse(). */
/*
 * The team rule (lib/teams.h) for a stream: an operation's events are a
 * read of the clusters' (as operation_get), a pod's log a read of its
 * namespace's team's workloads (as training_job_logs), the team being
 * the namespace's hyperpod-ns-<team>.  NULL, or why not.
 */
static const char *
stream_rule(const struct sw_principal *who, const struct route *r, char *why,
    size_t whysz)
{
	static const struct sw_rule_row op_row = {
		.name = "operation stream", .scope = SW_SCOPE_READ,
		.touch = SW_TOUCH_CLUSTER, .readonly = 1,
	}, log_row = {
		.name = "pod log stream", .scope = SW_SCOPE_READ,
		.touch = SW_TOUCH_TEAM, .readonly = 1,
	};
	const char *team = NULL;

	if (r->kind == V_OP)
		return sw_team_rule(&S.cfg, who, &op_row, NULL, why, whysz);
	if (strncmp(r->ns, "hyperpod-ns-", 12) == 0)
		team = r->ns + 12;
	return sw_team_rule(&S.cfg, who, &log_row, team, why, whysz);
}

static int
check_upgrade(struct lws *wsi)
{
	char secret[SW_MAX_JWT + 1], origin[300], host[260], rule_why[320];
	struct sw_principal who;
	struct route r;
	const char *why;
	int via_cookie;
	sw_err e;

	memset(&who, 0, sizeof(who));
	if (cred_read(wsi, secret, sizeof(secret), &via_cookie, &why) != 0)
		return refuse(wsi, SW_EUNAUTH, why);
	if ((e = cred_check(secret, via_cookie, &who)) != SW_OK)
		return refuse(wsi, e == SW_EUNAUTH ? e : SW_EDB,
		    via_cookie ? "the session has expired; log in again"
			       : "the token is unknown, revoked or malformed");
	if (lws_hdr_copy(wsi, origin, sizeof(origin), WSI_TOKEN_ORIGIN) > 0) {
		if (lws_hdr_copy(wsi, host, sizeof(host), WSI_TOKEN_HOST) <= 0)
			host[0] = '\0';
		if (!sw_config_origin_allowed(
			&S.cfg, origin, host[0] ? host : NULL))
			return refuse(wsi, SW_EFORBIDDEN,
			    "this Origin is not "
			    "allowed");
	}
	if (route_parse(wsi, &r) != 0)
		return refuse(wsi, SW_ENOTFOUND, "no stream at this path");
	if ((why = stream_rule(&who, &r, rule_why, sizeof(rule_why))) != NULL)
		return refuse(wsi, SW_EFORBIDDEN, why);
	if ((why = viewers_full(who.token_id)) != NULL)
		return refuse(wsi, SW_ETHROTTLED, why);
	return 0;
}

static void
viewer_attach(struct viewer *v, struct lws *wsi)
{
	struct sw_principal who;
	struct route r;
	struct src *s;
	const char *why;

	memset(v, 0, sizeof(*v));
	v->wsi = wsi;
	/* Kept to check again while the viewer lives (creds_recheck). */
	if (cred_read(
		wsi, v->secret, sizeof(v->secret), &v->via_cookie, &why) != 0 ||
	    cred_check(v->secret, v->via_cookie, &who) != SW_OK ||
	    sw_fmt(v->token_id, sizeof(v->token_id), "%s", who.token_id) !=
		SW_OK) {
		viewer_fail(v, 401, "Unauthorized",
		    "the credential is no "
		    "longer valid",
		    LWS_CLOSE_STATUS_POLICY_VIOLATION);
		return;
	}
	v->counted = 1;
	S.nviewers++;
	if (route_parse(wsi, &r) != 0) {
		viewer_fail(v, 404, "Not Found", "no stream at this path",
		    LWS_CLOSE_STATUS_POLICY_VIOLATION);
		return;
	}
	v->kind = r.kind;
	if (r.kind == V_OP) {
		memcpy(v->op_id, r.op_id, sizeof(v->op_id));
		v->next = S.ops;
		S.ops = v;
		op_refresh(v, 1);
		return;
	}
	if ((s = src_get(r.cluster, r.ns, r.pod, r.container)) == NULL) {
		viewer_fail(v, 500, "Internal Server Error",
		    "cannot open "
		    "the log file",
		    LWS_CLOSE_STATUS_UNEXPECTED_CONDITION);
		return;
	}
	v->src = s;
	v->cursor = r.after;
	v->next = s->viewers;
	s->viewers = v;
	if (!s->running)
		src_start(s);
	lws_callback_on_writable(wsi);
}

static void
viewer_detach(struct viewer *v)
{
	struct viewer **pp;

	viewer_flush(v);
	free(v->last);
	v->last = NULL;
	if (v->counted) {
		v->counted = 0;
		S.nviewers--;
	}
	explicit_bzero(v->secret, sizeof(v->secret));
	if (v->kind == V_OP) {
		for (pp = &S.ops; *pp != NULL; pp = &(*pp)->next)
			if (*pp == v) {
				*pp = v->next;
				break;
			}
	} else if (v->kind == V_LOG && v->src != NULL) {
		for (pp = &v->src->viewers; *pp != NULL; pp = &(*pp)->next)
			if (*pp == v) {
				*pp = v->next;
				break;
			}
		src_release(v->src);
		v->src = NULL;
	}
	v->kind = V_NONE;
}

/* Send one message; 0 to go on, -1 to close. */
static int
viewer_writable(struct viewer *v)
{
	json_object *o;
	struct msg *m;
	struct src *s = v->src;
	int n;

	if ((m = v->head) == NULL && v->kind == V_LOG && s != NULL &&
	    !v->live && v->close_code == 0) {
		if ((o = src_read_next(s, v)) != NULL) {
			m = msg_new(sw_json_str(o));
			json_object_put(o);
			if (m == NULL)
				return -1;
			v->head = v->tail = m;
			v->queued = 1;
		} else if (v->cursor >= s->seq)
			v->live = 1;
	}
	if ((m = v->head) != NULL) {
		n = lws_write(
		    v->wsi, m->data + LWS_PRE, m->len, LWS_WRITE_TEXT);
		v->head = m->next;
		if (v->head == NULL)
			v->tail = NULL;
		v->queued--;
		free(m);
		if (n < 0)
			return -1;
		lws_callback_on_writable(v->wsi);
		return 0;
	}
	if (v->kind == V_LOG && s != NULL && v->live && v->close_code == 0 &&
	    !s->running) {
		if (s->ended)
			viewer_end(v, sw_jo("type", sw_js("end"), NULL));
		else if (s->failed)
			viewer_fail(v, s->fail_status, s->fail_title, s->why,
			    s->fail_status < 500
				? LWS_CLOSE_STATUS_POLICY_VIOLATION
				: LWS_CLOSE_STATUS_UNEXPECTED_CONDITION);
	}
	if (v->close_code != 0 && v->head == NULL) {
		lws_close_reason(v->wsi, (enum lws_close_status)v->close_code,
		    (unsigned char *)v->close_why, strlen(v->close_why));
		return -1;
	}
	return 0;
}

static int
callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
    void *in, size_t len)
{
	struct viewer *v = user;

	switch (reason) {
	case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
		return check_upgrade(wsi);
	case LWS_CALLBACK_HTTP:
		return lws_return_http_status(wsi, 426, NULL)
		    ? -1
		    : lws_http_transaction_completed(wsi);
	case LWS_CALLBACK_ESTABLISHED:
		viewer_attach(v, wsi);
		break;
	case LWS_CALLBACK_SERVER_WRITEABLE:
		return viewer_writable(v);
	case LWS_CALLBACK_RECEIVE:
		break; /* viewers have nothing to say */
	case LWS_CALLBACK_CLOSED:
		viewer_detach(v);
		break;
	case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
		if (atomic_exchange(&S.db_changed, 0))
			db_changed();
		srcs_drain_all();
		break;
	default:
		break;
	}
	(void)in;
	(void)len;
	return 0;
}

/*
 * The listening socket is the supervisor's (our fd 0, as for the
 * FastCGI workers), so a restarted stream refuses no connection.  lws
 * cannot take over a listening socket, so the loop watches it as a raw
 * descriptor and hands each accepted connection to lws.
 */
static int
listen_callback(struct lws *wsi, enum lws_callback_reasons reason, void *user,
    void *in, size_t len)
{
	int fd;

	(void)user;
	(void)in;
	(void)len;
	if (reason != LWS_CALLBACK_RAW_RX_FILE)
		return 0;
	while ((fd = accept4(lws_get_socket_fd(wsi), NULL, NULL,
		    SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0)
		if (lws_adopt_socket_vhost(lws_get_vhost(wsi), fd) == NULL)
			sw_warn("cannot take a connection");
	if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
	    errno != ECONNABORTED)
		sw_warn("accept: %s", strerror(errno));
	return 0;
}

/* clang-format off */
static const struct lws_protocols protocols[] = {
	{ "slipway", callback, sizeof(struct viewer), 4096, 0, NULL, 0 },
	{ "slipway-listen", listen_callback, 0, 0, 0, NULL, 0 },
	{ NULL, NULL, 0, 0, 0, NULL, 0 }
};
/* clang-format on */

/* fd 0 when it is a listening socket, else our own at path. */
static int
listen_socket(const char *path)
{
	struct sockaddr_un sa;
	int fd, on = 0;
	socklen_t len = sizeof(on);

	if (getsockopt(0, SOL_SOCKET, SO_ACCEPTCONN, &on, &len) == 0 && on)
		fd = 0;
	else {
		memset(&sa, 0, sizeof(sa));
		sa.sun_family = AF_UNIX;
		if (strlen(path) >= sizeof(sa.sun_path))
			return -1;
		memcpy(sa.sun_path, path, strlen(path) + 1);
		unlink(path);
		if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
			return -1;
		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
		    chmod(path, 0600) != 0 || listen(fd, 128) != 0) {
			close(fd);
			return -1;
		}
		sw_info("listening on %s", path);
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0)
		return -1;
	return fd;
}

/* Viewers that stop answering pings are dropped. */
/* clang-format off */
static const lws_retry_bo_t retry = {
	.secs_since_valid_ping = 30,
	.secs_since_valid_hangup = 70,
};
/* clang-format on */

/* Room for every viewer, its source's file and follow: the soft limit
 * raised to want (not past the hard one; lws sizes a table by it). */
static void
fds_raise(rlim_t want)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
		sw_warn(
		    "cannot raise the open-file limit: %s", strerror(errno));
}

static void
on_term(int sig)
{
	(void)sig;
	atomic_store(&S.stopping, 1);
	if (S.ctx != NULL)
		lws_cancel_service(S.ctx);
}

static void
lws_to_log(int level, const char *line)
{
	sw_log(level & LLL_ERR ? SW_LOG_ERROR : SW_LOG_WARN, "lws: %.*s",
	    (int)strcspn(line, "\n"), line);
}

int
sw_stream_main(int argc, char *argv[])
{
	struct lws_context_creation_info info;
	struct aws_ctx aws;
	char sock[600];
	lws_sock_file_fd_type u;
	struct lws_vhost *vh;
	pthread_t watch;
	struct src *s;
	int rc = 1, watching = 0, lfd;

	(void)argc;
	(void)argv;
	memset(&aws, 0, sizeof(aws));
	if (sw_daemon_start("slipway-stream", &S.cfg, &S.db) != 0)
		return 1;
	sw_oidc_set_fetch(http_get_document);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	/* Say at start-up what each log thread would find out. */
	if (sw_aws_setup(&aws, &S.cfg) != SW_OK)
		sw_warn("no AWS client: pod logs will fail");
	aws_ctx_free(&aws);
	if (sw_fmt(S.podlogs, sizeof(S.podlogs), "%s/podlogs",
		S.cfg.state_dir) != SW_OK) {
		sw_error("state directory too long: %s", S.cfg.state_dir);
		goto out;
	}
	if (mkdir(S.podlogs, 0700) != 0 && errno != EEXIST) {
		sw_error("cannot create %s: %s", S.podlogs, strerror(errno));
		goto out;
	}
	if (snprintf(sock, sizeof(sock), "%s/run/stream.sock",
		S.cfg.state_dir) >= (int)sizeof(sock) ||
	    strlen(sock) >= 108) {
		sw_error("socket path too long: %s", sock);
		goto out;
	}
	if ((lfd = listen_socket(sock)) < 0) {
		sw_error("cannot listen on %s: %s", sock, strerror(errno));
		goto out;
	}
	sw_daemon_signals(on_term);
	lws_set_log_level(LLL_ERR | LLL_WARN, lws_to_log);

	fds_raise(4096);
	memset(&info, 0, sizeof(info));
	info.options = LWS_SERVER_OPTION_VALIDATE_UTF8;
	info.port = CONTEXT_PORT_NO_LISTEN_SERVER;
	info.protocols = protocols;
	info.max_http_header_data = 8192;
	info.retry_and_idle_policy = &retry;
	info.timeout_secs = 15;
	if ((S.ctx = lws_create_context(&info)) == NULL ||
	    (vh = lws_get_vhost_by_name(S.ctx, "default")) == NULL) {
		sw_error("cannot start libwebsockets");
		goto out;
	}
	u.filefd = lfd;
	if (lws_adopt_descriptor_vhost(vh, LWS_ADOPT_RAW_FILE_DESC, u,
		"slipway-listen", NULL) == NULL) {
		sw_error("cannot watch the listening socket");
		goto out;
	}
	if (pthread_create(&watch, NULL, db_watch_thread, NULL) == 0)
		watching = 1;
	lws_sul_schedule(S.ctx, 0, &S.sweep, sweep_cb, SW_STREAM_SWEEP_US);
	sw_info("serving %s", sock);
	while (!atomic_load(&S.stopping)) {
		if (lws_service(S.ctx, 0) < 0)
			break;
		(void)sw_db_idle(S.db); /* no snapshot outlives a pass */
	}
	sw_info("stopping");
	for (s = S.srcs; s != NULL; s = s->next) {
		atomic_store(&s->cancel, 1);
		pthread_mutex_lock(&s->mu);
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
	}
	for (s = S.srcs; s != NULL; s = s->next)
		if (s->running) {
			pthread_join(s->th, NULL);
			s->running = 0;
		}
	if (watching)
		pthread_join(watch, NULL);
	lws_sul_cancel(&S.sweep);
	lws_sul_cancel(&S.recheck);
	lws_context_destroy(S.ctx);
	S.ctx = NULL;
	while (S.srcs != NULL)
		src_free(S.srcs);
	rc = 0;
out:
	if (S.ctx != NULL)
		lws_context_destroy(S.ctx);
	sw_db_close(S.db);
	sw_config_free(&S.cfg);
	return rc;
}
