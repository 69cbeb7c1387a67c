/* test-json.c: the request-document builders.  sw_ja keeps every value
 * it is given, in order; a NULL value is kept as JSON null instead of
 * ending the list early (a missing subnet must not shorten a subnet
 * list without a word).  sw_json_parse's message about a bad string
 * names its member path cut on a character, and the message itself is
 * valid UTF-8 however its buffer cuts it: it is sent back in JSON.
 * Plain ASCII text skips the walk over strings and is judged the same;
 * a frozen object (sw_json_freeze) prints the text it was frozen with
 * inside any document that holds it. */
#include <stdio.h>
#include <string.h>

#include "lib/json.h"
#include "t/tap.h"

int
main(void)
{
	json_object *a, *o;
	const char *missing = NULL;

	a = sw_ja(sw_js("subnet-a"), sw_js(missing), sw_js("subnet-c"));
	is_int((long long)json_object_array_length(a), 3,
	    "a NULL value does not end the list");
	ok(json_object_array_get_idx(a, 1) == NULL,
	    "it stays in its place as null");
	is_str(json_object_get_string(json_object_array_get_idx(a, 2)),
	    "subnet-c", "values after it are kept");
	is_str(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN),
	    "[\"subnet-a\",null,\"subnet-c\"]", "and the document says so");
	json_object_put(a);

	a = sw_ja(sw_ji(1));
	is_int((long long)json_object_array_length(a), 1, "one value");
	json_object_put(a);

	o = sw_jo("Name", sw_js("n"), "Optional", sw_js(missing), "List",
	    sw_ja(sw_js("x"), sw_js("y")), NULL);
	ok(sw_json_get(o, "Optional") == NULL &&
		!json_object_object_get_ex(o, "Optional", NULL),
	    "sw_jo leaves a NULL member out");
	is_int((long long)json_object_array_length(sw_json_get(o, "List")), 2,
	    "nested array kept whole");
	json_object_put(o);

	{
		/* A key of 120 ASCII bytes and two 4-byte characters, whose
		 * value is not UTF-8: the 127-byte path cut inside the
		 * second character must end before it. */
		char body[300], why[256], key[160];
		const char *bad;

		memset(key, '9', 120);
		memcpy(key + 120, "\xf2\x98\xa4\x98\xf2\x98\xa4\x98", 9);
		snprintf(
		    body, sizeof(body), "{\"%s\": {\"x\": \"\xdb\xd5\"}}", key);
		o = NULL;
		ok(sw_json_parse(body, strlen(body), &o, why, sizeof(why)) !=
			SW_OK,
		    "a string that is not UTF-8 is refused");
		bad = sw_text_bad(why, strlen(why));
		ok(bad == NULL,
		    "the message naming its long path is valid "
		    "UTF-8 (%s)",
		    bad ? bad : "ok");
		ok(strncmp(why, key, 124) == 0 && why[124] == ':',
		    "the path keeps the whole first character, not the cut "
		    "one");
		json_object_put(o);
	}
	{
		char why[160], text[512];
		size_t n;

		/* A bad string at the top has no member path. */
		ok(sw_json_parse("\"a\xaf\"", 4, &o, why, sizeof(why)) != SW_OK,
		    "a string that is not UTF-8 is refused");
		is_str(why, "a string is not valid UTF-8",
		    "the reason names no path when there is none");
		/* A long key of two-byte characters: the path is cut to
		 * its buffer, somewhere inside a character. */
		n = (size_t)snprintf(text, sizeof(text), "{\"");
		while (n < 300)
			n += (size_t)snprintf(
			    text + n, sizeof(text) - n, "\xc3\xa9");
		n += (size_t)snprintf(
		    text + n, sizeof(text) - n, "x\":\"\xff\"}");
		for (size_t cut = 0; cut < 2; cut++) {
			ok(sw_json_parse(text, n, &o, why, sizeof(why) - cut) !=
				SW_OK,
			    "a bad value is refused");
			ok(sw_text_bad(why, strlen(why)) == NULL,
			    "its reason is valid UTF-8 however the path is cut");
		}
	}
	{
		char why[160];
		const char *t;
		json_object *d, *env;

		/* Plain ASCII text takes the short way: still a whole
		 * document, still refused when malformed. */
		ok(sw_json_parse("{\"a\":[1,\"b\"]}", 13, &o, why,
		       sizeof(why)) == SW_OK &&
			json_object_is_type(o, json_type_object),
		    "plain ASCII text parses");
		json_object_put(o);
		ok(sw_json_parse("{\"a\":1} x", 9, &o, why, sizeof(why)) !=
			SW_OK,
		    "plain ASCII with trailing text is refused");
		/* An escape leaves the short way: \u0000 is still found. */
		ok(sw_json_parse("{\"a\":\"x\\u0000\"}", 15, &o, why,
		       sizeof(why)) != SW_OK,
		    "an escaped NUL is still refused");

		/* A frozen object prints its first text wherever it sits. */
		d = sw_jo("name", sw_js("n\"q"), "n", sw_ji(2), NULL);
		t = sw_json_freeze(d);
		is_str(t, "{\"name\":\"n\\\"q\",\"n\":2}",
		    "sw_json_freeze returns the compact text");
		env = sw_jo("doc", json_object_get(d), "text", sw_js(t), NULL);
		is_str(sw_json_str(env),
		    "{\"doc\":{\"name\":\"n\\\"q\","
		    "\"n\":2},\"text\":\"{\\\"name\\\":\\\"n\\\\\\\"q\\\","
		    "\\\"n\\\":2}\"}",
		    "a document holding it prints the "
		    "same characters, and the text escaped");
		ok(sw_json_get_int(d, "n", 0) == 2,
		    "its members still read as before");
		/* The text is kept, not made again: a change after the
		 * freeze is not printed (json.h says not to make one). */
		sw_json_add_int(d, "later", 1);
		is_str(sw_json_str(d), t,
		    "it prints the text it was frozen "
		    "with");
		json_object_put(env);
		json_object_put(d);
	}
	{
		/* One kept tokener across parses: a refused document (cut
		 * short, or inside an object) leaves nothing for the next. */
		struct json_tokener *tok = NULL;
		json_object *o2 = NULL;
		char why[128];

		ok(sw_json_parse_with(&tok, "{\"a\":{\"b\":", 10, &o2, why,
		       sizeof(why)) != SW_OK &&
			tok != NULL,
		    "a kept tokener refuses a document cut short");
		ok(sw_json_parse_with(
		       &tok, "{\"c\":2}", 7, &o2, why, sizeof(why)) == SW_OK &&
			sw_json_get_int(o2, "c", 0) == 2 &&
			sw_json_get(o2, "a") == NULL,
		    "and parses the next document alone");
		json_object_put(o2);
		ok(sw_json_parse_with(&tok, "[1,", 3, &o2, why, sizeof(why)) !=
			SW_OK,
		    "a second refusal");
		ok(sw_json_parse_with(&tok, "7", 1, &o2, why, sizeof(why)) ==
			    SW_OK &&
			json_object_get_int(o2) == 7,
		    "a number at the very end is whole with a kept tokener too");
		json_object_put(o2);
		sw_json_tokener_free(tok);
	}
	return tap_done();
}
