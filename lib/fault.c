/*
 * fault.c: the fault hooks of fault.h.  Tests set SLIPWAY_FAULT in the
 * environment of `slipway start`; every child inherits it.  kill-after
 * reads it each time (it sits on rare paths: after a mutating call), so
 * a test needs no restart to arm or disarm one.  The counted faults
 * (alloc, sqlite, http) sit on every allocation, so their form is read
 * once, at the first counted call, and kept; a test program changes it
 * with sw_fault_arm().
 */
#include "config.h"

#ifdef SW_FAULT_INJECTION
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fault.h"
#include "lib/log.h"

/* The counted fault in force: fail call `at` of `kind` (and every later
 * one when `persist`), in the process named `proc` ("" for any). */
static struct {
	int read; /* SLIPWAY_FAULT looked at */
	int armed;
	enum sw_fault_kind kind;
	long at;
	int persist;
	int every; /* 1 in `at`, at random */
	unsigned long long rng; /* its xorshift state */
	char proc[64];
	long count[SW_FAULT__MAX];
	long fired;
	sw_fault_watch_fn watch;
} fault;

static const char *const kind_names[SW_FAULT__MAX] = {
	[SW_FAULT_ALLOC] = "alloc",
	[SW_FAULT_SQLITE] = "sqlite",
	[SW_FAULT_HTTP] = "http",
};

/* How many times point may fire by list (comma-separated names, each
 * optionally "*N" for N times with $SLIPWAY_FAULT_ONCE): 0 when it is
 * not named. */
static long
in_list(const char *list, const char *point)
{
	size_t n = strlen(point);
	const char *p = list;
	long times;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, point, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return 1;
		if (strncmp(p, point, n) == 0 && p[n] == '*') {
			times = strtol(p + n + 1, NULL, 10);
			return times > 0 && times < 100 ? times : 1;
		}
		p = strchr(p, ',');
		if (p != NULL)
			p++;
	}
	return 0;
}

/*
 * Whether the point fault (SLIPWAY_FAULT=<kind>:<point>[,<point>...])
 * fires here: it names point, and with SLIPWAY_FAULT_ONCE it has not
 * yet fired as often as asked (one file a time it fired: <once>.<point>,
 * then <once>.<point>.2 and on).
 */
static int
point_fires(const char *kind, const char *point)
{
	const char *f = getenv("SLIPWAY_FAULT");
	const char *once = getenv("SLIPWAY_FAULT_ONCE");
	size_t kn = strlen(kind);
	char path[600];
	long times, k;
	int fd = -1, n;

	if (f == NULL || strncmp(f, kind, kn) != 0 || f[kn] != ':' ||
	    (times = in_list(f + kn + 1, point)) == 0)
		return 0;
	if (once == NULL || once[0] == '\0')
		return 1;
	for (k = 1; k <= times && fd < 0; k++) {
		n = k == 1
		    ? snprintf(path, sizeof(path), "%s.%s", once, point)
		    : snprintf(path, sizeof(path), "%s.%s.%ld", once, point, k);
		if (n < 0 || (size_t)n >= sizeof(path))
			return 0;
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	}
	if (fd < 0)
		return 0; /* fired here as often as asked */
	close(fd);
	return 1;
}

void
sw_fault_kill_after(const char *point)
{
	if (!point_fires("kill-after", point))
		return;
	sw_error("fault injection: SIGKILL after %s", point);
	(void)raise(SIGKILL);
}

void
sw_fault_stop_before(const char *point)
{
	if (!point_fires("stop-before", point))
		return;
	sw_warn("fault injection: SIGSTOP before %s", point);
	(void)raise(SIGSTOP);
}

/* Parse "<kind>:<N>[+][@<proc>]" into fault; -1 when it is not that. */
static int
parse_counted(const char *spec)
{
	const char *p;
	char *end;
	size_t n;
	long at;
	int k;

	for (k = 0; k < SW_FAULT__MAX; k++) {
		n = strlen(kind_names[k]);
		if (strncmp(spec, kind_names[k], n) == 0 && spec[n] == ':')
			break;
	}
	if (k == SW_FAULT__MAX)
		return -1;
	p = spec + n + 1;
	fault.every = *p == '%';
	if (fault.every)
		p++;
	if (*p < '1' || *p > '9')
		return -1;
	errno = 0;
	at = strtol(p, &end, 10);
	if (errno != 0 || at <= 0 || at == LONG_MAX)
		return -1;
	fault.persist = *end == '+' && !fault.every;
	if (fault.persist)
		end++;
	fault.proc[0] = '\0';
	if (*end == '@') {
		if (end[1] == '\0' ||
		    (size_t)snprintf(fault.proc, sizeof(fault.proc), "%s",
			end + 1) >= sizeof(fault.proc))
			return -1;
	} else if (*end != '\0')
		return -1;
	fault.kind = (enum sw_fault_kind)k;
	fault.at = at;
	fault.rng = 0x9e3779b97f4a7c15ULL;
	fault.armed = 1;
	return 0;
}

int
sw_fault_arm(const char *spec)
{
	int k;

	fault.read = 1;
	fault.armed = 0;
	fault.fired = 0;
	for (k = 0; k < SW_FAULT__MAX; k++)
		fault.count[k] = 0;
	if (spec == NULL || *spec == '\0')
		return 0;
	if (parse_counted(spec) != 0) {
		fault.armed = 0;
		return -1;
	}
	return 0;
}

int
sw_fault_hit(enum sw_fault_kind kind, const char *what)
{
	const char *f;
	long n;

	if ((unsigned)kind >= SW_FAULT__MAX)
		return 0;
	if (!fault.read) {
		fault.read = 1;
		f = getenv("SLIPWAY_FAULT");
		/* kill-after and stop-before are read by their own hooks;
		 * anything else that is not a counted form is a mistake
		 * worth a line. */
		if (f != NULL && *f != '\0' &&
		    strncmp(f, "kill-after:", 11) != 0 &&
		    strncmp(f, "stop-before:", 12) != 0 &&
		    parse_counted(f) != 0) {
			fault.armed = 0;
			sw_warn("fault injection: SLIPWAY_FAULT=%s is not "
				"alloc:N, sqlite:N or http:N; ignored",
			    f);
		}
	}
	n = ++fault.count[kind];
	if (fault.watch != NULL)
		fault.watch(kind, n);
	if (!fault.armed || kind != fault.kind)
		return 0;
	if (fault.every) {
		/* xorshift64: the same sequence in every run, without the
		 * lockstep of a fixed period (a loop of exactly N calls
		 * would fail at the same call each time round). */
		fault.rng ^= fault.rng << 13;
		fault.rng ^= fault.rng >> 7;
		fault.rng ^= fault.rng << 17;
		if (fault.rng % (unsigned long long)fault.at != 0)
			return 0;
	} else if (n < fault.at || (n > fault.at && !fault.persist))
		return 0;
	if (fault.proc[0] != '\0' && strcmp(fault.proc, sw_log_proc()) != 0)
		return 0;
	fault.fired++;
	sw_warn("fault injection: %s call %ld (%s) fails", kind_names[kind], n,
	    what != NULL ? what : "?");
	return 1;
}

long
sw_fault_count(enum sw_fault_kind kind)
{
	return (unsigned)kind < SW_FAULT__MAX ? fault.count[kind] : 0;
}

long
sw_fault_fired(void)
{
	return fault.fired;
}

void
sw_fault_watch(sw_fault_watch_fn fn)
{
	fault.watch = fn;
}

/* SLIPWAY_FAULT_CLOCK.  A skew meant for one program is looked at
 * again until this process has that log name (it is "slipway" until
 * sw_log_init); read once otherwise. */
long long
sw_fault_clock_skew(void)
{
	static int read;
	static long long skew;
	const char *f;
	char *end;

	if (read)
		return skew;
	if ((f = getenv("SLIPWAY_FAULT_CLOCK")) == NULL || *f == '\0') {
		read = 1;
		return 0;
	}
	errno = 0;
	skew = strtoll(f, &end, 10);
	if (errno != 0 || (*end != '\0' && *end != '@')) {
		read = 1;
		return skew = 0;
	}
	if (*end == '@' && strcmp(end + 1, sw_log_proc()) != 0)
		return 0;
	read = 1;
	sw_warn("fault injection: the wall clock is moved by %lld ms", skew);
	return skew;
}

#else
/* ISO C wants a translation unit to declare something. */
typedef int sw_fault_unused;
#endif
