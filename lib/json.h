/*
 * json.h: small helpers around json-c.  Conventions (json-c's): object
 * arguments are borrowed; json_object_object_add steals the value it is
 * given; functions that return a json_object * return a new reference
 * the caller must json_object_put().
 */
#ifndef SW_JSON_H
#define SW_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <json-c/json.h>

#include "lib/err.h"

/*
 * Parse exactly len bytes as one JSON value, at most SW_MAX_JSON_DEPTH
 * deep.  Every key and string must be valid UTF-8 without NUL (a
 * "\u0000" would silently cut the string short in C).  On failure
 * returns SW_EBADJSON and writes a reason into why, naming the member
 * ("env.FOO: ...") but never quoting the bad bytes.  *out is a new
 * reference on success.
 */
sw_err sw_json_parse(
    const char *, size_t len, json_object **out, char *why, size_t whysz);
/*
 * The same with a tokener the caller keeps (*tok, made on first use and
 * reset for each parse; free it with sw_json_tokener_free): a worker
 * that parses every request does not make and free one each time.  One
 * tokener serves one thread.
 */
sw_err sw_json_parse_with(struct json_tokener **tok, const char *, size_t len,
    json_object **out, char *why, size_t whysz);
/*
 * Parse the one value at the start of text[0..len) -- what follows it
 * is the caller's -- at most depth deep, with the same checks of its
 * strings; *used gets its length.  For a document read in parts: a
 * value nested k deep in it, parsed at depth SW_MAX_JSON_DEPTH - k, is
 * refused where the whole document would be.  *tok keeps the depth it
 * was made with: keep one per depth.
 */
sw_err sw_json_parse_part(struct json_tokener **tok, int depth,
    const char *text, size_t len, size_t *used, json_object **out, char *why,
    size_t whysz);
void sw_json_tokener_free(struct json_tokener *tok);
/* NULL when s[0..len) is valid UTF-8 (no overlong forms, surrogates or
 * code points past U+10FFFF) and has no NUL; else why not. */
const char *sw_text_bad(const char *s, size_t len);
/* Each byte of s that is not part of valid UTF-8 becomes '?' (text
 * cut to fit a buffer may end inside a character). */
void sw_utf8_tidy(char *s);
/* A tidied copy of the string s (malloc'd, caller frees; NULL when out
 * of memory). */
char *sw_utf8_dup(const char *s);
/* Compact text without "\/" escapes; borrowed, valid until o changes. */
const char *sw_json_str(json_object *o);
const char *sw_json_pretty(json_object *o);
/*
 * Print o once (as sw_json_str) and keep that text as o's printed form:
 * a document that holds o prints it by copying the text, not by walking
 * o again.  o must not change afterwards (a change would not be
 * printed) and json_object_deep_copy refuses it.  Returns the text,
 * valid while o lives.
 */
const char *sw_json_freeze(json_object *o);
struct sw_buf;
/* s[0..len) as a JSON string (quoted and escaped as sw_json_str would
 * print it) at the end of b. */
sw_err sw_json_put_string(struct sw_buf *b, const char *s, size_t len);
/* The length of each byte's escape in a JSON string as json-c writes
 * it: 0 for a byte written as it is, 2 ("\\n" and the like) or 6
 * ("\\u00XX"). */
extern const unsigned char sw_json_escape_len[256];

/*
 * The first byte of s[0..end) a JSON string cannot hold as it is ('"',
 * '\\', a control character) or, with ascii, one past 0x7f; end when
 * none.  Eight bytes a step: (v - 1) & ~v marks (sets the high bit of)
 * a byte of v that is 0, (x - 0x20) & ~x one of x under 0x20, x itself
 * one past 0x7f.  The lowest mark is exact (a borrow only marks the
 * bytes after it): the first byte in memory on a little-endian machine;
 * elsewhere the loop after finds it.  Inline: the callers scan text
 * dense with quotes, a call for each would cost more than the scan.
 */
static inline const char *
sw_json_plain_end(const char *s, const char *end, int ascii)
{
	const uint64_t ones = 0x0101010101010101ULL,
		       highs = 0x8080808080808080ULL;
	const unsigned char *p = (const unsigned char *)s;
	uint64_t x, q, bs, m, high = ascii ? ~0ULL : 0;

	for (; end - (const char *)p >= 8; p += 8) {
		memcpy(&x, p, 8);
		q = x ^ (ones * '"');
		bs = x ^ (ones * '\\');
		m = (((x - ones * 0x20) & ~x) | ((q - ones) & ~q) |
			((bs - ones) & ~bs) | (x & high)) &
		    highs;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		if (m != 0)
			return (const char *)p + __builtin_ctzll(m) / 8;
#else
		if (m != 0)
			break;
#endif
	}
	while ((const char *)p < end && sw_json_escape_len[*p] == 0 &&
	    (*p < 0x80 || !ascii))
		p++;
	return (const char *)p;
}

/* Member lookups; NULL/default when absent or of another type. */
const char *sw_json_get_str(json_object *, const char *key);
int64_t sw_json_get_int(json_object *, const char *key, int64_t dflt);
int sw_json_get_bool(json_object *, const char *key, int dflt);
json_object *sw_json_get(json_object *, const char *key);

/* Add helpers: the value is copied (strings) or created. */
void sw_json_add_str(json_object *, const char *key, const char *val);
void sw_json_add_int(json_object *, const char *key, int64_t val);
void sw_json_add_bool(json_object *, const char *key, int val);

/*
 * Builders for request documents: sw_jo("Key", value, ..., NULL) makes
 * an object and sw_ja(value, ...) an array; both steal the values.  New
 * references.  In sw_jo a NULL value is an absent member (optional
 * fields).  sw_ja counts its arguments, so no value doubles as the end:
 * a NULL value stays in its place as JSON null and is logged, so a list
 * is never silently shorter than written (AWS and Kubernetes then refuse
 * the document instead of acting on part of it).
 */
json_object *sw_jo(const char *key, ...) __attribute__((sentinel));
#define sw_ja(...) \
	sw_ja_n((json_object *[]){ __VA_ARGS__ }, \
	    sizeof((json_object *[]){ __VA_ARGS__ }) / sizeof(json_object *))
json_object *sw_ja_n(json_object *const *values, size_t n);
/* The first string found at any of the NULL-ended paths (as
 * sw_json_path_str), e.g. the same member in two protocols' shapes. */
const char *sw_out_str(json_object *out, ...) __attribute__((sentinel));
/* As sw_out_str, for the first of the paths that is an array (borrowed). */
json_object *sw_out_array(json_object *out, ...) __attribute__((sentinel));
/* A string value; NULL gives NULL (an absent member in sw_jo). */
json_object *sw_js(const char *s);
/* A string value formatted to any length (no fixed buffer to cut);
 * NULL when memory runs out.  New reference. */
json_object *sw_jsf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define sw_ji(i) json_object_new_int64(i)
#define sw_jb(b) json_object_new_boolean(b)

/*
 * Look up a dotted path with optional [index] steps, e.g.
 * "cluster.certificateAuthority.data" or "vpcSet[0].vpcId".  Borrowed.
 */
json_object *sw_json_path(json_object *o, const char *path);
const char *sw_json_path_str(json_object *o, const char *path);
/*
 * The string member key of o copied into buf (a paging token that must
 * outlive o), or NULL when it is absent or does not fit.
 */
const char *sw_json_copy_str(
    json_object *o, const char *key, char *buf, size_t bufsz);
/*
 * Does b say everything a says: every member of an object of a present
 * and the same in b (b may have more), arrays of the same length
 * element by element, other values equal?
 */
int sw_json_within(json_object *a, json_object *b);

#endif
