/*
 * jscan.c: a strict reader of a JSON object's members, without a
 * document (see jscan.h for what it accepts and why that is less than
 * the parser does).
 */
#include "config.h"

#include <string.h>

#include "lib/jscan.h"
#include "lib/json.h"
#include "lib/url.h"

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

static void
skip_ws(const char *s, size_t n, size_t *i)
{
	while (*i < n && is_ws(s[*i]))
		(*i)++;
}

/* The string at s[*i] (its opening quote) and *escaped when it has an
 * escape.  0, *i past its closing quote; or -1. */
static int
skip_string(const char *s, size_t n, size_t *i, int *escaped)
{
	size_t j;
	int k, v, code;

	*escaped = 0;
	for (j = *i + 1;
	     (j = (size_t)(sw_json_plain_end(s + j, s + n, 1) - s)) < n; j++) {
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
			if ((v = sw_hex_digit(s[j + (size_t)k])) < 0)
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
