/*
 * jscan.c: a strict reader of a JSON object's members, without a
 * document (see jscan.h for what it accepts and why that is less than
 * the parser does).
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "lib/jscan.h"

static int
is_ws(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

static int
is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static int
hex_value(char ch)
{
	if (is_digit(ch))
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

static void
skip_ws(const char *s, size_t n, size_t *i)
{
	while (*i < n && is_ws(s[*i]))
		(*i)++;
}

/* The bytes this reader stops at in a string: '"', '\\', control
 * characters and every byte past 0x7f. */
/* clang-format off */
static const unsigned char special[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x0_ */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x1_ */
	0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x2_ */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x3_ */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x4_ */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, /* 0x5_ */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x6_ */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x7_ */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x8_ */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x9_ */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xa_ */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xb_ */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xc_ */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xd_ */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xe_ */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0xf_ */
};
/* clang-format on */

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

/* From s[j], the first byte a string holds that is not printable ASCII
 * other than '"' and '\\'; n when none.  Eight bytes a step: (v - 1) &
 * ~v has a byte's high bit set where v's byte is 0, (x - 0x20) & ~x
 * where x's is under 0x20, and x's own high bit marks a byte past
 * 0x7f; the loop after finds the byte itself. */
static size_t
plain_end(const char *s, size_t n, size_t j)
{
	uint64_t x, q, bs, m;

	for (; n - j >= 8; j += 8) {
		memcpy(&x, s + j, 8);
		q = x ^ (ONES * '"');
		bs = x ^ (ONES * '\\');
		m = (((x - ONES * 0x20) & ~x) | ((q - ONES) & ~q) |
			((bs - ONES) & ~bs) | x) &
		    HIGHS;
		/* The lowest mark is exact (a borrow only marks the
		 * bytes after it), the first byte in memory on a
		 * little-endian machine; elsewhere the loop finds it. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		if (m != 0)
			return j + (size_t)__builtin_ctzll(m) / 8;
#else
		if (m != 0)
			break;
#endif
	}
	while (j < n && !special[(unsigned char)s[j]])
		j++;
	return j;
}

/* The string at s[*i] (its opening quote) and *escaped when it has an
 * escape.  0, *i past its closing quote; or -1. */
static int
skip_string(const char *s, size_t n, size_t *i, int *escaped)
{
	size_t j;
	int k, v, code;

	*escaped = 0;
	for (j = *i + 1; (j = plain_end(s, n, j)) < n; j++) {
		unsigned char ch = (unsigned char)s[j];

		if (ch == '"') {
			*i = j + 1;
			return 0;
		}
		if (ch != '\\')
			return -1;
		*escaped = 1;
		if (++j >= n)
			return -1;
		if (s[j] != '\0' && strchr("\"\\/bfnrt", s[j]) != NULL)
			continue;
		if (s[j] != 'u' || n - j <= 4)
			return -1;
		/* \u0001-\u007f only: NUL is refused by the parser, the
		 * rest are UTF-8 (and surrogates) this reader leaves to it. */
		for (code = 0, k = 1; k <= 4; k++) {
			if ((v = hex_value(s[j + (size_t)k])) < 0)
				return -1;
			code = code * 16 + v;
		}
		if (code == 0 || code >= 0x80)
			return -1;
		j += 4;
	}
	return -1;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?, at most SW_JSCAN_NUMBER characters. */
static int
skip_number(const char *s, size_t n, size_t *i)
{
	size_t j = *i;

	if (j < n && s[j] == '-')
		j++;
	if (j < n && s[j] == '0')
		j++;
	else if (j < n && is_digit(s[j]) && s[j] != '0') {
		while (j < n && is_digit(s[j]))
			j++;
	} else
		return -1;
	if (j < n && s[j] == '.') {
		if (++j >= n || !is_digit(s[j]))
			return -1;
		while (j < n && is_digit(s[j]))
			j++;
	}
	if (j - *i > SW_JSCAN_NUMBER || (j < n && (s[j] == 'e' || s[j] == 'E')))
		return -1;
	*i = j;
	return 0;
}

static int skip_value(const char *s, size_t n, size_t *i, int depth);

/* The members or items of the object or array at s[*i], which is at
 * depth.  0 past its close, or -1. */
static int
skip_container(const char *s, size_t n, size_t *i, int depth)
{
	char close = s[*i] == '{' ? '}' : ']';
	size_t j = *i + 1;
	int escaped, first = 1;

	if (depth > SW_JSCAN_DEPTH)
		return -1;
	for (;;) {
		skip_ws(s, n, &j);
		if (j < n && s[j] == close && first)
			break;
		if (close == '}') {
			if (j >= n || s[j] != '"' ||
			    skip_string(s, n, &j, &escaped) != 0 || escaped)
				return -1;
			skip_ws(s, n, &j);
			if (j >= n || s[j] != ':')
				return -1;
			j++;
			skip_ws(s, n, &j);
		}
		if (skip_value(s, n, &j, depth) != 0)
			return -1;
		skip_ws(s, n, &j);
		if (j < n && s[j] == close)
			break;
		if (j >= n || s[j] != ',')
			return -1;
		j++;
		first = 0;
	}
	*i = j + 1;
	return 0;
}

/* The value at s[*i], inside a container at depth. */
static int
skip_value(const char *s, size_t n, size_t *i, int depth)
{
	static const char *const words[] = { "true", "false", "null" };
	size_t k, len;
	int escaped;

	if (*i >= n)
		return -1;
	switch (s[*i]) {
	case '"':
		return skip_string(s, n, i, &escaped);
	case '{':
	case '[':
		return skip_container(s, n, i, depth + 1);
	case 't':
	case 'f':
	case 'n':
		for (k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
			len = strlen(words[k]);
			if (n - *i >= len &&
			    memcmp(s + *i, words[k], len) == 0) {
				*i += len;
				return 0;
			}
		}
		return -1;
	default:
		return skip_number(s, n, i);
	}
}

static char
type_of(char first)
{
	switch (first) {
	case '"':
		return 's';
	case '{':
		return 'o';
	case '[':
		return 'a';
	case 't':
	case 'f':
	case 'n':
		return 'l';
	default:
		return 'n';
	}
}

int
sw_jscan_open(struct sw_jscan *sc, const char *s, size_t n)
{
	size_t i = 0;

	memset(sc, 0, sizeof(*sc));
	skip_ws(s, n, &i);
	if (i >= n || s[i] != '{')
		return -1;
	sc->s = s;
	sc->n = n;
	sc->at = i + 1;
	sc->depth = 1;
	return 0;
}

int
sw_jscan_into(struct sw_jscan *sc, struct sw_jscan *outer)
{
	if (!outer->pending || outer->depth >= SW_JSCAN_DEPTH)
		return -1;
	memset(sc, 0, sizeof(*sc));
	sc->s = outer->s;
	sc->n = outer->n;
	sc->at = outer->at + 1;
	sc->depth = outer->depth + 1;
	sc->outer = outer;
	outer->pending = 0;
	return 0;
}

int
sw_jscan_skip(struct sw_jscan *sc, struct sw_jval *val)
{
	size_t start = sc->at;

	if (!sc->pending ||
	    skip_container(sc->s, sc->n, &sc->at, sc->depth + 1) != 0)
		return -1;
	sc->pending = 0;
	val->n = sc->at - start;
	return 0;
}

void
sw_jscan_took(struct sw_jscan *sc, struct sw_jval *val, size_t n)
{
	sc->pending = 0;
	sc->at += n;
	val->n = n;
}

/* The object's close at s[i]: the end of a whole document, or the
 * outer reader goes on after it. */
static int
close_object(struct sw_jscan *sc, size_t i)
{
	i++;
	if (sc->outer != NULL)
		sc->outer->at = i;
	else {
		skip_ws(sc->s, sc->n, &i);
		if (i != sc->n)
			return -1;
	}
	sc->at = i;
	sc->state = 2;
	return 0;
}

int
sw_jscan_next(struct sw_jscan *sc, struct sw_jval *key, struct sw_jval *val)
{
	const char *s = sc->s;
	size_t n = sc->n, i, start;
	int escaped;

	if (sc->state == 2)
		return 0;
	if (sc->pending && skip_container(s, n, &sc->at, sc->depth + 1) != 0)
		return -1;
	sc->pending = 0;
	i = sc->at;
	skip_ws(s, n, &i);
	if (i < n && s[i] == '}')
		return close_object(sc, i);
	if (sc->state == 1) {
		if (i >= n || s[i] != ',')
			return -1;
		i++;
		skip_ws(s, n, &i);
	}
	start = i;
	if (i >= n || s[i] != '"' || skip_string(s, n, &i, &escaped) != 0 ||
	    escaped)
		return -1;
	key->p = s + start + 1;
	key->n = i - start - 2;
	key->type = 's';
	skip_ws(s, n, &i);
	if (i >= n || s[i] != ':')
		return -1;
	i++;
	skip_ws(s, n, &i);
	val->p = s + i;
	val->n = 0;
	val->type = i < n ? type_of(s[i]) : 'n';
	sc->state = 1;
	if (val->type == 'o') {
		sc->at = i;
		sc->pending = 1;
		return 1;
	}
	start = i;
	if (skip_value(s, n, &i, sc->depth) != 0)
		return -1;
	val->n = i - start;
	sc->at = i;
	return 1;
}

int
sw_jkey_is(const struct sw_jval *key, const char *lit)
{
	return strlen(lit) == key->n && memcmp(key->p, lit, key->n) == 0;
}

int
sw_jval_is(const struct sw_jval *v, const char *lit)
{
	return v->type == 's' && v->n == strlen(lit) + 2 &&
	    memcmp(v->p + 1, lit, v->n - 2) == 0;
}

int
sw_jval_text(const struct sw_jval *v, char *buf, size_t sz)
{
	if (v->type != 's' || v->n - 2 >= sz ||
	    memchr(v->p + 1, '\\', v->n - 2) != NULL)
		return -1;
	memcpy(buf, v->p + 1, v->n - 2);
	buf[v->n - 2] = '\0';
	return 0;
}
