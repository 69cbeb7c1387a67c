/*
 * fuzz_json_fields.c: JSON parsing (depth cap, strict mode, the UTF-8
 * and NUL rules) and field validation against the body and parameter
 * tables of every row of the operation table.  The first byte picks
 * the row; the rest is the JSON text.  Invariant: a document that
 * parses has only valid UTF-8 strings, and validation never crashes or
 * reports more errors than it has room for.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzzkit.h"
#include "lib/json.h"
#include "api/optable.h"
#include "lib/valid.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct sw_op *op;
	struct sw_ferrs errs;
	json_object *o = NULL;
	char why[160];
	const char *text;

	if (size < 1 || size > 1 << 16)
		return 0;
	op = &sw_optable[data[0] % sw_optable_len];
	if (sw_json_parse((const char *)data + 1, size - 1, &o, why,
		sizeof(why)) != SW_OK)
		return 0;
	text = sw_json_str(o);
	fz_assert_json(text, strlen(text), "a parsed document");
	memset(&errs, 0, sizeof(errs));
	(void)sw_validate(o, op->body, 0, &errs);
	if (op->params != NULL)
		(void)sw_validate(o, op->params, SW_F_PATH | SW_F_QUERY, &errs);
	if (errs.n < 0 || errs.n > SW_MAX_FIELD_ERRORS)
		abort();
	json_object_put(o);
	return 0;
}
