/*
 * tap.c: see tap.h.  Numbers tests, prints "ok N - name" or
 * "not ok N - name" with a diagnostic, and a trailing plan.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t/tap.h"

static int tap_count;
static int tap_failed;

static int
tap_vresult(int cond, const char *fmt, va_list ap)
{
	tap_count++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	vprintf(fmt, ap);
	putchar('\n');
	fflush(stdout);
	return cond;
}

int
ok(int cond, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = tap_vresult(cond, fmt, ap);
	va_end(ap);
	return r;
}

int
is_int(long long got, long long want, const char *name)
{
	if (!ok(got == want, "%s", name))
		diag("  got: %lld\n  expected: %lld", got, want);
	return got == want;
}

int
is_str(const char *got, const char *want, const char *name)
{
	int same;

	same =
	    got != NULL && want != NULL ? strcmp(got, want) == 0 : got == want;
	if (!ok(same, "%s", name))
		diag("  got: '%s'\n  expected: '%s'", got ? got : "(null)",
		    want ? want : "(null)");
	return same;
}

void
diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

void
skip_all(const char *why)
{
	printf("1..0 # SKIP %s\n", why);
	fflush(stdout);
	exit(0);
}

void
skip(int n, const char *why)
{
	while (n-- > 0)
		printf("ok %d # SKIP %s\n", ++tap_count, why);
	fflush(stdout);
}

int
tap_done(void)
{
	printf("1..%d\n", tap_count);
	if (tap_failed)
		printf("# failed %d of %d\n", tap_failed, tap_count);
	fflush(stdout);
	return tap_failed ? 1 : 0;
}
