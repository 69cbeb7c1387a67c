/*
 * alloc.c: libc's allocation calls behind the allocation fault point
 * (see alloc.h).  Without fault injection built in, sw_fault_hit() is an
 * empty inline function and each of these is the libc call alone.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/alloc.h"
#include "lib/fault.h"

/* Non-zero (errno ENOMEM) when this allocation is to fail. */
static int
alloc_fails(const char *what)
{
	if (!sw_fault_hit(SW_FAULT_ALLOC, what))
		return 0;
	errno = ENOMEM;
	return 1;
}

void *
sw_malloc(size_t n)
{
	return alloc_fails("malloc") ? NULL : malloc(n);
}

void *
sw_calloc(size_t nmemb, size_t size)
{
	return alloc_fails("calloc") ? NULL : calloc(nmemb, size);
}

void *
sw_realloc(void *p, size_t n)
{
	return alloc_fails("realloc") ? NULL : realloc(p, n);
}

char *
sw_strdup(const char *s)
{
	return alloc_fails("strdup") ? NULL : strdup(s);
}

char *
sw_strndup(const char *s, size_t n)
{
	return alloc_fails("strndup") ? NULL : strndup(s, n);
}
