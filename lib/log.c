/*
 * log.c: timestamped log lines "TIME LEVEL proc[pid]: message" on
 * stderr.  One write(2) per record so lines from several processes
 * sharing a file do not interleave.
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "lib/log.h"

static const char *log_proc = "slipway";
static enum sw_log_level log_min = SW_LOG_INFO;
static const char *const log_names[] = { "debug", "info", "warn", "error" };

void
sw_log_init(const char *procname)
{
	log_proc = procname;
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
