/*
 * mcp_complete.c: completion/complete (see mcp.h).
 *
 * An argument of a prompt or resource template is completed from where
 * its values live: cluster names, instance types and availability zones
 * from the REST rows that list them (run in process for the caller, so
 * a caller sees only what it may read), recipes, engines and feature
 * names from the operation table's own field rules.  Values start with
 * what the caller typed; at most SW_MCP_MAX_COMPLETIONS come back, with
 * the total and hasMore.
 */
#include <stdio.h>
#include <string.h>

#include "lib/json.h"
#include "mcp/mcp.h"

/* Where an argument's values come from. */
enum source {
	SRC_NONE,
	SRC_CLUSTERS,
	SRC_TYPES,
	SRC_AZS,
	SRC_RECIPES,
	SRC_ENGINES,
	SRC_FEATURES,
	SRC_OPERATIONS
};

static const struct {
	const char *arg;
	enum source src;
} by_arg[] = {
	{ "cluster", SRC_CLUSTERS },
	{ "name", SRC_CLUSTERS },
	{ "instance_type", SRC_TYPES },
	{ "availability_zone", SRC_AZS },
	{ "az", SRC_AZS },
	{ "recipe", SRC_RECIPES },
	{ "engine", SRC_ENGINES },
	{ "feature", SRC_FEATURES },
	{ "id", SRC_OPERATIONS },
};

static void
add_if_match(json_object *vals, const char *v, const char *prefix)
{
	size_t i;

	if (v == NULL || strncmp(v, prefix, strlen(prefix)) != 0)
		return;
	for (i = 0; i < json_object_array_length(vals); i++)
		if (strcmp(json_object_get_string(
			       json_object_array_get_idx(vals, i)),
			v) == 0)
			return;
	json_object_array_add(vals, json_object_new_string(v));
}

/* The field named name of op's body (or params), or NULL. */
static const struct sw_field *
field_of(const char *op_name, const char *name)
{
	const struct sw_op *op = sw_op_by_name(op_name);
	const struct sw_field *f;

	for (f = op != NULL ? op->body : NULL; f != NULL && f->name != NULL;
	     f++)
		if (strcmp(f->name, name) == 0)
			return f;
	return NULL;
}

/* Values of key in each element of doc's items array. */
static void
from_rows(struct sw_mcp *m, const struct sw_principal *who, const char *op,
    const char *list, const char *key, const char *prefix, json_object *vals)
{
	json_object *doc = NULL, *items;
	long status = 0;
	size_t i;

	if (sw_mcp_op_run(m, who, op, NULL, &status, &doc) == SW_OK &&
	    status == 200 && (items = sw_json_get(doc, list)) != NULL &&
	    json_object_is_type(items, json_type_array))
		for (i = 0; i < json_object_array_length(items); i++)
			add_if_match(vals,
			    sw_json_get_str(
				json_object_array_get_idx(items, i), key),
			    prefix);
	json_object_put(doc);
}

json_object *
sw_mcp_complete(struct sw_mcp *m, const struct sw_principal *who,
    const char *arg, const char *prefix)
{
	json_object *vals = json_object_new_array(), *res, *c, *cut;
	const struct sw_field *f = NULL;
	enum source src = SRC_NONE;
	const char *const *e;
	size_t i, n;

	for (i = 0; i < sizeof(by_arg) / sizeof(by_arg[0]); i++)
		if (strcmp(by_arg[i].arg, arg) == 0)
			src = by_arg[i].src;
	switch (src) {
	case SRC_CLUSTERS:
		from_rows(
		    m, who, "cluster_list", "items", "name", prefix, vals);
		break;
	case SRC_TYPES:
		from_rows(m, who, "instance_type_list", "items",
		    "instance_type", prefix, vals);
		break;
	case SRC_AZS:
		from_rows(m, who, "az_list", "items", "name", prefix, vals);
		break;
	case SRC_OPERATIONS:
		from_rows(
		    m, who, "operation_list", "items", "id", prefix, vals);
		break;
	case SRC_RECIPES:
		f = field_of("training_job_submit", "recipe");
		break;
	case SRC_ENGINES:
		f = field_of("inference_deploy", "engine");
		break;
	case SRC_FEATURES:
		for (f = sw_op_by_name("feature_set")->body;
		     f != NULL && f->name != NULL; f++)
			add_if_match(vals, f->name, prefix);
		f = NULL;
		break;
	case SRC_NONE:
		break;
	}
	for (e = f != NULL ? f->enumv : NULL; e != NULL && *e != NULL; e++)
		add_if_match(vals, *e, prefix);
	n = json_object_array_length(vals);
	if (n > SW_MCP_MAX_COMPLETIONS) {
		cut = json_object_new_array();
		for (i = 0; i < SW_MCP_MAX_COMPLETIONS; i++)
			json_object_array_add(cut,
			    json_object_get(
				json_object_array_get_idx(vals, i)));
		json_object_put(vals);
		vals = cut;
	}
	c = json_object_new_object();
	json_object_object_add(c, "values", vals);
	sw_json_add_int(c, "total", (int64_t)n);
	sw_json_add_bool(c, "hasMore", n > SW_MCP_MAX_COMPLETIONS);
	res = json_object_new_object();
	json_object_object_add(res, "completion", c);
	return res;
}
