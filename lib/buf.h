/*
 * buf.h: a growable byte buffer with a hard size cap.  Used for response
 * bodies, rendered templates and anything assembled piecewise.  The
 * bytes are always NUL-terminated so a buffer can be used as a string.
 */
#ifndef SW_BUF_H
#define SW_BUF_H

#include <stdarg.h>
#include <stddef.h>

#include "lib/err.h"

struct sw_buf {
	char *data; /* owned; NUL-terminated when non-NULL */
	size_t len;
	size_t cap; /* allocated bytes */
	size_t max; /* hard cap on len; 0 means SW_MAX_UPSTREAM_BODY */
};

/* Zero-initialise; no allocation yet. */
void sw_buf_init(struct sw_buf *, size_t max);
/* Release the bytes; the struct may be reused after sw_buf_init. */
void sw_buf_free(struct sw_buf *);
void sw_buf_reset(struct sw_buf *);
/* Room for extra more bytes (and the NUL) without another allocation;
 * SW_ETOOBIG past the cap. */
sw_err sw_buf_reserve(struct sw_buf *, size_t extra);
/* Append; SW_ETOOBIG past the cap, SW_ENOMEM on allocation failure. */
sw_err sw_buf_add(struct sw_buf *, const void *, size_t);
sw_err sw_buf_puts(struct sw_buf *, const char *);
sw_err sw_buf_putc(struct sw_buf *, char);
/* An integer in decimal, without printf. */
sw_err sw_buf_putl(struct sw_buf *, long long);
sw_err sw_buf_printf(struct sw_buf *, const char *, ...)
    __attribute__((format(printf, 2, 3)));
sw_err sw_buf_vprintf(struct sw_buf *, const char *, va_list)
    __attribute__((format(printf, 2, 0)));
/*
 * Format into a fixed buffer of sz bytes, checked: SW_ETOOBIG when the
 * text did not fit (dst then holds the cut text, NUL-terminated; never
 * use it as a name, key, path or URL), SW_EINTERNAL for a format error.
 * The result must be read: truncation is an error.
 */
sw_err sw_fmt(char *dst, size_t sz, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), warn_unused_result));
/*
 * Format text meant for a person (a message, a reason, a detail) into
 * a fixed buffer of sz bytes.  Text that does not fit ends in "..." so
 * the cut shows; this is the one place such a cut is allowed.
 */
void sw_fmt_text(char *dst, size_t sz, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Hand the bytes to the caller (free() them); the buffer is emptied. */
char *sw_buf_steal(struct sw_buf *);
/* The string, or "" when nothing was added.  Borrowed. */
const char *sw_buf_str(const struct sw_buf *);

#endif
