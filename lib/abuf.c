/*
 * abuf.c: growable, capped byte buffers (see abuf.h).  Growth doubles
 * the allocation so appends are amortised O(1); the cap bounds what an
 * upstream can make us hold in memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/abuf.h"

void
abuf_init(struct abuf *b, size_t max)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	b->max = max;
}

void
abuf_free(struct abuf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

void
abuf_reset(struct abuf *b)
{
	b->len = 0;
	if (b->data != NULL)
		b->data[0] = '\0';
}

static sw_err
abuf_reserve(struct abuf *b, size_t n)
{
	size_t	 want, ncap;
	char	*p;

	if (n > b->max || b->len > b->max - n)
		return SW_ETOOBIG;
	want = b->len + n + 1;
	if (want <= b->cap)
		return SW_OK;
	ncap = b->cap ? b->cap : 64;
	while (ncap < want)
		ncap *= 2;
	if ((p = realloc(b->data, ncap)) == NULL)
		return SW_ENOMEM;
	b->data = p;
	b->cap = ncap;
	return SW_OK;
}

sw_err
abuf_add(struct abuf *b, const void *p, size_t n)
{
	sw_err	 rc;

	if ((rc = abuf_reserve(b, n)) != SW_OK)
		return rc;
	if (n > 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return SW_OK;
}

sw_err
abuf_puts(struct abuf *b, const char *s)
{
	return abuf_add(b, s, strlen(s));
}

sw_err
abuf_putc(struct abuf *b, char c)
{
	return abuf_add(b, &c, 1);
}

sw_err
abuf_vprintf(struct abuf *b, const char *fmt, va_list ap)
{
	va_list	 cp;
	int	 n;
	sw_err	 rc;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return SW_EINTERNAL;
	if ((rc = abuf_reserve(b, (size_t)n)) != SW_OK)
		return rc;
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return SW_OK;
}

sw_err
abuf_printf(struct abuf *b, const char *fmt, ...)
{
	va_list	 ap;
	sw_err	 rc;

	va_start(ap, fmt);
	rc = abuf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}

const char *
abuf_str(const struct abuf *b)
{
	return b->data != NULL ? b->data : "";
}

char *
abuf_steal(struct abuf *b)
{
	char	*p;

	if (b->data == NULL)
		return strdup("");
	p = b->data;
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
	return p;
}
