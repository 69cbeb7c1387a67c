/*
 * jscan.h: a strict reader of the members of a JSON object's text, for a
 * caller that wants a few members of a document without building it (the
 * JSON-RPC envelope of an MCP tools/call).
 *
 * It accepts less than sw_json_parse does: ASCII only, no key written
 * with an escape, no "\u" escape past U+007F, numbers of at most
 * SW_JSCAN_NUMBER characters without an exponent, nesting at most
 * SW_JSCAN_DEPTH.  Everything it accepts, sw_json_parse accepts with the
 * same meaning; whatever it refuses, the caller parses as usual.  So a
 * caller with a quick way through this reader and the usual way through
 * the parser answers a document the same either way.
 */
#ifndef SW_JSCAN_H
#define SW_JSCAN_H

#include <stddef.h>
#include <string.h>

#define SW_JSCAN_DEPTH 30
#define SW_JSCAN_NUMBER 15

/* A value's text: a string from its opening to its closing quote.  An
 * object value has n 0 until it is skipped (sw_jscan_skip). */
struct sw_jval {
	const char *p;
	size_t n;
	/* 's' string, 'o' object, 'a' array, 'n' number, 'l' true,
	 * false or null */
	char type;
};

/* A reader of one object.  Each byte of the text is read once: an
 * object value is read in place, by a reader of its own (sw_jscan_into),
 * or skipped when asked for its extent (sw_jscan_skip) or when the next
 * member is, or read by the caller's parser (sw_jscan_took). */
struct sw_jscan {
	const char *s;
	size_t n, at;
	int depth; /* of the object read */
	int state; /* 0 before the first member, 1 after one, 2 done */
	int pending; /* the last value is an object not yet read */
	struct sw_jscan *outer; /* the reader this one's object is in */
};

/* Begin reading the object that is the whole of s[0..n) (white space
 * around it allowed).  0, or -1 when s does not open with an object. */
int sw_jscan_open(struct sw_jscan *sc, const char *s, size_t n);
/* Begin reading the object value outer's sw_jscan_next just returned;
 * outer goes on after this reader has returned its last member. */
int sw_jscan_into(struct sw_jscan *sc, struct sw_jscan *outer);
/* Skip the object value sw_jscan_next just returned; val->n gets its
 * length.  0, or -1 when the text is not what this reader accepts. */
int sw_jscan_skip(struct sw_jscan *sc, struct sw_jval *val);
/* The caller has read the object value sw_jscan_next just returned
 * itself, n bytes from val->p (a parser checked it): go on after it. */
void sw_jscan_took(struct sw_jscan *sc, struct sw_jval *val, size_t n);
/*
 * The next member: 1 with its key (the characters between its quotes)
 * and its value (checked whole, but for an object: see above); 0 after
 * the last (for a whole document, nothing but white space follows); -1
 * when the text is not what this reader accepts.
 */
int sw_jscan_next(
    struct sw_jscan *sc, struct sw_jval *key, struct sw_jval *val);

/* Is key (from sw_jscan_next) the string literal lit?  Its length is
 * known when compiled. */
#define SW_JKEY_IS(key, lit) \
	((key)->n == sizeof(lit) - 1 && \
	    memcmp((key)->p, lit, sizeof(lit) - 1) == 0)
/* Is v the string lit, written without escapes? */
int sw_jval_is(const struct sw_jval *v, const char *lit);
/* v, a string written without escapes, into buf (NUL-terminated): 0, or
 * -1 when it is not such a string or does not fit. */
int sw_jval_text(const struct sw_jval *v, char *buf, size_t sz);

#endif
