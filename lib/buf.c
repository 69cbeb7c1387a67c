/*
 * buf.c: growable, capped byte buffer (see buf.h).  Growth doubles, so
 * appending n bytes costs amortised O(n); the cap stops a hostile peer
 * from making us allocate without bound.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/limits.h"

void
sw_buf_init(struct sw_buf *b, size_t max)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->max = max ? max : SW_MAX_UPSTREAM_BODY;
}

void
sw_buf_free(struct sw_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

void
sw_buf_reset(struct sw_buf *b)
{
	b->len = 0;
	if (b->data != NULL)
		b->data[0] = '\0';
}

sw_err
sw_buf_reserve(struct sw_buf *b, size_t extra)
{
	size_t need, ncap;
	char *p;

	if (extra > b->max || b->len > b->max - extra)
		return SW_ETOOBIG;
	need = b->len + extra + 1;
	if (need <= b->cap)
		return SW_OK;
	ncap = b->cap ? b->cap : 256;
	while (ncap < need)
		ncap *= 2;
	if ((p = sw_realloc(b->data, ncap)) == NULL)
		return SW_ENOMEM;
	b->data = p;
	b->cap = ncap;
	return SW_OK;
}

sw_err
sw_buf_add(struct sw_buf *b, const void *p, size_t n)
{
	sw_err e;

	if ((e = sw_buf_reserve(b, n)) != SW_OK)
		return e;
	if (n > 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return SW_OK;
}

sw_err
sw_buf_puts(struct sw_buf *b, const char *s)
{
	return sw_buf_add(b, s, strlen(s));
}

sw_err
sw_buf_putc(struct sw_buf *b, char c)
{
	return sw_buf_add(b, &c, 1);
}

sw_err
sw_buf_vprintf(struct sw_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n;
	sw_err e;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return SW_EINTERNAL;
	if ((e = sw_buf_reserve(b, (size_t)n)) != SW_OK)
		return e;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return SW_OK;
}

sw_err
sw_buf_putl(struct sw_buf *b, long long v)
{
	char digits[24], *p = digits + sizeof(digits);
	unsigned long long u =
	    v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;

	*--p = '\0';
	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10) != 0);
	if (v < 0)
		*--p = '-';
	return sw_buf_puts(b, p);
}

sw_err
sw_buf_printf(struct sw_buf *b, const char *fmt, ...)
{
	va_list ap;
	sw_err e;

	va_start(ap, fmt);
	e = sw_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return e;
}

sw_err
sw_fmt(char *dst, size_t sz, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(dst, sz, fmt, ap);
	va_end(ap);
	if (n < 0)
		return SW_EINTERNAL;
	return (size_t)n < sz ? SW_OK : SW_ETOOBIG;
}

void
sw_fmt_text(char *dst, size_t sz, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (sz == 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(dst, sz, fmt, ap);
	va_end(ap);
	if (n < 0)
		dst[0] = '\0';
	else if ((size_t)n >= sz && sz > 3)
		memcpy(dst + sz - 4, "...", 4);
}

char *
sw_buf_steal(struct sw_buf *b)
{
	char *p;

	if (b->data == NULL && sw_buf_add(b, "", 0) != SW_OK)
		return NULL;
	p = b->data;
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}

const char *
sw_buf_str(const struct sw_buf *b)
{
	return b->data ? b->data : "";
}
