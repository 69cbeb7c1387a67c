/* test-jscan.c: the members reader (lib/jscan.h) against the parser.
 * It finds members and reads each byte once; what it accepts the parser
 * accepts, and what it refuses (past ASCII, escaped keys, deep nesting,
 * long numbers, not JSON) it leaves to the parser.  A part of a document
 * parsed where it lies (sw_json_parse_part) is refused at the depth the
 * whole would be.  sw_json_put_string writes the characters json-c
 * prints, for every byte. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/jscan.h"
#include "lib/json.h"
#include "lib/limits.h"
#include "t/tap.h"

/* Walk every member of the object text (and of its object members,
 * read in place): 1 when the reader accepts it all, 0 when it refuses. */
static int
walk(struct sw_jscan *sc, int *members)
{
	struct sw_jscan in;
	struct sw_jval k, v;
	int r;

	while ((r = sw_jscan_next(sc, &k, &v)) == 1) {
		(*members)++;
		if (v.type == 'o' &&
		    (sw_jscan_into(&in, sc) != 0 || !walk(&in, members)))
			return 0;
	}
	return r == 0;
}

static int
accepts(const char *text)
{
	struct sw_jscan sc;
	int n = 0;

	return sw_jscan_open(&sc, text, strlen(text)) == 0 && walk(&sc, &n);
}

static int
parses(const char *text)
{
	json_object *o = NULL;
	char why[160];
	sw_err e = sw_json_parse(text, strlen(text), &o, why, sizeof(why));

	json_object_put(o);
	return e == SW_OK;
}

/* An object nested levels deep: {"a":{"a":...{}...}}. */
static char *
nested(int levels)
{
	char *s = malloc((size_t)levels * 6 + 1), *p = s;
	int i;

	for (i = 0; i < levels - 1; i++)
		p += sprintf(p, "{\"a\":");
	*p++ = '{';
	for (i = 0; i < levels; i++)
		*p++ = '}';
	*p = '\0';
	return s;
}

int
main(void)
{
	static const char *const good[] = { "{}", " { } ",
		"{\"a\":1,\"b\":\"x\",\"c\":[1,2.5,{\"d\":null}],\"e\":true}",
		"{\"s\":\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u0041\"}",
		"{\"n\":-0.5,\"m\":0,\"o\":{}}", "{\"a\":[]}" };
	static const char *const refused_bad[] = { "", "{", "{\"a\"}",
		"{\"a\":}", "{\"a\":1,}", "{\"a\":1 \"b\":2}", "{a:1}",
		"{\"a\":01}", "{\"a\":-}", "{\"a\":tru}", "{\"a\":\"\\x\"}",
		"{\"a\":\"\\u00g0\"}", "{} x", "{\"a\":[1,]}" };
	static const char *const refused_left[] = {
		"{\"a\":\"\xc3\xa9\"}", /* past ASCII */
		"{\"\\u0061\":1}", /* an escaped key */
		"{\"a\":{\"\\u0062\":1}}",
		"{\"a\":\"\\u00e9\"}",
		"{\"a\":\"\\u0000\"}",
		"{\"a\":1e5}",
		"{\"a\":1234567890123456}", /* 16 characters */
		"[]", /* not an object */
		"{\"a\":1.}", /* the parser takes these two */
		"{\"a\":\"\x01\"}",
	};
	struct sw_jscan top, params;
	struct sw_jval k, v;
	json_object *o = NULL, *whole = NULL;
	struct json_tokener *tok = NULL;
	struct sw_buf b;
	char why[160], text[64], *deep;
	size_t i, used;
	int n, levels, all;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ok(accepts(good[i]) && parses(good[i]), "reads %s", good[i]);
	for (i = 0; i < sizeof(refused_bad) / sizeof(refused_bad[0]); i++)
		ok(!accepts(refused_bad[i]) && !parses(refused_bad[i]),
		    "refuses, as the parser does, %s", refused_bad[i]);
	for (i = 0; i < sizeof(refused_left) / sizeof(refused_left[0]); i++)
		ok(!accepts(refused_left[i]), "leaves to the parser %s",
		    refused_left[i]);

	/* Nesting: refused past SW_JSCAN_DEPTH, read up to it. */
	deep = nested(SW_JSCAN_DEPTH);
	ok(accepts(deep) && parses(deep), "reads %d levels", SW_JSCAN_DEPTH);
	free(deep);
	deep = nested(SW_JSCAN_DEPTH + 1);
	ok(!accepts(deep) && parses(deep), "leaves %d levels to the parser",
	    SW_JSCAN_DEPTH + 1);
	free(deep);

	/* Members and their values' text; an object value read in place. */
	{
		const char *doc = "{\"id\":7,\"params\":{\"name\":\"x\","
				  "\"arguments\":{\"k\":[1,{\"z\":2}]},"
				  "\"_meta\":{\"v\":\"1\"}},\"tail\":true}";

		ok(sw_jscan_open(&top, doc, strlen(doc)) == 0 &&
			sw_jscan_next(&top, &k, &v) == 1 &&
			SW_JKEY_IS(&k, "id") && v.type == 'n' && v.n == 1 &&
			v.p[0] == '7',
		    "the first member: its key and the number's text");
		ok(sw_jscan_next(&top, &k, &v) == 1 &&
			SW_JKEY_IS(&k, "params") && v.type == 'o' &&
			sw_jscan_into(&params, &top) == 0,
		    "an object member, read in place");
		ok(sw_jscan_next(&params, &k, &v) == 1 && sw_jval_is(&v, "x") &&
			sw_jval_text(&v, text, sizeof(text)) == 0 &&
			strcmp(text, "x") == 0,
		    "a string member's characters");
		ok(sw_jscan_next(&params, &k, &v) == 1 &&
			SW_JKEY_IS(&k, "arguments") &&
			sw_json_parse_part(&tok, SW_MAX_JSON_DEPTH - 2, v.p,
			    strlen(v.p), &used, &o, why,
			    sizeof(why)) == SW_OK &&
			used == strlen("{\"k\":[1,{\"z\":2}]}"),
		    "an object member parsed where it lies, to its end");
		sw_jscan_took(&params, &v, used);
		is_str(sw_json_str(o), "{\"k\":[1,{\"z\":2}]}",
		    "the part is the object alone");
		json_object_put(o);
		o = NULL;
		n = 0;
		ok(sw_jscan_next(&params, &k, &v) == 1 &&
			SW_JKEY_IS(&k, "_meta") &&
			sw_jscan_skip(&params, &v) == 0 &&
			v.n == strlen("{\"v\":\"1\"}") &&
			sw_jscan_next(&params, &k, &v) == 0,
		    "an object member skipped, with its extent; then the end");
		ok(sw_jscan_next(&top, &k, &v) == 1 && SW_JKEY_IS(&k, "tail") &&
			v.type == 'l' && sw_jscan_next(&top, &k, &v) == 0,
		    "the outer reader goes on after the inner one's end");
		(void)n;
	}

	/* A part at depth SW_MAX_JSON_DEPTH - k is refused where the whole
	 * document, with the part k deep in it, is. */
	all = 1;
	for (levels = SW_MAX_JSON_DEPTH - 4; levels <= SW_MAX_JSON_DEPTH + 2;
	     levels++) {
		char *doc = nested(levels), *part = doc + 2 * 5;
		int w, p;

		w = sw_json_parse(doc, strlen(doc), &whole, why, sizeof(why)) ==
		    SW_OK;
		json_object_put(whole);
		whole = NULL;
		p = sw_json_parse_part(&tok, SW_MAX_JSON_DEPTH - 2, part,
			strlen(part), &used, &o, why, sizeof(why)) == SW_OK;
		json_object_put(o);
		o = NULL;
		if (w != p) {
			diag("%d levels: the whole %s, the part %s", levels,
			    w ? "parses" : "is refused",
			    p ? "parses" : "is refused");
			all = 0;
		}
		free(doc);
	}
	ok(all, "a part 2 deep is refused exactly where its document is");
	ok(sw_json_parse_part(&tok, SW_MAX_JSON_DEPTH - 2, "{\"a\":\"\xff\"}",
	       9, &used, &o, why, sizeof(why)) != SW_OK &&
		strstr(why, "UTF-8") != NULL,
	    "a part's strings are checked as a document's (%s)", why);
	sw_json_tokener_free(tok);

	/* Every byte 1-255 alone and among others: the escapes json-c
	 * prints. */
	all = 1;
	sw_buf_init(&b, 0);
	for (i = 1; i < 256; i++) {
		char s[40];
		json_object *js;

		snprintf(
		    s, sizeof(s), "ab%ccd efgh ijkl %c mn\"\\", (int)i, (int)i);
		js = json_object_new_string(s);
		sw_buf_reset(&b);
		if (sw_json_put_string(&b, s, strlen(s)) != SW_OK ||
		    strcmp(sw_buf_str(&b), sw_json_str(js)) != 0) {
			diag("byte %zu: %s against %s", i, sw_buf_str(&b),
			    sw_json_str(js));
			all = 0;
		}
		json_object_put(js);
	}
	ok(all, "each byte is written as json-c prints it");
	/* A byte to escape at each place of two words, among neighbours
	 * that borrow ('!' is 0x20 + 1) or carry the high bit. */
	all = 1;
	for (i = 0; i < 20; i++) {
		static const char marks[] = { '\x01', '\x1f', '"', '\\' };
		static const char fills[] = { '!', 'a', '\xc3', '#', ']' };
		char s[24];
		size_t m, f, j;
		json_object *js;

		for (m = 0; m < sizeof(marks); m++)
			for (f = 0; f < sizeof(fills); f++) {
				for (j = 0; j < 20; j++)
					s[j] = fills[f];
				s[i] = marks[m];
				s[20] = '\0';
				js = json_object_new_string(s);
				sw_buf_reset(&b);
				if (sw_json_put_string(&b, s, 20) != SW_OK ||
				    strcmp(sw_buf_str(&b), sw_json_str(js)) !=
					0) {
					diag("mark %zu at %zu among %zu: %s", m,
					    i, f, sw_buf_str(&b));
					all = 0;
				}
				json_object_put(js);
			}
	}
	ok(all, "an escape at every place of a word is found there");
	all = 1;
	for (i = 0; i < 20; i++) {
		/* {"k":"aaaa\naaaa"}: the reader's string ends where it does */
		char doc[64];
		struct sw_jscan sc;

		snprintf(doc, sizeof(doc), "{\"k\":\"%.*s\\n%.*s\"}", (int)i,
		    "!!!!!!!!!!!!!!!!!!!!", (int)(19 - i),
		    "!!!!!!!!!!!!!!!!!!!!");
		if (sw_jscan_open(&sc, doc, strlen(doc)) != 0 ||
		    sw_jscan_next(&sc, &k, &v) != 1 || v.n != 23 ||
		    sw_jscan_next(&sc, &k, &v) != 0) {
			diag("an escape at %zu: %s", i, doc);
			all = 0;
		}
	}
	ok(all, "the reader finds a string's escape at every place");
	{
		/* Long text, all escapes: the buffer grows as it goes. */
		char *big = malloc(5000);
		json_object *js;

		for (i = 0; i < 4999; i++)
			big[i] = i % 3 == 0 ? '\x01' : (i % 3 == 1 ? '"' : 'x');
		big[4999] = '\0';
		js = json_object_new_string(big);
		sw_buf_reset(&b);
		ok(sw_json_put_string(&b, big, strlen(big)) == SW_OK &&
			strcmp(sw_buf_str(&b), sw_json_str(js)) == 0 &&
			b.len == strlen(sw_json_str(js)),
		    "5,000 bytes, two in three escaped");
		json_object_put(js);
		free(big);
	}
	{
		struct sw_buf small;

		sw_buf_init(&small, 16);
		ok(sw_json_put_string(&small, "\"\"\"\"\"\"\"\"\"\"", 10) ==
			    SW_ETOOBIG &&
			strlen(sw_buf_str(&small)) == small.len,
		    "past the buffer's cap: SW_ETOOBIG, the text still ends");
		sw_buf_free(&small);
	}
	sw_buf_free(&b);
	return tap_done();
}
