/*
 * valid.c: the validator behind every request (see valid.h).  Patterns
 * are compiled once and cached by address; every rule that fails adds
 * an sw_ferr naming the field and the rule, so a client learns all that
 * is wrong in one round trip.
 */
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/valid.h"

#define PATTERN_CACHE 128

static struct {
	const char *src;
	regex_t re;
	int ok;
} pcache[PATTERN_CACHE];
static int pcache_n;

static const char *const type_names[SW_T__MAX] = { "string", "integer",
	"number", "boolean", "object", "array", "object", "any" };

void
sw_ferr_add(struct sw_ferrs *errs, const char *field, const char *rule,
    const char *fmt, ...)
{
	struct sw_ferr *e;
	va_list ap;

	if (errs->n >= SW_MAX_FIELD_ERRORS)
		return;
	e = &errs->e[errs->n++];
	/* What the client reads: a path too long is cut visibly. */
	sw_fmt_text(e->field, sizeof(e->field), "%s", field);
	sw_fmt_text(e->rule, sizeof(e->rule), "%s", rule);
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
}

static const regex_t *
pattern_get(const char *src)
{
	char anchored[512];
	int i;

	for (i = 0; i < pcache_n; i++)
		if (pcache[i].src == src)
			return pcache[i].ok ? &pcache[i].re : NULL;
	if (pcache_n == PATTERN_CACHE)
		return NULL;
	pcache[pcache_n].src = src;
	pcache[pcache_n].ok =
	    sw_fmt(anchored, sizeof(anchored), "^(%s)$", src) == SW_OK &&
	    regcomp(&pcache[pcache_n].re, anchored, REG_EXTENDED | REG_NOSUB) ==
		0;
	pcache_n++;
	return pcache[pcache_n - 1].ok ? &pcache[pcache_n - 1].re : NULL;
}

void
sw_valid_cleanup(void)
{
	int i;

	for (i = 0; i < pcache_n; i++)
		if (pcache[i].ok)
			regfree(&pcache[i].re);
	pcache_n = 0;
}

static void
join_path(char *dst, size_t sz, const char *parent, const char *name)
{
	/* A path names a field for the client: cut visibly if long. */
	if (parent == NULL || parent[0] == '\0')
		sw_fmt_text(dst, sz, "%s", name);
	else
		sw_fmt_text(dst, sz, "%s.%s", parent, name);
}

static int
type_matches(enum sw_ftype t, json_object *v)
{
	switch (t) {
	case SW_T_STRING:
		return json_object_is_type(v, json_type_string);
	case SW_T_INT:
		return json_object_is_type(v, json_type_int);
	case SW_T_NUMBER:
		return json_object_is_type(v, json_type_int) ||
		    json_object_is_type(v, json_type_double);
	case SW_T_BOOL:
		return json_object_is_type(v, json_type_boolean);
	case SW_T_OBJECT:
	case SW_T_MAP:
		return json_object_is_type(v, json_type_object);
	case SW_T_ARRAY:
		return json_object_is_type(v, json_type_array);
	case SW_T_ANY:
		return 1;
	default:
		return 0;
	}
}

static void validate_object(json_object *, const struct sw_field *, unsigned,
    const char *, struct sw_ferrs *, int);

static const struct sw_pattern_words *words_table;

void
sw_valid_words(const struct sw_pattern_words *table)
{
	words_table = table;
}

/* The words of pattern, or NULL when the table has none. */
static const char *
pattern_words(const char *pattern)
{
	const struct sw_pattern_words *w;

	for (w = words_table; w != NULL && w->pattern != NULL; w++)
		if (strcmp(w->pattern, pattern) == 0)
			return w->words;
	return NULL;
}

/* answer: the value is one Slipway sends (sw_validate_answer), bounded
 * only where its row says so. */
static void
validate_string(const struct sw_field *f, json_object *v, const char *path,
    struct sw_ferrs *errs, int answer)
{
	const char *s = json_object_get_string(v);
	size_t len = (size_t)json_object_get_string_len(v);
	const regex_t *re;
	const char *words;
	long long max = f->max ? f->max : answer ? LLONG_MAX : SW_MAX_STRING;
	int i;

	if (strlen(s) != len) {
		sw_ferr_add(errs, path, "type", "must not contain NUL bytes");
		return;
	}
	if ((long long)len < f->min) {
		sw_ferr_add(errs, path, "minLength",
		    "must be at least %lld characters", f->min);
		return;
	}
	if ((long long)len > max) {
		sw_ferr_add(errs, path, "maxLength",
		    "must be at most %lld characters", max);
		return;
	}
	if (f->enumv != NULL) {
		for (i = 0; f->enumv[i] != NULL; i++)
			if (strcmp(f->enumv[i], s) == 0)
				return;
		{
			char list[160] = "";
			size_t off = 0;

			for (i = 0; f->enumv[i] != NULL && off < sizeof(list);
			     i++) {
				int n = snprintf(list + off, sizeof(list) - off,
				    "%s%s", i ? ", " : "", f->enumv[i]);
				if (n < 0)
					break;
				off += (size_t)n;
			}
			sw_ferr_add(
			    errs, path, "enum", "must be one of: %s", list);
		}
		return;
	}
	if (f->pattern != NULL) {
		if ((re = pattern_get(f->pattern)) == NULL) {
			sw_ferr_add(errs, path, "pattern",
			    "cannot be checked (bad pattern in table)");
			return;
		}
		if (regexec(re, s, 0, NULL, 0) == 0)
			return;
		/* in words where the table has them */
		if ((words = pattern_words(f->pattern)) != NULL)
			sw_ferr_add(errs, path, "pattern", "must be %s", words);
		else
			sw_ferr_add(
			    errs, path, "pattern", "must match %s", f->pattern);
	}
}

static void
validate_value(const struct sw_field *f, json_object *v, const char *path,
    struct sw_ferrs *errs, int answer)
{
	char sub[160];
	size_t i, n;

	if (v == NULL) {
		if ((f->flags & SW_F_NULLABLE) || f->type == SW_T_ANY)
			return;
		sw_ferr_add(errs, path, "type", "must be %s, not null",
		    type_names[f->type]);
		return;
	}
	if (!type_matches(f->type, v)) {
		sw_ferr_add(
		    errs, path, "type", "must be %s", type_names[f->type]);
		return;
	}
	switch (f->type) {
	case SW_T_STRING:
		validate_string(f, v, path, errs, answer);
		break;
	case SW_T_INT: {
		int64_t x = json_object_get_int64(v);

		if ((f->min || f->max) && x < f->min)
			sw_ferr_add(errs, path, "minimum",
			    "must be at least %lld", f->min);
		else if ((f->min || f->max) && x > f->max)
			sw_ferr_add(errs, path, "maximum",
			    "must be at most %lld", f->max);
		break;
	}
	case SW_T_NUMBER: {
		double x = json_object_get_double(v);

		if ((f->min || f->max) && x < (double)f->min)
			sw_ferr_add(errs, path, "minimum",
			    "must be at least %lld", f->min);
		else if ((f->min || f->max) && x > (double)f->max)
			sw_ferr_add(errs, path, "maximum",
			    "must be at most %lld", f->max);
		break;
	}
	case SW_T_BOOL:
		break;
	case SW_T_OBJECT:
		if (f->fields != NULL)
			validate_object(v, f->fields, 0, path, errs, answer);
		break;
	case SW_T_MAP: {
		long long cnt = 0,
			  max = f->max ? f->max
		    : answer           ? LLONG_MAX
				       : SW_MAX_ARRAY;

		json_object_object_foreach(v, k, mv)
		{
			cnt++;
			sw_fmt_text(sub, sizeof(sub), "%s.%s", path, k);
			if (!answer && (strlen(k) == 0 || strlen(k) > 128))
				sw_ferr_add(errs, sub, "maxLength",
				    "keys must be 1 to 128 characters");
			else if (mv == NULL ||
			    !json_object_is_type(mv, json_type_string))
				sw_ferr_add(
				    errs, sub, "type", "must be string");
			else if (!answer &&
			    json_object_get_string_len(mv) > 256)
				sw_ferr_add(errs, sub, "maxLength",
				    "must be at most 256 characters");
		}
		if (cnt > max)
			sw_ferr_add(errs, path, "maxProperties",
			    "must have at most %lld entries", max);
		break;
	}
	case SW_T_ARRAY: {
		long long max = f->max ? f->max
		    : answer           ? LLONG_MAX
				       : SW_MAX_ARRAY;

		n = json_object_array_length(v);
		if ((long long)n < f->min) {
			sw_ferr_add(errs, path, "minItems",
			    "must have at least %lld items", f->min);
			break;
		}
		if ((long long)n > max) {
			sw_ferr_add(errs, path, "maxItems",
			    "must have at most %lld items", max);
			break;
		}
		if (f->items == NULL)
			break;
		for (i = 0; i < n; i++) {
			sw_fmt_text(sub, sizeof(sub), "%s[%zu]", path, i);
			validate_value(f->items,
			    json_object_array_get_idx(v, i), sub, errs, answer);
		}
		break;
	}
	default:
		break;
	}
}

/* Whether f, present in obj, goes with its sibling's value there; else
 * an error naming the values it goes with. */
static void
check_only(json_object *obj, const struct sw_field *fields,
    const struct sw_field *f, const char *path, struct sw_ferrs *errs)
{
	const struct sw_field *d;
	const char *val = NULL;
	char list[120];
	size_t i, off = 0;
	json_object *v = NULL;

	for (d = fields; d->name != NULL; d++)
		if (strcmp(d->name, f->only[0]) == 0)
			break;
	if (!json_object_object_get_ex(obj, f->only[0], &v)) {
		if (d->name != NULL && d->enumv != NULL)
			val = d->enumv[0];
	} else if (json_object_is_type(v, json_type_string))
		val = json_object_get_string(v);
	for (i = 1; f->only[i] != NULL; i++)
		if (val != NULL && strcmp(val, f->only[i]) == 0)
			return;
	list[0] = '\0';
	for (i = 1; f->only[i] != NULL && off < sizeof(list); i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
		    i == 1                       ? ""
			: f->only[i + 1] == NULL ? " or "
						 : ", ",
		    f->only[i]);
	sw_ferr_add(errs, path, f->only[0], "only for %s %s", f->only[0], list);
}

/* An absent member takes the row's default, unless it is refused
 * beside a sibling that is there. */
static void
apply_default(json_object *obj, const struct sw_field *f, struct sw_ferrs *errs)
{
	json_object *v;

	if (f->dflt == NULL || f->only != NULL ||
	    (f->excludes != NULL &&
		json_object_object_get_ex(obj, f->excludes, NULL)))
		return;
	if ((v = sw_field_from_text(f, f->dflt, errs)) != NULL)
		json_object_object_add(obj, f->name, v);
}

static void
validate_object(json_object *obj, const struct sw_field *fields, unsigned mask,
    const char *parent, struct sw_ferrs *errs, int answer)
{
	const struct sw_field *f;
	char path[160];
	json_object *v;

	json_object_object_foreach(obj, key, val)
	{
		(void)val;
		for (f = fields; f->name != NULL; f++)
			if ((mask == 0 || (f->flags & mask)) &&
			    strcmp(f->name, key) == 0)
				break;
		if (f->name == NULL) {
			join_path(path, sizeof(path), parent, key);
			sw_ferr_add(
			    errs, path, "unknown", "is not a known field");
		}
	}
	for (f = fields; f->name != NULL; f++) {
		if (mask != 0 && !(f->flags & mask))
			continue;
		join_path(path, sizeof(path), parent, f->name);
		if (!json_object_object_get_ex(obj, f->name, &v)) {
			if (f->flags & SW_F_REQUIRED)
				sw_ferr_add(
				    errs, path, "required", "is required");
			else if (!answer)
				apply_default(obj, f, errs);
			continue;
		}
		validate_value(f, v, path, errs, answer);
		if (f->only != NULL)
			check_only(obj, fields, f, path, errs);
		if (f->excludes != NULL &&
		    json_object_object_get_ex(obj, f->excludes, NULL))
			sw_ferr_add(errs, path, "oneOf",
			    "give %s or %s, not "
			    "both",
			    f->name, f->excludes);
	}
}

sw_err
sw_validate(json_object *obj, const struct sw_field *fields, unsigned mask,
    struct sw_ferrs *errs)
{
	int before = errs->n;

	if (obj == NULL || !json_object_is_type(obj, json_type_object)) {
		sw_ferr_add(errs, "", "type", "body must be a JSON object");
		return SW_EINVAL;
	}
	if (fields != NULL)
		validate_object(obj, fields, mask, "", errs, 0);
	else if (json_object_object_length(obj) > 0) {
		json_object_object_foreach(obj, key, val)
		{
			(void)val;
			sw_ferr_add(
			    errs, key, "unknown", "is not a known field");
		}
	}
	return errs->n > before ? SW_EINVAL : SW_OK;
}

sw_err
sw_validate_answer(
    json_object *obj, const struct sw_field *fields, struct sw_ferrs *errs)
{
	int before = errs->n;

	if (obj == NULL || !json_object_is_type(obj, json_type_object))
		sw_ferr_add(errs, "", "type", "must be a JSON object");
	else
		validate_object(obj, fields, 0, "", errs, 1);
	return errs->n > before ? SW_EINVAL : SW_OK;
}

json_object *
sw_field_from_text(
    const struct sw_field *f, const char *text, struct sw_ferrs *errs)
{
	char *end;
	long long x;
	double d;

	switch (f->type) {
	case SW_T_INT:
		errno = 0;
		x = strtoll(text, &end, 10);
		if (errno != 0 || end == text || *end != '\0') {
			sw_ferr_add(errs, f->name, "type", "must be integer");
			return NULL;
		}
		return json_object_new_int64(x);
	case SW_T_NUMBER:
		errno = 0;
		d = strtod(text, &end);
		if (errno != 0 || end == text || *end != '\0') {
			sw_ferr_add(errs, f->name, "type", "must be number");
			return NULL;
		}
		return json_object_new_double(d);
	case SW_T_BOOL:
		if (strcmp(text, "true") == 0 || strcmp(text, "1") == 0)
			return json_object_new_boolean(1);
		if (strcmp(text, "false") == 0 || strcmp(text, "0") == 0)
			return json_object_new_boolean(0);
		sw_ferr_add(
		    errs, f->name, "type", "must be boolean (true or false)");
		return NULL;
	default:
		return json_object_new_string(text);
	}
}

static json_object *fields_schema(const struct sw_field *, unsigned, int);

static json_object *
field_schema(const struct sw_field *f, int answer)
{
	json_object *s, *en;
	char pat[512];
	int i;

	s = json_object_new_object();
	switch (f->type) {
	case SW_T_MAP:
		sw_json_add_str(s, "type", "object");
		{
			json_object *ap = json_object_new_object();

			sw_json_add_str(ap, "type", "string");
			json_object_object_add(s, "additionalProperties", ap);
		}
		break;
	case SW_T_ANY:
		break;
	default:
		sw_json_add_str(s, "type", type_names[f->type]);
		break;
	}
	if (f->desc != NULL)
		sw_json_add_str(s, "description", f->desc);
	if (f->dflt != NULL && !answer) {
		struct sw_ferrs bad = { 0 };
		json_object *d = sw_field_from_text(f, f->dflt, &bad);

		if (d != NULL)
			json_object_object_add(s, "default", d);
		else
			sw_error("field %s: default %s is not its type",
			    f->name, f->dflt);
	}
	switch (f->type) {
	case SW_T_STRING:
		if (f->enumv != NULL) {
			en = json_object_new_array();
			for (i = 0; f->enumv[i] != NULL; i++)
				json_object_array_add(
				    en, json_object_new_string(f->enumv[i]));
			json_object_object_add(s, "enum", en);
			break;
		}
		if (f->min > 0)
			sw_json_add_int(s, "minLength", f->min);
		if (f->max || !answer)
			sw_json_add_int(
			    s, "maxLength", f->max ? f->max : SW_MAX_STRING);
		if (f->pattern != NULL) {
			if (sw_fmt(pat, sizeof(pat), "^(%s)$", f->pattern) ==
			    SW_OK)
				sw_json_add_str(s, "pattern", pat);
			else
				sw_error("field %s: pattern too long", f->name);
		}
		break;
	case SW_T_INT:
	case SW_T_NUMBER:
		if (f->min || f->max) {
			sw_json_add_int(s, "minimum", f->min);
			sw_json_add_int(s, "maximum", f->max);
		}
		break;
	case SW_T_ARRAY:
		if (f->min > 0)
			sw_json_add_int(s, "minItems", f->min);
		if (f->max || !answer)
			sw_json_add_int(
			    s, "maxItems", f->max ? f->max : SW_MAX_ARRAY);
		if (f->items != NULL)
			json_object_object_add(
			    s, "items", field_schema(f->items, answer));
		break;
	case SW_T_OBJECT:
		if (f->fields != NULL) {
			json_object *sub = fields_schema(f->fields, 0, answer);

			json_object_object_foreach(sub, k, v)
			    json_object_object_add(s, k, json_object_get(v));
			json_object_put(sub);
		}
		break;
	default:
		break;
	}
	if ((f->flags & SW_F_NULLABLE) && f->type != SW_T_ANY) {
		json_object *t = json_object_new_array();

		json_object_array_add(t,
		    json_object_new_string(
			f->type == SW_T_MAP ? "object" : type_names[f->type]));
		json_object_array_add(t, json_object_new_string("null"));
		json_object_object_add(s, "type", t);
	}
	if (f->only != NULL) { /* {"kind": ["managed", ...]} */
		json_object *vals = json_object_new_array();

		for (i = 1; f->only[i] != NULL; i++)
			json_object_array_add(
			    vals, json_object_new_string(f->only[i]));
		en = json_object_new_object();
		json_object_object_add(en, f->only[0], vals);
		json_object_object_add(s, "x-slipway-only", en);
	}
	return s;
}

json_object *
sw_field_schema(const struct sw_field *f)
{
	return field_schema(f, 0);
}

static json_object *
fields_schema(const struct sw_field *fields, unsigned mask, int answer)
{
	json_object *s, *props, *req, *nots = NULL;
	const struct sw_field *f;

	s = json_object_new_object();
	props = json_object_new_object();
	req = json_object_new_array();
	sw_json_add_str(s, "type", "object");
	for (f = fields; f != NULL && f->name != NULL; f++) {
		if (mask != 0 && !(f->flags & mask))
			continue;
		json_object_object_add(props, f->name, field_schema(f, answer));
		if (f->flags & SW_F_REQUIRED)
			json_object_array_add(
			    req, json_object_new_string(f->name));
		if (f->excludes != NULL) { /* not both: a oneOf */
			if (nots == NULL)
				nots = json_object_new_array();
			json_object_array_add(nots,
			    sw_jo("not",
				sw_jo("properties",
				    sw_jo(f->name, json_object_new_object(),
					f->excludes, json_object_new_object(),
					NULL),
				    "required",
				    sw_ja(sw_js(f->name), sw_js(f->excludes)),
				    NULL),
				NULL));
		}
	}
	json_object_object_add(s, "properties", props);
	if (nots != NULL)
		json_object_object_add(s, "allOf", nots);
	if (json_object_array_length(req) > 0)
		json_object_object_add(s, "required", req);
	else
		json_object_put(req);
	sw_json_add_bool(s, "additionalProperties", 0);
	return s;
}

json_object *
sw_fields_schema(const struct sw_field *fields, unsigned mask)
{
	return fields_schema(fields, mask, 0);
}

json_object *
sw_answer_schema(const struct sw_field *fields)
{
	return fields_schema(fields, 0, 1);
}
