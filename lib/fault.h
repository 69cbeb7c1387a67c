/*
 * fault.h: fault injection for tests, driven by the environment and
 * inert when it is unset.  SLIPWAY_FAULT names one fault:
 *
 *	kill-after:<point>[,<point>...]
 *		SIGKILL this process right after a point: a pipeline
 *		step's mutating AWS call by name (e.g.
 *		kill-after:UpdateClusterSoftware: after that request was
 *		answered, before the answer is recorded).  With
 *		$SLIPWAY_FAULT_ONCE set, once per point: the file
 *		$SLIPWAY_FAULT_ONCE.<point> is created first, and a process
 *		that finds it does not die there again.  <point>*N dies
 *		there N times (files $SLIPWAY_FAULT_ONCE.<point>, then
 *		.<point>.2 ... .<point>.N).  stage:<name> is the
 *		boundary of a pipeline stage: just after it is recorded as
 *		started, before its first step.
 *
 *	stop-before:<point>[,<point>...]
 *		SIGSTOP this process right before a pipeline step's
 *		mutating AWS call by name, after its lease was checked:
 *		a poller paused between that check and the call, until a
 *		test sends SIGCONT.  $SLIPWAY_FAULT_ONCE as for kill-after.
 *
 *	alloc:[%]<N>[+][@<proc>]
 *		The Nth allocation through lib/alloc.h (sw_malloc and
 *		friends: every allocation Slipway's own code makes; json-c,
 *		libcurl and SQLite allocate on their own and are not
 *		counted) returns NULL, as malloc does when memory runs out.
 *	sqlite:[%]<N>[+][@<proc>]
 *		The Nth SQLite call through lib/db.c (a statement step, an
 *		exec such as BEGIN or COMMIT, a first prepare) fails with
 *		SW_DB_FAIL before it reaches the database.
 *	http:[%]<N>[+][@<proc>]
 *		The Nth request through cloud/http.c (every AWS, metadata
 *		and Kubernetes call) fails as a refused connection
 *		(SW_EUNAVAIL) before anything is sent.
 *
 *	N counts from 1, from the start of the process (or from the last
 *	sw_fault_arm()).  Only the Nth call fails; with '+' the Nth and
 *	every later one of that kind.  Written %N (sqlite:%7) one call
 *	in N fails, picked by a pseudo-random sequence that is the same in
 *	every run, for the whole life of the process, so a daemon meets
 *	failures all through its work.  With @<proc> only the process whose
 *	log name (sw_log_init) is <proc> takes the fault, e.g.
 *	http:3+@slipway-poller, since every process `slipway start` starts
 *	inherits the variable.  Each injected failure is logged.
 *
 * SLIPWAY_FAULT_CLOCK=<ms>[@<proc>], beside SLIPWAY_FAULT, moves the
 * wall clock (sw_now_ms) of the process named <proc> (of every process
 * without it) by ms, e.g. 3600000@slipway-poller: a poller on a host
 * whose clock is an hour ahead of the database's.
 *
 * Built only with --enable-fault-injection (off by default; the test
 * builds of ./quickstart test turn it on); otherwise every hook is an
 * empty inline function and the environment is never read, so a
 * release build (the Dockerfile's) ignores SLIPWAY_FAULT and
 * SLIPWAY_FAULT_CLOCK.
 */
#ifndef SW_FAULT_H
#define SW_FAULT_H

#include "config.h"

/* The kinds of calls that can be made to fail, counted separately. */
enum sw_fault_kind {
	SW_FAULT_ALLOC,
	SW_FAULT_SQLITE,
	SW_FAULT_HTTP,
	SW_FAULT__MAX
};

#ifdef SW_FAULT_INJECTION
/* Non-zero in the test build: its debug checks fail what they catch. */
#define SW_TEST_BUILD 1
/* Die here when SLIPWAY_FAULT is kill-after:<point>. */
void sw_fault_kill_after(const char *point);
/* Stop here when SLIPWAY_FAULT is stop-before:<point>. */
void sw_fault_stop_before(const char *point);
/*
 * Count one call of kind; non-zero when it is to fail.  what names the
 * call in the log line of an injected failure.
 */
int sw_fault_hit(enum sw_fault_kind kind, const char *what);
/*
 * For tests in process: replace the fault with spec (a SLIPWAY_FAULT
 * value of the counted forms above, or NULL for none) and restart every
 * count at zero.  -1 when spec is not one of those forms.
 */
int sw_fault_arm(const char *spec);
/* Calls of kind counted since the process started or the last arm. */
long sw_fault_count(enum sw_fault_kind kind);
/* How many failures were injected since then. */
long sw_fault_fired(void);
/* For tests: fn (NULL: none) sees every counted call, its kind and its
 * number, before the fault decides; it may not itself make one. */
typedef void (*sw_fault_watch_fn)(enum sw_fault_kind kind, long n);
void sw_fault_watch(sw_fault_watch_fn fn);
/* How far SLIPWAY_FAULT_CLOCK moves this process's wall clock, ms. */
long long sw_fault_clock_skew(void);
#else
#define SW_TEST_BUILD 0
static inline void
sw_fault_kill_after(const char *point)
{
	(void)point;
}

static inline void
sw_fault_stop_before(const char *point)
{
	(void)point;
}

static inline int
sw_fault_hit(enum sw_fault_kind kind, const char *what)
{
	(void)kind;
	(void)what;
	return 0;
}

static inline long long
sw_fault_clock_skew(void)
{
	return 0;
}
#endif

#endif
