/*
 * tap.h: a tiny Test Anything Protocol emitter for the C unit tests.
 * Each test program calls ok()/is_int()/is_str() and ends with
 * tap_done(), whose value is the exit status (non-zero on any failure).
 * automake's tap-driver.sh and prove both read what it prints.
 */
#ifndef SW_TAP_H
#define SW_TAP_H

#include <stdarg.h>

int ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int is_int(long long got, long long want, const char *name);
int is_str(const char *got, const char *want, const char *name);
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void skip_all(const char *why);
void skip(int n, const char *why);
int tap_done(void);

#endif
