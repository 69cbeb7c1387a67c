/*
 * alloc.h: the allocation calls of Slipway's own code.  Each is the
 * libc call of the same name, with one difference in the test build:
 * it is a fault point (lib/fault.h, SLIPWAY_FAULT=alloc:N), so a test
 * can make any one of them return NULL and see the caller fail cleanly.
 * Memory from these is released with free(), as libc's.  json-c,
 * libcurl and SQLite allocate on their own and do not come through here.
 */
#ifndef SW_ALLOC_H
#define SW_ALLOC_H

#include <stddef.h>

/* NULL (errno ENOMEM) when out of memory or when a fault is injected. */
void *sw_malloc(size_t n);
void *sw_calloc(size_t nmemb, size_t size);
/* On failure p is left as it was, still owned by the caller. */
void *sw_realloc(void *p, size_t n);
char *sw_strdup(const char *s);
char *sw_strndup(const char *s, size_t n);

#endif
