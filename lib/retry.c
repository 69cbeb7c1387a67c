/*
 * retry.c: AWS standard retry mode (see retry.h).  The code lists are
 * the cross-SDK ones (botocore retries/standard.py and special.py).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/limits.h"
#include "lib/retry.h"

static const char *const retry_throttle_codes[] = {
	"Throttling", "ThrottlingException", "ThrottledException",
	"RequestThrottledException", "TooManyRequestsException",
	"ProvisionedThroughputExceededException",
	"TransactionInProgressException", "RequestLimitExceeded",
	"BandwidthLimitExceeded", "LimitExceededException",
	"RequestThrottled", "SlowDown", "PriorRequestNotComplete",
	"EC2ThrottledException", NULL
};

static const char *const retry_transient_codes[] = {
	"RequestTimeout", "RequestTimeoutException",
	"PriorRequestNotComplete", "IDPCommunicationError", NULL
};

static void
retry_real_sleep(void *arg, long ms)
{
	struct timespec	 ts;

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

static int
retry_in(const char *const *list, const char *code)
{
	size_t	 i;

	for (i = 0; list[i] != NULL; i++)
		if (strcmp(list[i], code) == 0)
			return 1;
	return 0;
}

int
retry_is_throttle_code(const char *code)
{
	return retry_in(retry_throttle_codes, code);
}

enum retry_kind
retry_classify(const struct aws_error *e)
{
	if (e->transport)
		return e->timeout ? RETRY_TIMEOUT : RETRY_TRANSIENT;
	if (retry_in(retry_throttle_codes, e->code) || e->http_status == 429)
		return RETRY_THROTTLE;
	if (retry_in(retry_transient_codes, e->code))
		return RETRY_TRANSIENT;
	switch (e->http_status) {
	case 500:
	case 502:
	case 503:
	case 504:
		return RETRY_TRANSIENT;
	default:
		return RETRY_NONE;
	}
}

void
retry_flag(struct aws_error *e)
{
	enum retry_kind	 k = retry_classify(e);

	e->retryable = k != RETRY_NONE;
	e->throttling = k == RETRY_THROTTLE;
}

long
retry_backoff_cap_ms(const struct retry_policy *p, int n)
{
	long	 d = p->base_ms;
	int	 i;

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
	enum retry_kind	 kind;
	int		 attempt, cost, taken = 0;
	long		 delay;
	sw_err		 rc;

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
		cost = kind == RETRY_TIMEOUT ? SW_AWS_RETRY_TIMEOUT_COST :
		    SW_AWS_RETRY_COST;
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
