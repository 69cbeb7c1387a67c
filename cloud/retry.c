/*
 * retry.c: AWS standard retry mode (see retry.h).  The code lists are
 * the cross-SDK ones (botocore retries/standard.py and special.py).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/limits.h"
#include "cloud/retry.h"

static void
retry_real_sleep(void *arg, long ms)
{
	struct timespec ts;

	(void)arg;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) == -1)
		continue;
}

static double
retry_real_rand(void *arg)
{
	(void)arg;
	return (double)arc4random() / 4294967296.0;
}

void
retry_init(struct retry_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->max_attempts = SW_AWS_MAX_ATTEMPTS;
	p->base_ms = SW_AWS_RETRY_BASE_MS;
	p->cap_ms = SW_AWS_RETRY_CAP_MS;
	p->tokens = p->max_tokens = SW_AWS_RETRY_TOKENS;
	p->sleep_ms = retry_real_sleep;
	p->rand01 = retry_real_rand;
}

long
retry_backoff_cap_ms(const struct retry_policy *p, int n)
{
	long d = p->base_ms;
	int i;

	for (i = 1; i < n && d < p->cap_ms; i++)
		d *= 2;
	return d < p->cap_ms ? d : p->cap_ms;
}

/* The loop of retry_run and retry_run_once_only; once_only retries
 * throttling answers only. */
static sw_err
retry_loop(struct retry_policy *p, retry_attempt_fn fn, void *arg,
    struct aws_error *err, int once_only)
{
	enum retry_kind kind;
	int attempt, cost, taken = 0;
	long delay;
	sw_err rc;

	for (attempt = 1;; attempt++) {
		aws_error_clear(err);
		if ((rc = fn(arg, attempt, err)) == SW_OK) {
			p->tokens += attempt == 1 ? SW_AWS_RETRY_REFILL : taken;
			if (p->tokens > p->max_tokens)
				p->tokens = p->max_tokens;
			return SW_OK;
		}
		kind = retry_classify(err);
		if (kind == RETRY_NONE || attempt >= p->max_attempts ||
		    (once_only && kind != RETRY_THROTTLE))
			return rc;
		cost = kind == RETRY_TIMEOUT ? SW_AWS_RETRY_TIMEOUT_COST
					     : SW_AWS_RETRY_COST;
		if (p->tokens < cost)
			return rc;
		p->tokens -= cost;
		taken += cost;
		delay = (long)(p->rand01(p->arg) *
		    (double)retry_backoff_cap_ms(p, attempt));
		p->sleep_ms(p->arg, delay);
	}
}

sw_err
retry_run(struct retry_policy *p, retry_attempt_fn fn, void *arg,
    struct aws_error *err)
{
	return retry_loop(p, fn, arg, err, 0);
}

sw_err
retry_run_once_only(struct retry_policy *p, retry_attempt_fn fn, void *arg,
    struct aws_error *err)
{
	return retry_loop(p, fn, arg, err, 1);
}
