/*
 * log.c: timestamped log lines "TIME LEVEL proc[pid]: message" on
 * stderr, or with SLIPWAY_LOG_FORMAT=json (slipway.conf's log_format)
 * one JSON object a line: {"time","level","proc","pid","msg"}, with
 * "request_id" and "operation_id" while a context is set.  One
 * write(2) per record so lines from several processes sharing a file do
 * not interleave.  A process whose stderr is a log file the supervisor
 * opened (SLIPWAY_LOG_FILE) follows that path through logrotate's
 * renames: when the path names another file, or none, it reopens it.
 */
#include <sys/stat.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"

static const char *log_proc = "slipway";
static enum sw_log_level log_min = SW_LOG_INFO;
static const char *const log_names[] = { "debug", "info", "warn", "error" };
static int log_json;
static char log_rid[33], log_op[64];
static char log_file[600]; /* followed path, or "" */
static long long log_checked_ms; /* last check (monotonic) */

void
sw_log_init(const char *procname)
{
	const char *f = getenv("SLIPWAY_LOG_FORMAT");

	log_proc = procname;
	log_json = f != NULL && strcmp(f, "json") == 0;
	if ((f = getenv("SLIPWAY_LOG_FILE")) != NULL && f[0] == '/')
		sw_log_follow(f);
}

void
sw_log_follow(const char *path)
{
	if (path == NULL || strlen(path) >= sizeof(log_file))
		log_file[0] = '\0';
	else
		memcpy(log_file, path, strlen(path) + 1);
}

static int
same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

int
sw_log_reopen(void)
{
	struct stat err, out;
	int fd, both;

	if (log_file[0] == '\0')
		return -1;
	both = fstat(STDERR_FILENO, &err) == 0 &&
	    fstat(STDOUT_FILENO, &out) == 0 && same_file(&err, &out);
	fd = open(log_file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
	if (fd < 0)
		return -1;
	(void)dup2(fd, STDERR_FILENO);
	if (both)
		(void)dup2(fd, STDOUT_FILENO);
	close(fd);
	return 0;
}

/* At most once a second: reopen the followed path when it names
 * another file than stderr (renamed away) or none. */
static void
log_check_file(void)
{
	struct timespec now;
	struct stat cur, path;
	long long ms;

	if (log_file[0] == '\0')
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
	if (log_checked_ms != 0 && ms - log_checked_ms < 1000)
		return;
	log_checked_ms = ms;
	if (fstat(STDERR_FILENO, &cur) == 0 && stat(log_file, &path) == 0 &&
	    same_file(&cur, &path))
		return;
	(void)sw_log_reopen();
}

/* s when it is n..max characters of [0-9a-z-], else "". */
static void
log_ctx_set(char *dst, size_t sz, const char *s, size_t min)
{
	size_t n = 0;

	dst[0] = '\0';
	if (s == NULL)
		return;
	for (; s[n] != '\0'; n++)
		if (n + 1 >= sz ||
		    !((s[n] >= '0' && s[n] <= '9') ||
			(s[n] >= 'a' && s[n] <= 'z') || s[n] == '-'))
			return;
	if (n >= min)
		memcpy(dst, s, n + 1);
}

void
sw_log_context(const char *request_id, const char *operation_id)
{
	log_ctx_set(log_rid, sizeof(log_rid), request_id, 32);
	log_ctx_set(log_op, sizeof(log_op), operation_id, 1);
}

/* The context as text: JSON members (",\"request_id\":...") or a
 * bracket for the text format; "" when there is none. */
static void
log_ctx_text(char *out, size_t sz)
{
	int n;

	out[0] = '\0';
	if (log_rid[0] == '\0' && log_op[0] == '\0')
		return;
	/* A context that does not fit is left out whole: a cut one would
	 * break a JSON line. */
	if (log_json)
		n = snprintf(out, sz, "%s%s%s%s%s%s",
		    log_rid[0] ? ",\"request_id\":\"" : "", log_rid,
		    log_rid[0] ? "\"" : "",
		    log_op[0] ? ",\"operation_id\":\"" : "", log_op,
		    log_op[0] ? "\"" : "");
	else
		n = snprintf(out, sz, " [%s%s%s%s]", log_rid[0] ? "req=" : "",
		    log_rid, log_rid[0] && log_op[0] ? " " : "",
		    log_op[0] ? log_op : "");
	if (n < 0 || (size_t)n >= sz)
		out[0] = '\0';
}

const char *
sw_log_proc(void)
{
	return log_proc;
}

/* msg as a JSON string body into out (capped); the length written. */
static size_t
log_json_escape(char *out, size_t sz, const char *msg)
{
	static const char hex[] = "0123456789abcdef";
	size_t n = 0;

	for (; *msg != '\0' && n + 7 < sz; msg++) {
		unsigned char c = (unsigned char)*msg;

		if (c == '"' || c == '\\') {
			out[n++] = '\\';
			out[n++] = (char)c;
		} else if (c < 0x20) {
			memcpy(out + n, "\\u00", 4);
			out[n + 4] = hex[c >> 4];
			out[n + 5] = hex[c & 15];
			n += 6;
		} else
			out[n++] = (char)c;
	}
	return n;
}

void
sw_log_set_level(enum sw_log_level l)
{
	log_min = l;
}

int
sw_log_enabled(enum sw_log_level l)
{
	return l >= log_min;
}

void
sw_log(enum sw_log_level l, const char *fmt, ...)
{
	char line[2048], ts[32], ctx[192];
	struct timespec now;
	struct tm tm;
	va_list ap;
	int n, m;

	if (l < log_min)
		return;
	log_check_file();
	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	log_ctx_text(ctx, sizeof(ctx));
	if (log_json) {
		char msg[1536];

		n = snprintf(line, sizeof(line),
		    "{\"time\":\"%s.%03ldZ\","
		    "\"level\":\"%s\",\"proc\":\"%s\",\"pid\":%ld%s,"
		    "\"msg\":\"",
		    ts, now.tv_nsec / 1000000L, log_names[l], log_proc,
		    (long)getpid(), ctx);
		if (n < 0 || (size_t)n >= sizeof(line) - 4)
			return;
		va_start(ap, fmt);
		m = vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		if (m < 0)
			return;
		n += (int)log_json_escape(
		    line + n, sizeof(line) - (size_t)n - 4, msg);
		memcpy(line + n, "\"}\n", 3);
		(void)!write(STDERR_FILENO, line, (size_t)n + 3);
		return;
	}
	n = snprintf(line, sizeof(line), "%s.%03ldZ %s %s[%ld]%s: ", ts,
	    now.tv_nsec / 1000000L, log_names[l], log_proc, (long)getpid(),
	    ctx);
	if (n < 0 || (size_t)n >= sizeof(line))
		return;
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		return;
	n += m;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	(void)!write(STDERR_FILENO, line, (size_t)n);
}
