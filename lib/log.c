/*
 * log.c: timestamped log lines "TIME LEVEL proc[pid]: message" on
 * stderr, or with SLIPWAY_LOG_FORMAT=json (slipway.conf's log_format)
 * one JSON object a line: {"time","level","proc","pid","msg"}, with
 * "request_id" and "operation_id" while a context is set.  One
 * write(2) per record so lines from several processes sharing a file do
 * not interleave.
 */
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

void
sw_log_init(const char *procname)
{
	const char *f = getenv("SLIPWAY_LOG_FORMAT");

	log_proc = procname;
	log_json = f != NULL && strcmp(f, "json") == 0;
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
		if (n + 1 >= sz || !((s[n] >= '0' && s[n] <= '9') ||
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
	out[0] = '\0';
	if (log_rid[0] == '\0' && log_op[0] == '\0')
		return;
	if (log_json)
		snprintf(out, sz, "%s%s%s%s%s%s", log_rid[0] ?
		    ",\"request_id\":\"" : "", log_rid, log_rid[0] ? "\"" : "",
		    log_op[0] ? ",\"operation_id\":\"" : "", log_op,
		    log_op[0] ? "\"" : "");
	else
		snprintf(out, sz, " [%s%s%s%s]", log_rid[0] ? "req=" : "",
		    log_rid, log_rid[0] && log_op[0] ? " " : "",
		    log_op[0] ? log_op : "");
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
	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	log_ctx_text(ctx, sizeof(ctx));
	if (log_json) {
		char msg[1536];

		n = snprintf(line, sizeof(line), "{\"time\":\"%s.%03ldZ\","
		    "\"level\":\"%s\",\"proc\":\"%s\",\"pid\":%ld%s,"
		    "\"msg\":\"", ts, now.tv_nsec / 1000000L, log_names[l],
		    log_proc, (long)getpid(), ctx);
		if (n < 0 || (size_t)n >= sizeof(line) - 4)
			return;
		va_start(ap, fmt);
		m = vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		if (m < 0)
			return;
		n += (int)log_json_escape(line + n, sizeof(line) - (size_t)n -
		    4, msg);
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
