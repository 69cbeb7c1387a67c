/*
 * log.c: timestamped log lines "TIME LEVEL proc[pid]: message" on
 * stderr, or with SLIPWAY_LOG_FORMAT=json (slipway.conf's log_format)
 * one JSON object a line: {"time","level","proc","pid","msg"}.  One
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

void
sw_log_init(const char *procname)
{
	const char *f = getenv("SLIPWAY_LOG_FORMAT");

	log_proc = procname;
	log_json = f != NULL && strcmp(f, "json") == 0;
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

void
sw_log(enum sw_log_level l, const char *fmt, ...)
{
	char line[2048], ts[32];
	struct timespec now;
	struct tm tm;
	va_list ap;
	int n, m;

	if (l < log_min)
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
	if (log_json) {
		char msg[1536];

		n = snprintf(line, sizeof(line), "{\"time\":\"%s.%03ldZ\","
		    "\"level\":\"%s\",\"proc\":\"%s\",\"pid\":%ld,"
		    "\"msg\":\"", ts, now.tv_nsec / 1000000L, log_names[l],
		    log_proc, (long)getpid());
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
	n = snprintf(line, sizeof(line), "%s.%03ldZ %s %s[%ld]: ", ts,
	    now.tv_nsec / 1000000L, log_names[l], log_proc, (long)getpid());
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
