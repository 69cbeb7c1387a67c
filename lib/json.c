/*
 * json.c: json-c helpers (see json.h).  Parsing goes through a tokener
 * with a depth cap and strict mode so "{} trailing" and deep nesting are
 * refused as malformed rather than half accepted.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/alloc.h"
#include "lib/json.h"
#include "lib/limits.h"
#include "lib/log.h"

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if the
 * bytes there are not one. */
static size_t
utf8_seq(const unsigned char *s, size_t n)
{
	unsigned c = s[0], cp;
	size_t len, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

const char *
sw_text_bad(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, n;

	while (i < len) {
		if (p[i] == '\0')
			return "contains a NUL character";
		if ((n = utf8_seq(p + i, len - i)) == 0)
			return "is not valid UTF-8";
		i += n;
	}
	return NULL;
}

void
sw_utf8_tidy(char *s)
{
	size_t len = strlen(s), i = 0, n;

	while (i < len) {
		if ((n = utf8_seq((const unsigned char *)s + i, len - i)) == 0)
			s[i++] = '?';
		else
			i += n;
	}
}

char *
sw_utf8_dup(const char *s)
{
	char *out;

	if ((out = sw_strdup(s)) != NULL)
		sw_utf8_tidy(out);
	return out;
}

/* Is any key or string of o refused by sw_text_bad?  The quick walk
 * that builds no path: json_text_bad then names the member. */
static int
json_text_any_bad(json_object *o)
{
	size_t i;

	switch (json_object_get_type(o)) {
	case json_type_string:
		return sw_text_bad(json_object_get_string(o),
			   (size_t)json_object_get_string_len(o)) != NULL;
	case json_type_array:
		for (i = 0; i < json_object_array_length(o); i++)
			if (json_text_any_bad(json_object_array_get_idx(o, i)))
				return 1;
		return 0;
	case json_type_object: {
		json_object_object_foreach(
		    o, k, v) if (sw_text_bad(k, strlen(k)) != NULL ||
		    json_text_any_bad(v)) return 1;
		return 0;
	}
	default:
		return 0;
	}
}

/* The first key or string of o that sw_text_bad refuses: its member
 * path into where (keys walked so far are known good), and why. */
static const char *
json_text_bad(json_object *o, char *where, size_t wheresz, size_t at)
{
	const char *bad;
	size_t i, n, m;

	switch (json_object_get_type(o)) {
	case json_type_string:
		return sw_text_bad(json_object_get_string(o),
		    (size_t)json_object_get_string_len(o));
	case json_type_array:
		for (i = 0; i < json_object_array_length(o); i++) {
			n = (size_t)snprintf(
			    where + at, wheresz - at, "[%zu]", i);
			if (n >= wheresz - at)
				n = wheresz - at - 1;
			bad = json_text_bad(json_object_array_get_idx(o, i),
			    where, wheresz, at + n);
			if (bad != NULL)
				return bad;
		}
		where[at] = '\0';
		return NULL;
	case json_type_object: {
		json_object_object_foreach(o, k, v)
		{
			if ((bad = sw_text_bad(k, strlen(k))) != NULL) {
				/* json-c keys are C strings, cut at a NUL:
				 * sw_json_parse looks for those in the
				 * raw text. */
				sw_fmt_text(where + at, wheresz - at,
				    "%s(a key)", at ? "." : "");
				return bad;
			}
			n = (size_t)snprintf(
			    where + at, wheresz - at, "%s%s", at ? "." : "", k);
			if (n >= wheresz - at) {
				/* Cut on a character (the path is quoted in
				 * messages that must be valid UTF-8); nothing
				 * more is added after a cut path. */
				n = wheresz - at - 1;
				for (m = n; m > (at ? 1u : 0u) &&
				     ((unsigned char)k[m - (at ? 1 : 0)] &
					 0xc0) == 0x80;
				     m--)
					;
				where[at + m] = '\0';
			}
			if ((bad = json_text_bad(v, where, wheresz, at + n)) !=
			    NULL)
				return bad;
		}
		where[at] = '\0';
		return NULL;
	}
	default:
		return NULL;
	}
}

/* The text has a \u0000 escape (a backslash that is not itself
 * escaped, then u0000): a NUL in some string or key. */
static int
has_nul_escape(const char *text, size_t len)
{
	size_t i, run = 0;

	for (i = 0; i < len; i++) {
		if (text[i] == '\\') {
			run++;
			continue;
		}
		if (run % 2 == 1 && len - i >= 5 &&
		    memcmp(text + i, "u0000", 5) == 0)
			return 1;
		run = 0;
	}
	return 0;
}

/* Plain ASCII text with no escape and no NUL: every key and string
 * of its document is a piece of it, so none can be bad UTF-8 or hold a
 * NUL, and the walk over the tree is not needed. */
static int
text_plain_ascii(const char *text, size_t len)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] == '\\' || p[i] == '\0' || p[i] >= 0x80)
			return 0;
	return 1;
}

sw_err
sw_json_parse(
    const char *text, size_t len, json_object **out, char *why, size_t whysz)
{
	struct json_tokener *tok = NULL;
	sw_err e;

	e = sw_json_parse_with(&tok, text, len, out, why, whysz);
	sw_json_tokener_free(tok);
	return e;
}

void
sw_json_tokener_free(struct json_tokener *tok)
{
	if (tok != NULL)
		json_tokener_free(tok);
}

/* sw_json_parse_with, or with whole 0 sw_json_parse_part. */
static sw_err
parse_value(struct json_tokener **keep, int depth, const char *text, size_t len,
    int whole, size_t *usedp, json_object **out, char *why, size_t whysz)
{
	struct json_tokener *tok;
	json_object *o;
	enum json_tokener_error jerr;
	char where[128];
	const char *bad;
	size_t used;

	*out = NULL;
	if (len > (size_t)INT32_MAX) {
		sw_fmt_text(why, whysz, "body too large");
		return SW_EBADJSON;
	}
	if (*keep == NULL) {
		if ((*keep = json_tokener_new_ex(depth)) == NULL)
			return SW_ENOMEM;
		/* A part is followed by the rest of its document. */
		json_tokener_set_flags(*keep,
		    JSON_TOKENER_STRICT |
			(whole ? 0 : JSON_TOKENER_ALLOW_TRAILING_CHARS));
	}
	tok = *keep;
	json_tokener_reset(tok);
	o = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	used = json_tokener_get_parse_end(tok);
	if (jerr == json_tokener_continue && whole) {
		/* A number at the very end may go on: a space ends it
		 * ("5" is a whole document), and ends nothing else. */
		o = json_tokener_parse_ex(tok, " ", 1);
		jerr = json_tokener_get_error(tok);
		used = len;
		if (jerr != json_tokener_success)
			jerr = json_tokener_continue;
	}
	if (jerr == json_tokener_continue) {
		sw_fmt_text(why, whysz, "unexpected end of JSON input");
		goto bad;
	}
	if (jerr != json_tokener_success) {
		sw_fmt_text(why, whysz, "%s at offset %zu",
		    json_tokener_error_desc(jerr), used);
		goto bad;
	}
	if (usedp != NULL)
		*usedp = used;
	/* (strchr finds the terminator: a NUL is not white space.) */
	while (whole && used < len && text[used] != '\0' &&
	    strchr(" \t\r\n", text[used]) != NULL)
		used++;
	if (whole && used != len) {
		sw_fmt_text(why, whysz, "trailing data at offset %zu", used);
		goto bad;
	}
	if (text_plain_ascii(text, used)) {
		*out = o;
		return SW_OK;
	}
	where[0] = '\0';
	if (json_text_any_bad(o) &&
	    (bad = json_text_bad(o, where, sizeof(where), 0)) != NULL) {
		sw_fmt_text(why, whysz, "%s%s%s", where, where[0] ? ": " : "",
		    strcmp(bad, "is not valid UTF-8") == 0
			? "a string is not valid UTF-8"
			: "a string contains a NUL character (\\u0000)");
		sw_utf8_tidy(why); /* a path cut inside a character */
		json_object_put(o);
		return SW_EBADJSON;
	}
	if (has_nul_escape(text, used)) {
		sw_fmt_text(why, whysz,
		    "a key contains a NUL character "
		    "(\\u0000)");
		json_object_put(o);
		return SW_EBADJSON;
	}
	*out = o;
	return SW_OK;
bad:
	json_object_put(o);
	return SW_EBADJSON;
}

sw_err
sw_json_parse_with(struct json_tokener **keep, const char *text, size_t len,
    json_object **out, char *why, size_t whysz)
{
	return parse_value(
	    keep, SW_MAX_JSON_DEPTH, text, len, 1, NULL, out, why, whysz);
}

sw_err
sw_json_parse_part(struct json_tokener **keep, int depth, const char *text,
    size_t len, size_t *used, json_object **out, char *why, size_t whysz)
{
	return parse_value(keep, depth, text, len, 0, used, out, why, whysz);
}

const char *
sw_json_str(json_object *o)
{
	return json_object_to_json_string_ext(
	    o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* A frozen object's text and its length (the serializer's userdata). */
struct frozen {
	size_t len;
	char text[];
};

static int
frozen_print(json_object *o, struct printbuf *pb, int level, int flags)
{
	const struct frozen *f = json_object_get_userdata(o);

	(void)level;
	(void)flags;
	return printbuf_memappend(pb, f->text, (int)f->len);
}

static void
frozen_free(json_object *o, void *userdata)
{
	(void)o;
	free(userdata);
}

const char *
sw_json_freeze(json_object *o)
{
	const char *text = sw_json_str(o);
	size_t len = strlen(text);
	struct frozen *f;

	if (len > (size_t)INT32_MAX ||
	    (f = sw_malloc(sizeof(*f) + len + 1)) == NULL)
		return text; /* printed as before, each time */
	f->len = len;
	memcpy(f->text, text, len + 1);
	json_object_set_serializer(o, frozen_print, f, frozen_free);
	return f->text;
}

/* The bytes a JSON string cannot hold as they are, each with the length
 * of its escape: "\\n" and the like, or "\\u00XX". */
/* clang-format off */
const unsigned char sw_json_escape_len[256] = {
	6, 6, 6, 6, 6, 6, 6, 6, 2, 2, 2, 6, 2, 2, 6, 6, /* 0x0_ */
	6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 6, /* 0x1_ */
	0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x2_ */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x3_ */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x4_ */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, /* 0x5_ */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x6_ */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x7_ */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x8_ */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0x9_ */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xa_ */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xb_ */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xc_ */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xd_ */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xe_ */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, /* 0xf_ */
};
/* clang-format on */

/* The escape of a byte sw_json_plain_end stops at, as json-c writes it, at w
 * (sw_json_escape_len[ch] bytes). */
static void
escape_at(unsigned char ch, char *w)
{
	static const char hex[] = "0123456789abcdef";

	w[0] = '\\';
	switch (ch) {
	case '"':
	case '\\':
		w[1] = (char)ch;
		return;
	case '\b':
		w[1] = 'b';
		return;
	case '\f':
		w[1] = 'f';
		return;
	case '\n':
		w[1] = 'n';
		return;
	case '\r':
		w[1] = 'r';
		return;
	case '\t':
		w[1] = 't';
		return;
	default:
		memcpy(w + 1, "u00", 3);
		w[4] = hex[ch >> 4];
		w[5] = hex[ch & 15];
	}
}

/* Bytes b may still take: up to its cap and its allocation. */
static size_t
room_in(const struct sw_buf *b, const char *w)
{
	size_t lim = b->cap - 1 < b->max ? b->cap - 1 : b->max;

	return lim - (size_t)(w - b->data);
}

/* The escapes json-c writes (sw_json_str): a text printed either way
 * reads the same.  Written in place, the room for the rest of s and the
 * closing quote kept ahead; the short runs between escapes (JSON text
 * is full of them) copied without a call. */
sw_err
sw_json_put_string(struct sw_buf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len, *run;
	size_t room, n, need;
	char *w;
	sw_err e;

	if ((e = sw_buf_reserve(b, len + 2)) != SW_OK)
		return e;
	w = b->data + b->len;
	*w++ = '"';
	room = room_in(b, w);
	for (run = p; (p = (const unsigned char *)sw_json_plain_end(
			   (const char *)run, (const char *)end, 0)) < end;
	     run = p + 1) {
		n = sw_json_escape_len[*p];
		/* this run and escape, the rest plain, the quote */
		need = (size_t)(end - run) + n;
		if (room < need) {
			b->len = (size_t)(w - b->data);
			if ((e = sw_buf_reserve(b, need)) != SW_OK) {
				b->data[b->len] = '\0';
				return e;
			}
			w = b->data + b->len;
			room = room_in(b, w);
		}
		room -= (size_t)(p - run) + n;
		if (p - run >= 16) {
			memcpy(w, run, (size_t)(p - run));
			w += p - run;
		} else
			while (run < p)
				*w++ = (char)*run++;
		escape_at(*p, w);
		w += n;
	}
	memcpy(w, run, (size_t)(end - run));
	w += end - run;
	*w++ = '"';
	*w = '\0';
	b->len = (size_t)(w - b->data);
	return SW_OK;
}

const char *
sw_json_pretty(json_object *o)
{
	return json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
		JSON_C_TO_STRING_NOSLASHESCAPE);
}

json_object *
sw_json_get(json_object *o, const char *key)
{
	json_object *v;

	if (o == NULL || !json_object_is_type(o, json_type_object))
		return NULL;
	return json_object_object_get_ex(o, key, &v) ? v : NULL;
}

const char *
sw_json_get_str(json_object *o, const char *key)
{
	json_object *v = sw_json_get(o, key);

	return v != NULL && json_object_is_type(v, json_type_string)
	    ? json_object_get_string(v)
	    : NULL;
}

int64_t
sw_json_get_int(json_object *o, const char *key, int64_t dflt)
{
	json_object *v = sw_json_get(o, key);

	return v != NULL && json_object_is_type(v, json_type_int)
	    ? json_object_get_int64(v)
	    : dflt;
}

int
sw_json_get_bool(json_object *o, const char *key, int dflt)
{
	json_object *v = sw_json_get(o, key);

	return v != NULL && json_object_is_type(v, json_type_boolean)
	    ? json_object_get_boolean(v)
	    : dflt;
}

void
sw_json_add_str(json_object *o, const char *key, const char *val)
{
	json_object_object_add(
	    o, key, val ? json_object_new_string(val) : NULL);
}

void
sw_json_add_int(json_object *o, const char *key, int64_t val)
{
	json_object_object_add(o, key, json_object_new_int64(val));
}

void
sw_json_add_bool(json_object *o, const char *key, int val)
{
	json_object_object_add(o, key, json_object_new_boolean(val));
}

json_object *
sw_js(const char *s)
{
	return s != NULL ? json_object_new_string(s) : NULL;
}

json_object *
sw_jsf(const char *fmt, ...)
{
	json_object *o = NULL;
	struct sw_buf b;
	va_list ap;

	sw_buf_init(&b, SW_MAX_BODY);
	va_start(ap, fmt);
	if (sw_buf_vprintf(&b, fmt, ap) == SW_OK)
		o = json_object_new_string_len(sw_buf_str(&b), (int)b.len);
	va_end(ap);
	sw_buf_free(&b);
	return o;
}

json_object *
sw_jo(const char *key, ...)
{
	json_object *o = json_object_new_object(), *v;
	va_list ap;

	va_start(ap, key);
	while (key != NULL) {
		v = va_arg(ap, json_object *);
		if (v != NULL)
			json_object_object_add(o, key, v);
		key = va_arg(ap, const char *);
	}
	va_end(ap);
	return o;
}

const char *
sw_out_str(json_object *out, ...)
{
	const char *path, *v = NULL;
	va_list ap;

	va_start(ap, out);
	while (v == NULL && (path = va_arg(ap, const char *)) != NULL)
		v = sw_json_path_str(out, path);
	va_end(ap);
	return v;
}

json_object *
sw_out_array(json_object *out, ...)
{
	json_object *v = NULL;
	const char *path;
	va_list ap;

	va_start(ap, out);
	while (v == NULL && (path = va_arg(ap, const char *)) != NULL)
		if (!json_object_is_type(
			v = sw_json_path(out, path), json_type_array))
			v = NULL;
	va_end(ap);
	return v;
}

json_object *
sw_ja_n(json_object *const *values, size_t n)
{
	json_object *a =
	    json_object_new_array_ext(n > 0 && n < 1024 ? (int)n : 1);
	size_t i;

	for (i = 0; i < n; i++) {
		if (values[i] == NULL)
			sw_error("array builder: no value at position %zu of "
				 "%zu; kept as null",
			    i, n);
		json_object_array_add(a, values[i]);
	}
	return a;
}

json_object *
sw_json_path(json_object *o, const char *path)
{
	char key[128];
	const char *p = path;
	size_t n;
	char *end;
	long idx;

	while (o != NULL && *p != '\0') {
		if (*p == '.') {
			p++;
			continue;
		}
		if (*p == '[') {
			idx = strtol(p + 1, &end, 10);
			if (*end != ']' ||
			    !json_object_is_type(o, json_type_array) ||
			    idx < 0 ||
			    (size_t)idx >= json_object_array_length(o))
				return NULL;
			o = json_object_array_get_idx(o, (size_t)idx);
			p = end + 1;
			continue;
		}
		n = strcspn(p, ".[");
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, p, n);
		key[n] = '\0';
		o = sw_json_get(o, key);
		p += n;
	}
	return o;
}

const char *
sw_json_path_str(json_object *o, const char *path)
{
	o = sw_json_path(o, path);
	return o != NULL && json_object_is_type(o, json_type_string)
	    ? json_object_get_string(o)
	    : NULL;
}

int
sw_json_within(json_object *a, json_object *b)
{
	json_object *bv;
	size_t i, n;

	if (json_object_is_type(a, json_type_object)) {
		if (!json_object_is_type(b, json_type_object))
			return 0;
		json_object_object_foreach(
		    a, k, av) if (!json_object_object_get_ex(b, k, &bv) ||
		    !sw_json_within(av, bv)) return 0;
		return 1;
	}
	if (json_object_is_type(a, json_type_array)) {
		if (!json_object_is_type(b, json_type_array) ||
		    (n = json_object_array_length(a)) !=
			json_object_array_length(b))
			return 0;
		for (i = 0; i < n; i++)
			if (!sw_json_within(json_object_array_get_idx(a, i),
				json_object_array_get_idx(b, i)))
				return 0;
		return 1;
	}
	return json_object_equal(a, b);
}

const char *
sw_json_copy_str(json_object *o, const char *key, char *buf, size_t bufsz)
{
	const char *v = sw_json_get_str(o, key);

	if (v == NULL || (size_t)snprintf(buf, bufsz, "%s", v) >= bufsz)
		return NULL;
	return buf;
}
