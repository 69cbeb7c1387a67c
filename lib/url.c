/*
 * url.c: the one hex and percent codec (see url.h).  Encoding goes a
 * chunk at a time through a stack buffer: a path or query value is
 * encoded on every AWS signature, and one buffer call a byte was most
 * of a signer's time.
 */
#include <string.h>

#include "lib/url.h"

static const char hex_lower[] = "0123456789abcdef";
static const char hex_upper[] = "0123456789ABCDEF";

/* RFC 3986 unreserved: ALPHA DIGIT - . _ ~ (ASCII only). */
static const unsigned char unreserved[256] = {
	['-'] = 1,
	['.'] = 1,
	['_'] = 1,
	['~'] = 1,
	['0'] = 1,
	['1'] = 1,
	['2'] = 1,
	['3'] = 1,
	['4'] = 1,
	['5'] = 1,
	['6'] = 1,
	['7'] = 1,
	['8'] = 1,
	['9'] = 1,
	['A'] = 1,
	['B'] = 1,
	['C'] = 1,
	['D'] = 1,
	['E'] = 1,
	['F'] = 1,
	['G'] = 1,
	['H'] = 1,
	['I'] = 1,
	['J'] = 1,
	['K'] = 1,
	['L'] = 1,
	['M'] = 1,
	['N'] = 1,
	['O'] = 1,
	['P'] = 1,
	['Q'] = 1,
	['R'] = 1,
	['S'] = 1,
	['T'] = 1,
	['U'] = 1,
	['V'] = 1,
	['W'] = 1,
	['X'] = 1,
	['Y'] = 1,
	['Z'] = 1,
	['a'] = 1,
	['b'] = 1,
	['c'] = 1,
	['d'] = 1,
	['e'] = 1,
	['f'] = 1,
	['g'] = 1,
	['h'] = 1,
	['i'] = 1,
	['j'] = 1,
	['k'] = 1,
	['l'] = 1,
	['m'] = 1,
	['n'] = 1,
	['o'] = 1,
	['p'] = 1,
	['q'] = 1,
	['r'] = 1,
	['s'] = 1,
	['t'] = 1,
	['u'] = 1,
	['v'] = 1,
	['w'] = 1,
	['x'] = 1,
	['y'] = 1,
	['z'] = 1,
};

int
sw_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

void
sw_hex_encode(const void *in, size_t n, char *out)
{
	const unsigned char *p = in;
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = hex_lower[p[i] >> 4];
		out[2 * i + 1] = hex_lower[p[i] & 15];
	}
	out[2 * n] = '\0';
}

int
sw_hex_decode(const char *in, size_t n, unsigned char *out)
{
	size_t i;
	int hi, lo;

	for (i = 0; i < n; i++) {
		if ((hi = sw_hex_digit(in[2 * i])) < 0 ||
		    (lo = sw_hex_digit(in[2 * i + 1])) < 0)
			return -1;
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	return 0;
}

/* Write c encoded into o; the end. */
static char *
pct_byte(char *o, unsigned char c, unsigned flags)
{
	if (unreserved[c] || (c == '/' && (flags & SW_PCT_KEEP_SLASH))) {
		*o++ = (char)c;
		return o;
	}
	if (c == ' ' && (flags & SW_PCT_FORM)) {
		*o++ = '+';
		return o;
	}
	*o++ = '%';
	*o++ = hex_upper[c >> 4];
	*o++ = hex_upper[c & 15];
	return o;
}

size_t
sw_pct_encode_to(char *out, const char *s, size_t len, unsigned flags)
{
	char *o = out;
	size_t i;

	for (i = 0; i < len; i++)
		o = pct_byte(o, (unsigned char)s[i], flags);
	return (size_t)(o - out);
}

sw_err
sw_pct_encode(struct sw_buf *b, const char *s, size_t len, unsigned flags)
{
	char chunk[3 * 128];
	size_t i, n;
	sw_err rc;

	for (i = 0; i < len; i += n) {
		n = len - i < 128 ? len - i : 128;
		if ((rc = sw_buf_add(b, chunk,
			 sw_pct_encode_to(chunk, s + i, n, flags))) != SW_OK)
			return rc;
	}
	return SW_OK;
}

/* The byte an escape at s[0..left) stands for, -1 if it is none. */
static int
pct_escape(const char *s, size_t left)
{
	int hi, lo;

	if (left < 3 || (hi = sw_hex_digit(s[1])) < 0 ||
	    (lo = sw_hex_digit(s[2])) < 0)
		return -1;
	return hi << 4 | lo;
}

ssize_t
sw_pct_decode(
    const char *src, size_t len, char *dst, size_t dstsz, unsigned flags)
{
	size_t i, o = 0;
	int c;

	for (i = 0; i < len; i++) {
		if (o + 1 >= dstsz)
			return -1;
		if (src[i] == '+' && (flags & SW_PCT_FORM))
			dst[o++] = ' ';
		else if (src[i] != '%')
			dst[o++] = src[i];
		else if ((c = pct_escape(src + i, len - i)) >= 0 &&
		    (c != 0 || (flags & SW_PCT_LENIENT))) {
			dst[o++] = (char)c;
			i += 2;
		} else if (flags & SW_PCT_LENIENT)
			dst[o++] = '%';
		else
			return -1;
	}
	if (dstsz == 0)
		return -1;
	dst[o] = '\0';
	return (ssize_t)o;
}

int
sw_url_decode(const char *src, size_t len, char *dst, size_t dstsz)
{
	return sw_pct_decode(src, len, dst, dstsz, SW_PCT_FORM) < 0 ? -1 : 0;
}

sw_err
sw_url_encode(struct sw_buf *b, const char *s)
{
	return sw_pct_encode(b, s, strlen(s), 0);
}
