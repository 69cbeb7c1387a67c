/*
 * abuf.h: a growable byte buffer with a hard size cap, used by the AWS
 * and Kubernetes clients for request bodies, canonical strings and
 * response bodies.  The data is always NUL-terminated so it can be
 * read as a C string; len does not count the terminator.
 */
#ifndef SW_ABUF_H
#define SW_ABUF_H

#include <stdarg.h>
#include <stddef.h>

#include "lib/err.h"

struct abuf {
	char	*data;		/* owned; NULL until the first append */
	size_t	 len;		/* bytes used, not counting the NUL */
	size_t	 cap;		/* bytes allocated */
	size_t	 max;		/* appends beyond this fail with SW_ETOOBIG */
};

/* Start empty with a cap of max bytes; nothing is allocated yet. */
void	 abuf_init(struct abuf *, size_t max);
/* Release the data; the buffer may be reused after abuf_init. */
void	 abuf_free(struct abuf *);
/* Forget the contents but keep the allocation. */
void	 abuf_reset(struct abuf *);
/* Append n bytes (borrowed).  SW_ETOOBIG past the cap, SW_ENOMEM. */
sw_err	 abuf_add(struct abuf *, const void *, size_t n);
sw_err	 abuf_puts(struct abuf *, const char *);
sw_err	 abuf_putc(struct abuf *, char);
sw_err	 abuf_printf(struct abuf *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
sw_err	 abuf_vprintf(struct abuf *, const char *, va_list)
	    __attribute__((format(printf, 2, 0)));
/* Borrowed C string view of the contents; "" when empty. */
const char *abuf_str(const struct abuf *);
/* Hand the data to the caller (free() it) and leave the buffer empty.
 * Never NULL on success: an empty buffer yields an allocated "". */
char	*abuf_steal(struct abuf *);

#endif
