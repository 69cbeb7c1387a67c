/*
 * fleetdoc.c: YAML to JSON and back for the fleet document (libyaml),
 * see fleetdoc.h.  YAML's core schema decides a plain scalar's type;
 * mappings become objects and sequences arrays; aliases are resolved
 * by the loader.
 */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "cli/fleetdoc.h"
#include "lib/alloc.h"
#include "lib/buf.h"

#define MAX_DEPTH 64

static int
matches(const char *re, const char *s)
{
	regex_t rx;
	int ok;

	if (regcomp(&rx, re, REG_EXTENDED | REG_NOSUB) != 0)
		return 0;
	ok = regexec(&rx, s, 0, NULL, 0) == 0;
	regfree(&rx);
	return ok;
}

#define RE_INT "^[-+]?[0-9]+$"
#define RE_NUM "^[-+]?([0-9]+\\.[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?$"

/* A plain scalar as YAML's core schema reads it. */
static json_object *
plain(const char *s)
{
	if (strcmp(s, "true") == 0 || strcmp(s, "True") == 0 ||
	    strcmp(s, "TRUE") == 0)
		return json_object_new_boolean(1);
	if (strcmp(s, "false") == 0 || strcmp(s, "False") == 0 ||
	    strcmp(s, "FALSE") == 0)
		return json_object_new_boolean(0);
	if (s[0] == '\0' || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 ||
	    strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0)
		return NULL;
	if (matches(RE_INT, s)) {
		errno = 0;
		long long v = strtoll(s, NULL, 10);

		if (errno == 0)
			return json_object_new_int64(v);
	}
	if (matches(RE_NUM, s))
		return json_object_new_double_s(strtod(s, NULL), s);
	return json_object_new_string(s);
}

static json_object *
node_json(yaml_document_t *d, yaml_node_t *n, int depth, int *bad)
{
	json_object *o;
	yaml_node_item_t *it;
	yaml_node_pair_t *p;

	if (n == NULL || depth > MAX_DEPTH) {
		*bad = 1;
		return NULL;
	}
	switch (n->type) {
	case YAML_SCALAR_NODE:
		if (n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
			return plain((const char *)n->data.scalar.value);
		return json_object_new_string_len(
		    (const char *)n->data.scalar.value,
		    (int)n->data.scalar.length);
	case YAML_SEQUENCE_NODE:
		o = json_object_new_array();
		for (it = n->data.sequence.items.start;
		     it < n->data.sequence.items.top; it++)
			json_object_array_add(o,
			    node_json(d, yaml_document_get_node(d, *it),
				depth + 1, bad));
		return o;
	case YAML_MAPPING_NODE:
		o = json_object_new_object();
		for (p = n->data.mapping.pairs.start;
		     p < n->data.mapping.pairs.top; p++) {
			yaml_node_t *k = yaml_document_get_node(d, p->key);

			if (k == NULL || k->type != YAML_SCALAR_NODE) {
				*bad = 1;
				continue;
			}
			json_object_object_add(o,
			    (const char *)k->data.scalar.value,
			    node_json(d, yaml_document_get_node(d, p->value),
				depth + 1, bad));
		}
		return o;
	default:
		*bad = 1;
		return NULL;
	}
}

json_object *
sw_yaml_read(const char *path, char *err, size_t errsz)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	json_object *o = NULL;
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	int bad = 0;

	if (f == NULL) {
		sw_fmt_text(err, errsz, "%s: %s", path, strerror(errno));
		return NULL;
	}
	yaml_parser_initialize(&parser);
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &doc)) {
		sw_fmt_text(err, errsz, "%s:%zu:%zu: %s", path,
		    parser.problem_mark.line + 1,
		    parser.problem_mark.column + 1,
		    parser.problem ? parser.problem : "not YAML");
	} else {
		o = node_json(&doc, yaml_document_get_root_node(&doc), 0, &bad);
		if (o == NULL || bad) {
			sw_fmt_text(err, errsz, "%s: %s", path,
			    o == NULL ? "empty document"
				      : "a key that is not a scalar");
			json_object_put(o);
			o = NULL;
		}
		yaml_document_delete(&doc);
	}
	yaml_parser_delete(&parser);
	if (f != stdin)
		fclose(f);
	return o;
}

/* ---- writing --------------------------------------------------------- */

static int
scalar(yaml_emitter_t *em, const char *s, int quote)
{
	yaml_event_t ev;
	char *copy = sw_strdup(s); /* libyaml's value is not const */
	int ok;

	ok = yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)copy,
	    (int)strlen(copy), !quote, 1,
	    quote ? YAML_DOUBLE_QUOTED_SCALAR_STYLE : YAML_ANY_SCALAR_STYLE);
	free(copy);
	return ok && yaml_emitter_emit(em, &ev) ? 0 : -1;
}

/* Would s, written plain, read back as something but this string? */
static int
needs_quotes(const char *s)
{
	json_object *back = plain(s);
	int q = back == NULL || !json_object_is_type(back, json_type_string);

	json_object_put(back);
	return q;
}

static int
emit(yaml_emitter_t *em, json_object *o)
{
	yaml_event_t ev;
	size_t i;

	switch (json_object_get_type(o)) {
	case json_type_null:
		return scalar(em, "null", 0);
	case json_type_string:
		return scalar(em, json_object_get_string(o),
		    needs_quotes(json_object_get_string(o)));
	case json_type_array:
		yaml_sequence_start_event_initialize(
		    &ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
		if (!yaml_emitter_emit(em, &ev))
			return -1;
		for (i = 0; i < json_object_array_length(o); i++)
			if (emit(em, json_object_array_get_idx(o, i)) != 0)
				return -1;
		yaml_sequence_end_event_initialize(&ev);
		return yaml_emitter_emit(em, &ev) ? 0 : -1;
	case json_type_object:
		yaml_mapping_start_event_initialize(
		    &ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
		if (!yaml_emitter_emit(em, &ev))
			return -1;
		{
			json_object_object_foreach(o, k, v)
			{
				if (scalar(em, k, needs_quotes(k)) != 0 ||
				    emit(em, v) != 0)
					return -1;
			}
		}
		yaml_mapping_end_event_initialize(&ev);
		return yaml_emitter_emit(em, &ev) ? 0 : -1;
	default: /* boolean, int, double: their JSON text */
		return scalar(em,
		    json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
		    0);
	}
}

int
sw_yaml_write(FILE *f, json_object *o)
{
	yaml_emitter_t em;
	yaml_event_t ev;
	int rc = -1;

	yaml_emitter_initialize(&em);
	yaml_emitter_set_output_file(&em, f);
	yaml_emitter_set_unicode(&em, 1);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	if (!yaml_emitter_emit(&em, &ev))
		goto out;
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
	if (!yaml_emitter_emit(&em, &ev) || emit(&em, o) != 0)
		goto out;
	yaml_document_end_event_initialize(&ev, 1);
	if (!yaml_emitter_emit(&em, &ev))
		goto out;
	yaml_stream_end_event_initialize(&ev);
	rc = yaml_emitter_emit(&em, &ev) && yaml_emitter_flush(&em) ? 0 : -1;
out:
	yaml_emitter_delete(&em);
	return rc;
}
