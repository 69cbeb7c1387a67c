/*
 * url.c: percent-encoding of a path segment or query value, and
 * percent-decoding for query strings, path segments and the
 * URL-encoded documents IAM returns (see url.h).
 */
#include <stddef.h>

#include "lib/url.h"

int
sw_url_decode(const char *src, size_t len, char *dst, size_t dstsz)
{
	size_t i, o = 0;
	int hi, lo;

	for (i = 0; i < len; i++) {
		if (o + 1 >= dstsz)
			return -1;
		if (src[i] == '+')
			dst[o++] = ' ';
		else if (src[i] == '%') {
			if (i + 2 >= len)
				return -1;
			hi = src[i + 1];
			lo = src[i + 2];
#define HEXV(c) ((c) >= '0' && (c) <= '9' ? (c) - '0' : \
	(c) >= 'a' && (c) <= 'f' ? (c) - 'a' + 10 : \
	(c) >= 'A' && (c) <= 'F' ? (c) - 'A' + 10 : -1)
			if (HEXV(hi) < 0 || HEXV(lo) < 0)
				return -1;
			dst[o] = (char)(HEXV(hi) * 16 + HEXV(lo));
#undef HEXV
			if (dst[o] == '\0')
				return -1;
			o++;
			i += 2;
		} else
			dst[o++] = src[i];
	}
	dst[o] = '\0';
	return 0;
}

sw_err
sw_url_encode(struct sw_buf *b, const char *s)
{
	static const char hx[] = "0123456789ABCDEF";
	const unsigned char *p;
	char esc[3];
	sw_err e = SW_OK;

	for (p = (const unsigned char *)s; *p != '\0' && e == SW_OK; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || *p == '-' || *p == '.' ||
		    *p == '_' || *p == '~')
			e = sw_buf_add(b, p, 1);
		else {
			esc[0] = '%';
			esc[1] = hx[*p >> 4];
			esc[2] = hx[*p & 15];
			e = sw_buf_add(b, esc, 3);
		}
	}
	return e;
}
