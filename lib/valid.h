/*
 * valid.h: table-driven validation of request input.  Each operation
 * declares its path, query and body fields as sw_field arrays (ended by
 * a row whose name is NULL).  sw_validate() checks a JSON object against
 * such a table: types, required members, numeric bounds, string length,
 * anchored POSIX patterns, enums, nested objects and arrays, and refuses
 * members the table does not name.  The same tables produce the JSON
 * Schemas of the OpenAPI document and of the MCP tools, and describe
 * the answers too (sw_validate_answer).
 */
#ifndef SW_VALID_H
#define SW_VALID_H

#include <json-c/json.h>

#include "lib/err.h"
#include "lib/limits.h"

enum sw_ftype {
	SW_T_STRING,
	SW_T_INT,
	SW_T_NUMBER,
	SW_T_BOOL,
	SW_T_OBJECT, /* members described by .fields */
	SW_T_ARRAY, /* each element described by .items */
	SW_T_MAP, /* string keys -> strings (tags, labels) */
	SW_T_ANY, /* any JSON value (answers only: a stored
				 * document passed through as it is) */
	SW_T__MAX
};

#define SW_F_REQUIRED 0x01 /* must be present */
#define SW_F_PATH 0x02 /* comes from a {placeholder} in the path */
#define SW_F_QUERY 0x04 /* comes from the query string */
#define SW_F_SECRET 0x08 /* never echoed back or logged */
#define SW_F_NULLABLE 0x10 /* JSON null accepted (means "unset") */

struct sw_field {
	const char *name;
	enum sw_ftype type;
	unsigned flags;
	long long min, max; /* value, length or count bounds */
	const char *pattern; /* ERE, anchored by the validator */
	const char *const *enumv; /* NULL-terminated allowed strings */
	const char *desc;
	const struct sw_field *fields; /* SW_T_OBJECT members */
	const struct sw_field *items; /* SW_T_ARRAY element (one row) */
	/* A member that goes with some values of a sibling only: the
	 * sibling's name, then those values, NULL-terminated (e.g. "kind",
	 * "managed", NULL).  An absent sibling counts as its first enum
	 * value.  Elsewhere the member is refused with the sibling's name
	 * as the rule.  NULL: any. */
	const char *const *only;
	/* A sibling that cannot be given with this member: the two are
	 * alternatives (a oneOf of at most one), refused together with
	 * the rule "oneOf".  NULL: none. */
	const char *excludes;
	/* The value an absent member takes, in the text form a query
	 * string would carry (sw_field_from_text: "8", "true", "main").
	 * Validation of input adds it, so handlers read it as given; the
	 * schemas show it as "default".  NULL: none (absent stays absent). */
	const char *dflt;
};

struct sw_ferr {
	char field[128]; /* JSON path, e.g. instance_groups[1].count */
	char rule[24]; /* required, type, minimum, pattern, enum... */
	char msg[200];
};

struct sw_ferrs {
	int n;
	struct sw_ferr e[SW_MAX_FIELD_ERRORS];
};

/*
 * Validate obj (borrowed) against fields.  Returns SW_OK or SW_EINVAL
 * with every problem found (up to SW_MAX_FIELD_ERRORS) in errs.
 * Only fields whose flags & mask are non-zero, or all when mask is 0,
 * are considered, so one table can describe path, query and body.
 */
sw_err sw_validate(json_object *obj, const struct sw_field *fields,
    unsigned mask, struct sw_ferrs *errs);

/*
 * Turn a raw string (from a path or query) into the JSON value the field
 * wants: INT/NUMBER/BOOL are parsed, others stay strings.  Returns a new
 * reference, or NULL with a rule in errs when the text does not parse.
 */
json_object *sw_field_from_text(
    const struct sw_field *, const char *text, struct sw_ferrs *errs);

/* Record one error (used by handlers for cross-field rules too). */
/* A pattern in words, for people. */
struct sw_pattern_words {
	const char *pattern, *words;
};
/*
 * The patterns in words that refusals quote in place of the regular
 * expression (the operation table's, api/optable.c, set by the router
 * before it validates); a table ending in a NULL pattern, borrowed for
 * good.  Without one a refusal quotes the pattern.
 */
void sw_valid_words(const struct sw_pattern_words *table);

void sw_ferr_add(struct sw_ferrs *, const char *field, const char *rule,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* JSON Schema of one field or of a table (an "object" schema).  New ref. */
json_object *sw_field_schema(const struct sw_field *);
json_object *sw_fields_schema(const struct sw_field *, unsigned mask);

/*
 * The same for an answer Slipway sends (the operation table's answer
 * rows): required members, types, enums and patterns as for input, no
 * undeclared member, but no length or count bound unless the row gives
 * one.  The validator behind the test builds' check of every answer
 * (api/router.c) and the schema the OpenAPI document and MCP's
 * outputSchema show.
 */
sw_err sw_validate_answer(
    json_object *obj, const struct sw_field *fields, struct sw_ferrs *errs);
json_object *sw_answer_schema(const struct sw_field *fields);

/* Release cached compiled patterns (for leak checkers at exit). */
void sw_valid_cleanup(void);

#endif
