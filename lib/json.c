/*
 * json.c: json-c helpers (see json.h).  Parsing goes through a tokener
 * with a depth cap and strict mode so "{} trailing" and deep nesting are
 * refused as malformed rather than half accepted.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/limits.h"
#include "lib/log.h"

sw_err
sw_json_parse(const char *text, size_t len, json_object **out, char *why,
    size_t whysz)
{
	struct json_tokener *tok;
	json_object *o;
	enum json_tokener_error jerr;
	size_t used;

	*out = NULL;
	if (len > (size_t)INT32_MAX) {
		snprintf(why, whysz, "body too large");
		return SW_EBADJSON;
	}
	if ((tok = json_tokener_new_ex(SW_MAX_JSON_DEPTH)) == NULL)
		return SW_ENOMEM;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	used = json_tokener_get_parse_end(tok);
	if (jerr == json_tokener_continue) {
		snprintf(why, whysz, "unexpected end of JSON input");
		goto bad;
	}
	if (jerr != json_tokener_success) {
		snprintf(why, whysz, "%s at offset %zu",
		    json_tokener_error_desc(jerr), used);
		goto bad;
	}
	while (used < len && strchr(" \t\r\n", text[used]) != NULL)
		used++;
	if (used != len) {
		snprintf(why, whysz, "trailing data at offset %zu", used);
		goto bad;
	}
	json_tokener_free(tok);
	*out = o;
	return SW_OK;
bad:
	json_object_put(o);
	json_tokener_free(tok);
	return SW_EBADJSON;
}

const char *
sw_json_str(json_object *o)
{
	return json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
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

	return v != NULL && json_object_is_type(v, json_type_string) ?
	    json_object_get_string(v) : NULL;
}

int64_t
sw_json_get_int(json_object *o, const char *key, int64_t dflt)
{
	json_object *v = sw_json_get(o, key);

	return v != NULL && json_object_is_type(v, json_type_int) ?
	    json_object_get_int64(v) : dflt;
}

int
sw_json_get_bool(json_object *o, const char *key, int dflt)
{
	json_object *v = sw_json_get(o, key);

	return v != NULL && json_object_is_type(v, json_type_boolean) ?
	    json_object_get_boolean(v) : dflt;
}

void
sw_json_add_str(json_object *o, const char *key, const char *val)
{
	json_object_object_add(o, key,
	    val ? json_object_new_string(val) : NULL);
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
sw_ja_n(json_object *const *values, size_t n)
{
	json_object *a = json_object_new_array_ext(n > 0 && n < 1024 ? (int)n : 1);
	size_t i;

	for (i = 0; i < n; i++) {
		if (values[i] == NULL)
			sw_error("array builder: no value at position %zu of "
			    "%zu; kept as null", i, n);
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
			if (*end != ']' || !json_object_is_type(o,
			    json_type_array) || idx < 0 ||
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
	return o != NULL && json_object_is_type(o, json_type_string) ?
	    json_object_get_string(o) : NULL;
}
