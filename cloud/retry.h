/*
 * retry.h: the AWS "standard" retry mode.  A call is tried at most
 * max_attempts times; only throttling, transient (5xx, timeouts,
 * connection failures) and a few special codes are retried; each retry
 * waits rand(0,1) * min(base * 2^(n-1), cap) and costs tokens from a
 * bucket shared by every call of a context (5, or 10 after a timeout),
 * given back on success.  Sleep and randomness are injectable so tests
 * run instantly and can record the delays.
 */
#ifndef SW_RETRY_H
#define SW_RETRY_H

#include "cloud/awsproto.h"
#include "lib/err.h"

struct retry_policy {
	int max_attempts; /* SW_AWS_MAX_ATTEMPTS */
	long base_ms; /* SW_AWS_RETRY_BASE_MS */
	long cap_ms; /* SW_AWS_RETRY_CAP_MS */
	int tokens; /* what is left in the bucket */
	int max_tokens; /* SW_AWS_RETRY_TOKENS */
	void (*sleep_ms)(void *arg, long ms);
	double (*rand01)(void *arg); /* uniform in [0, 1) */
	void *arg; /* for sleep_ms and rand01 */
};

/* One attempt: fill err and return non-SW_OK on failure.  attempt
 * counts from 1. */
typedef sw_err (*retry_attempt_fn)(
    void *arg, int attempt, struct aws_error *err);

/* Defaults from limits.h, a real sleep and a real random source. */
void retry_init(struct retry_policy *);
/* Upper bound of the wait before retry number n (1-based), in ms. */
long retry_backoff_cap_ms(const struct retry_policy *, int n);
/*
 * Run fn until it succeeds, fails for good, runs out of attempts or the
 * bucket runs dry.  Returns fn's last result; err holds its last error.
 */
sw_err retry_run(struct retry_policy *, retry_attempt_fn fn, void *arg,
    struct aws_error *err);
/*
 * The same for a call that changes state and must not be sent twice:
 * only a throttling answer (refused, nothing done) is tried again.  After
 * a transport failure or a 5xx the change may have been made, so the
 * error goes back to the caller, which reads the state before sending it
 * again (a pipeline stage's lookup, or sw_step_aws_once).
 */
sw_err retry_run_once_only(struct retry_policy *, retry_attempt_fn fn,
    void *arg, struct aws_error *err);

#endif
