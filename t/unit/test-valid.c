/* test-valid.c: the table-driven validator refuses what breaks a rule and
 * names the field and the rule; the schema generator mirrors the table. */
#include <stdlib.h>
#include <string.h>

#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "lib/valid.h"
#include "t/tap.h"

static const char *const caps[] = { "on-demand", "spot", NULL };
static const char *const only_spot[] = { "capacity", "spot", NULL };

/* clang-format off */
static const struct sw_field f_group[] = {
	{ .name = "name", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 20, .pattern = "[a-z][a-z0-9-]*",
	  .desc = "group name" },
	{ .name = "count", .type = SW_T_INT, .flags = SW_F_REQUIRED, .min = 1,
	  .max = 100 },
	{ .name = "capacity", .type = SW_T_STRING, .enumv = caps },
	{ .name = "max_price", .type = SW_T_INT, .only = only_spot },
	{ .name = "batch_percent", .type = SW_T_INT,
	  .excludes = "batch_count" },
	{ .name = "batch_count", .type = SW_T_INT },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field f_group_item[] = {
	{ .name = "group", .type = SW_T_OBJECT, .fields = f_group },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field f_body[] = {
	{ .name = "cluster", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 40, .pattern = "[a-z0-9-]+" },
	{ .name = "efa", .type = SW_T_BOOL },
	{ .name = "tags", .type = SW_T_MAP, .max = 4 },
	{ .name = "groups", .type = SW_T_ARRAY, .min = 1, .max = 3,
	  .items = f_group_item },
	{ NULL }
};
/* clang-format on */

/* An answer's rows: a required string, an optional list, anything. */
/* clang-format off */
static const struct sw_field f_ans_item[] = {
	{ .name = "line", .type = SW_T_STRING },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field f_answer[] = {
	{ .name = "name", .type = SW_T_STRING, .flags = SW_F_REQUIRED },
	{ .name = "lines", .type = SW_T_ARRAY, .items = f_ans_item },
	{ .name = "result", .type = SW_T_ANY },
	{ NULL }
};
/* clang-format on */

/* Does the answer json pass f_answer?  1 yes, 0 no (with the first
 * refusal's field and rule in field/rule). */
static int
answer_ok(const char *json, char *field, char *rule)
{
	struct sw_ferrs errs;
	json_object *o = json_tokener_parse(json);
	sw_err e;

	memset(&errs, 0, sizeof(errs));
	e = sw_validate_answer(o, f_answer, &errs);
	json_object_put(o);
	sw_fmt_text(field, 128, "%s", errs.n ? errs.e[0].field : "");
	sw_fmt_text(rule, 24, "%s", errs.n ? errs.e[0].rule : "");
	return e == SW_OK;
}

static void
answers(void)
{
	char field[128], rule[24], *big;
	json_object *s;
	size_t n = 3 * SW_MAX_STRING;

	ok(answer_ok("{\"name\":\"a\",\"result\":null}", field, rule),
	    "an answer with its members passes (any value where any is "
	    "declared)");
	ok(!answer_ok("{\"name\":\"a\",\"extra\":1}", field, rule) &&
		strcmp(field, "extra") == 0 && strcmp(rule, "unknown") == 0,
	    "a member the row does not declare is refused");
	ok(!answer_ok("{\"lines\":[]}", field, rule) &&
		strcmp(field, "name") == 0 && strcmp(rule, "required") == 0,
	    "a missing required member is refused");
	ok(!answer_ok("{\"name\":\"a\",\"lines\":[1]}", field, rule) &&
		strcmp(field, "lines[0]") == 0 && strcmp(rule, "type") == 0,
	    "an item of the wrong type is refused");
	big = sw_malloc(n + 40);
	memcpy(big, "{\"name\":\"", 9);
	memset(big + 9, 'x', n);
	memcpy(big + 9 + n, "\"}", 3);
	ok(answer_ok(big, field, rule),
	    "an answer's string has no length "
	    "bound unless its row gives one");
	free(big);
	s = sw_answer_schema(f_answer);
	ok(strstr(sw_json_str(s), "\"required\":[\"name\"]") != NULL &&
		strstr(sw_json_str(s), "\"additionalProperties\":false") !=
		    NULL &&
		strstr(sw_json_str(s), "maxLength") == NULL &&
		strstr(sw_json_str(s), "\"result\":{}") != NULL,
	    "the answer's schema: required, closed, unbounded, any is {}");
	json_object_put(s);
}

static int
check(const char *json, int want_ok, const char *field, const char *rule,
    const char *name)
{
	struct sw_ferrs errs;
	json_object *o;
	char why[64];
	sw_err e;
	int i, found = field == NULL;

	memset(&errs, 0, sizeof(errs));
	if (sw_json_parse(json, strlen(json), &o, why, sizeof(why)) != SW_OK)
		return ok(0, "%s (bad test JSON: %s)", name, why);
	e = sw_validate(o, f_body, 0, &errs);
	for (i = 0; i < errs.n; i++)
		if (field && strcmp(errs.e[i].field, field) == 0 &&
		    strcmp(errs.e[i].rule, rule) == 0)
			found = 1;
	json_object_put(o);
	if (!ok((want_ok ? e == SW_OK : e == SW_EINVAL) && found, "%s", name))
		for (i = 0; i < errs.n; i++)
			diag("%s %s %s", errs.e[i].field, errs.e[i].rule,
			    errs.e[i].msg);
	return 1;
}

int
main(void)
{
	struct sw_ferrs errs;
	json_object *s, *v;
	char why[64];

	check("{\"cluster\":\"c1\"}", 1, NULL, NULL, "minimal body is valid");
	check(
	    "{\"cluster\":\"c1\",\"efa\":true,\"tags\":{\"a\":\"b\"},"
	    "\"groups\":[{\"name\":\"gpu\",\"count\":4,\"capacity\":\"spot\"}]}",
	    1, NULL, NULL, "full body is valid");
	check("{}", 0, "cluster", "required", "missing required field");

	/* A member that goes with one value of its sibling only. */
	check("{\"cluster\":\"c1\",\"groups\":[{\"name\":\"g\",\"count\":1,"
	      "\"capacity\":\"spot\",\"max_price\":3}]}",
	    1, NULL, NULL,
	    "a member with the sibling value it goes with is valid");
	check("{\"cluster\":\"c1\",\"groups\":[{\"name\":\"g\",\"count\":1,"
	      "\"capacity\":\"on-demand\",\"max_price\":3}]}",
	    0, "groups[0].max_price", "capacity",
	    "... with another value it is refused, the sibling as the rule");
	check("{\"cluster\":\"c1\",\"groups\":[{\"name\":\"g\",\"count\":1,"
	      "\"max_price\":3}]}",
	    0, "groups[0].max_price", "capacity",
	    "... and so it is when the sibling is absent (its first value)");
	check("{\"cluster\":\"c1\",\"groups\":[{\"name\":\"g\",\"count\":1,"
	      "\"capacity\":\"on-demand\"}]}",
	    1, NULL, NULL, "... and the sibling alone is valid");
	s = sw_field_schema(&f_group[3]);
	is_str(sw_json_str(sw_json_get(s, "x-slipway-only")),
	    "{\"capacity\":[\"spot\"]}", "the schema says what it goes with");
	json_object_put(s);
	/* Alternatives: either of two siblings, never both (a oneOf). */
	check("{\"cluster\":\"c1\",\"groups\":[{\"name\":\"g\",\"count\":1,"
	      "\"batch_count\":2}]}",
	    1, NULL, NULL,
	    "one of two alternatives "
	    "is valid");
	check("{\"cluster\":\"c1\",\"groups\":[{\"name\":\"g\",\"count\":1,"
	      "\"batch_count\":2,\"batch_percent\":10}]}",
	    0, "groups[0].batch_percent", "oneOf",
	    "... both are refused, rule oneOf, not one silently dropped");
	s = sw_fields_schema(f_group, 0);
	ok(strstr(sw_json_str(s),
	       "\"allOf\":[{\"not\":{\"properties\":"
	       "{\"batch_percent\":{},\"batch_count\":{}},\"required\":"
	       "[\"batch_percent\",\"batch_count\"]}}]") != NULL,
	    "the schema says not both");
	json_object_put(s);
	check("{\"cluster\":\"C 1\"}", 0, "cluster", "pattern",
	    "pattern enforced and anchored");
	check("{\"cluster\":\"c1\",\"bogus\":1}", 0, "bogus", "unknown",
	    "unknown field rejected");
	check("{\"cluster\":7}", 0, "cluster", "type", "wrong type rejected");
	check("{\"cluster\":\"c1\",\"efa\":\"yes\"}", 0, "efa", "type",
	    "bool must be a JSON boolean");
	check("{\"cluster\":\"c1\",\"groups\":[]}", 0, "groups", "minItems",
	    "array minimum");
	check(
	    "{\"cluster\":\"c1\",\"groups\":[{\"name\":\"g\",\"count\":101}]}",
	    0, "groups[0].count", "maximum", "nested integer bound");
	check("{\"cluster\":\"c1\",\"groups\":[{\"name\":\"g\",\"count\":0}]}",
	    0, "groups[0].count", "minimum", "nested integer lower bound");
	check("{\"cluster\":\"c1\",\"groups\":[{\"name\":\"g\",\"count\":1,"
	      "\"capacity\":\"reserved\"}]}",
	    0, "groups[0].capacity", "enum", "enum enforced");
	check("{\"cluster\":\"c1\",\"groups\":[{\"count\":1,\"x\":1}]}", 0,
	    "groups[0].x", "unknown", "unknown nested field rejected");
	check("{\"cluster\":\"c1\",\"groups\":[{\"count\":1}]}", 0,
	    "groups[0].name", "required", "nested required");
	check(
	    "{\"cluster\":\"c1\",\"tags\":{\"a\":\"1\",\"b\":\"2\",\"c\":\"3\","
	    "\"d\":\"4\",\"e\":\"5\"}}",
	    0, "tags", "maxProperties", "map size bound");
	check("{\"cluster\":\"c1\",\"tags\":{\"a\":1}}", 0, "tags.a", "type",
	    "map values must be strings");
	check("{\"cluster\":\"0123456789012345678901234567890123456789x\"}", 0,
	    "cluster", "maxLength", "string length bound");
	check("{\"cluster\":null}", 0, "cluster", "type", "null refused");

	/* Text conversion for query and path values. */
	memset(&errs, 0, sizeof(errs));
	v = sw_field_from_text(&f_group[1], "12", &errs);
	ok(v != NULL && json_object_get_int(v) == 12, "integer from text");
	json_object_put(v);
	v = sw_field_from_text(&f_group[1], "12x", &errs);
	ok(v == NULL && errs.n == 1 && strcmp(errs.e[0].rule, "type") == 0,
	    "bad integer text names the rule");

	/* Schema mirrors the table. */
	s = sw_fields_schema(f_body, 0);
	ok(strstr(sw_json_str(s), "\"required\":[\"cluster\"]") != NULL,
	    "schema lists required fields");
	ok(strstr(sw_json_str(s), "\"additionalProperties\":false") != NULL,
	    "schema forbids unknown fields");
	ok(strstr(sw_json_str(s), "\"enum\":[\"on-demand\",\"spot\"]") != NULL,
	    "schema carries enums of nested items");
	ok(strstr(sw_json_str(s), "\"pattern\":\"^([a-z0-9-]+)$\"") != NULL,
	    "schema pattern is anchored like the validator");
	json_object_put(s);

	/* Parser limits. */
	ok(sw_json_parse("{\"a\":1} x", 9, &v, why, sizeof(why)) == SW_EBADJSON,
	    "trailing garbage is malformed");
	{
		char deep[200];
		int i;

		for (i = 0; i < 80; i++)
			deep[i] = '[';
		for (; i < 160; i++)
			deep[i] = ']';
		deep[160] = '\0';
		ok(sw_json_parse(deep, 160, &v, why, sizeof(why)) ==
			SW_EBADJSON,
		    "nesting deeper than the cap is refused");
	}
	answers();
	sw_valid_cleanup();
	return tap_done();
}
