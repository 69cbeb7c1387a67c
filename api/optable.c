/*
 * optable.c: THE operation table (see optable.h), joined at start-up
 * from its families in api/ops/, each file holding its rows beside
 * the fields they read.  To add an API operation: describe its fields
 * and add one row in its family's file, write its handler in handlers/
 * and name it in handlers/table.c.  REST routing, MCP tools and
 * OpenAPI follow from the row.  A new family is named once below.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/limits.h"
#include "api/optable.h"
#include "api/ops/families.h"
#include "api/ops/patterns.h"

/* clang-format off */
const struct sw_field sw_dry_run_field = {
	.name = "dry_run", .type = SW_T_BOOL, .flags = SW_F_QUERY,
	.desc = "Validate and plan only: list the calls that would be made "
	"and change nothing."
};
/* clang-format on */

/* clang-format off */
const struct sw_field sw_team_field = {
	.name = "team", .type = SW_T_STRING, .flags = SW_F_QUERY,
	.min = 1, .max = 39, .pattern = PAT_TEAM,
	.desc = "The team whose workloads these are (namespace "
	"hyperpod-ns-<team>); default: the caller's team when it has one, "
	"else the team of a hyperpod-ns-<team> namespace."
};
/* clang-format on */

int
sw_op_takes_team(const struct sw_op *op)
{
	return op->touch == SW_TOUCH_TEAM || (op->flags & SW_OP_TEAM_ARG);
}

/* Does the row take a field called name (path, query or body)? */
static int
row_has_field(const struct sw_op *op, const char *name)
{
	const struct sw_field *f;

	for (f = op->params; f != NULL && f->name != NULL; f++)
		if (strcmp(f->name, name) == 0)
			return 1;
	for (f = op->body; f != NULL && f->name != NULL; f++)
		if (strcmp(f->name, name) == 0)
			return 1;
	return 0;
}

/* A row the team rule cannot decide is a build error, found at start. */
static void
row_check(const struct sw_op *op)
{
	if (op->touch == SW_TOUCH_UNSET || op->touch >= SW_TOUCH__MAX ||
	    (op->touch == SW_TOUCH_TEAM && !row_has_field(op, "namespace"))) {
		fprintf(stderr,
		    "optable: row %s names no touch, or touches "
		    "a team without a namespace field\n",
		    op->name);
		abort();
	}
}

/* The families, in the order the OpenAPI document and tools/list give
 * their rows. */
static const struct sw_op_family *const families[] = {
	&sw_ops_system,
	&sw_ops_inspect,
	&sw_ops_plans,
	&sw_ops_clusters,
	&sw_ops_instance_groups,
	&sw_ops_nodes,
	&sw_ops_diagnostics,
	&sw_ops_governance,
	&sw_ops_training,
	&sw_ops_mlflow,
	&sw_ops_inference,
	&sw_ops_spaces,
	&sw_ops_features,
	&sw_ops_storage,
	&sw_ops_operations,
	&sw_ops_costs,
	&sw_ops_notifications,
	&sw_ops_fleet,
};

#define SW_MAX_OPS 192 /* rows the joined table can hold */

static struct sw_op table[SW_MAX_OPS];
const struct sw_op *const sw_optable = table;
size_t sw_optable_len;

/* The rows by name, for sw_op_by_name's binary search: MCP looks a
 * tool up several times a call. */
static const struct sw_op *by_name[SW_MAX_OPS];

static int
name_cmp(const void *a, const void *b)
{
	const struct sw_op *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

/* Before main(): every program that links the table reads it whole. */
__attribute__((constructor)) static void
optable_join(void)
{
	size_t i, n = 0;

	for (i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		if (n + families[i]->len > SW_MAX_OPS) {
			fputs("optable: more rows than SW_MAX_OPS\n", stderr);
			abort();
		}
		memcpy(&table[n], families[i]->rows,
		    families[i]->len * sizeof(table[0]));
		n += families[i]->len;
	}
	for (i = 0; i < n; i++) {
		row_check(&table[i]);
		by_name[i] = &table[i];
	}
	qsort(by_name, n, sizeof(by_name[0]), name_cmp);
	for (i = 1; i < n; i++)
		if (strcmp(by_name[i - 1]->name, by_name[i]->name) == 0) {
			fprintf(stderr, "optable: two rows are named %s\n",
			    by_name[i]->name);
			abort();
		}
	sw_optable_len = n;
}

const struct sw_shape *
sw_shape_by_name(const char *name)
{
	const struct sw_shape *sh;

	for (sh = sw_shapes; name != NULL && sh->name != NULL; sh++)
		if (strcmp(sh->name, name) == 0)
			return sh;
	return NULL;
}

const struct sw_field *
sw_answer_fields(const struct sw_answer *a)
{
	const struct sw_shape *sh;

	if (a->fields != NULL)
		return a->fields;
	return (sh = sw_shape_by_name(a->shape)) != NULL ? sh->fields : NULL;
}

int
sw_answer_fits(const struct sw_answer *a, int status, int dry_run)
{
	if (a->status != status)
		return 0;
	return a->dry_run == SW_DRY_TOO || !a->dry_run == !dry_run;
}

const struct sw_op *
sw_op_by_name(const char *name)
{
	size_t lo = 0, hi = sw_optable_len, mid;
	int c;

	while (name != NULL && lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((c = strcmp(name, by_name[mid]->name)) == 0)
			return by_name[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* Length of the segment at p (up to '/' or end). */
static size_t
seglen(const char *p)
{
	const char *s = strchr(p, '/');

	return s ? (size_t)(s - p) : strlen(p);
}

int
sw_path_match(const char *tmpl, const char *path, json_object *vars)
{
	const char *t = tmpl, *p = path, *close, *verb;
	size_t tl, pl, vl;
	char name[64];

	while (*t != '\0' && *p != '\0') {
		if (*t != '/' || *p != '/')
			return 0;
		t++;
		p++;
		tl = seglen(t);
		pl = seglen(p);
		if (*t == '{' && (close = memchr(t, '}', tl)) != NULL) {
			/* "{x}" or "{x}:verb": bind the part before :verb */
			verb = close + 1;
			vl = tl - (size_t)(verb - t);
			if (pl <= vl ||
			    (vl > 0 && memcmp(p + pl - vl, verb, vl) != 0))
				return 0;
			if (memchr(p, ':', pl - vl) != NULL)
				return 0;
			if ((size_t)(close - t - 1) >= sizeof(name))
				return 0;
			memcpy(name, t + 1, (size_t)(close - t - 1));
			name[close - t - 1] = '\0';
			if (vars != NULL) {
				char val[256];

				if (pl - vl >= sizeof(val))
					return 0;
				memcpy(val, p, pl - vl);
				val[pl - vl] = '\0';
				json_object_object_add(
				    vars, name, json_object_new_string(val));
			}
		} else if (tl != pl || memcmp(t, p, tl) != 0)
			return 0;
		t += tl;
		p += pl;
	}
	return *t == '\0' && *p == '\0';
}

/* "read-only" and "diagnose" (the read-only tools, what the diagnosis
 * skills use), then the table's tags. */
int
sw_tool_class_ok(const char *cls)
{
	size_t i;

	if (strcmp(cls, "read-only") == 0 || strcmp(cls, "diagnose") == 0)
		return 1;
	for (i = 0; i < sw_optable_len; i++)
		if (!(sw_optable[i].flags & SW_OP_NO_MCP) &&
		    strcmp(sw_optable[i].tag, cls) == 0)
			return 1;
	return 0;
}

int
sw_tool_classes_ok(const char *list)
{
	char buf[SW_MAX_TOOL_CLASSES + 1], *p, *comma;

	if (snprintf(buf, sizeof(buf), "%s", list) >= (int)sizeof(buf))
		return 0;
	for (p = buf;; p = comma + 1) {
		if ((comma = strchr(p, ',')) != NULL)
			*comma = '\0';
		if (!sw_tool_class_ok(p))
			return 0;
		if (comma == NULL)
			return 1;
	}
}

/*
 * Each pattern of the table in words: what a person reads when a value
 * breaks it ("must be lowercase letters, ..."), in place of the regular
 * expression (lib/valid.c).  Patterns that are the same string share a
 * row.  A pattern missing here is quoted as it is.
 */
/* clang-format off */
const struct sw_pattern_words sw_pattern_words[] = {
	{ PAT_CLUSTER, "lowercase letters, digits and hyphens, starting "
	  "with a letter and ending with a letter or digit, 2 to 32 "
	  "characters" },
	{ PAT_NAME, "lowercase letters, digits and hyphens, starting and "
	  "ending with a letter or digit, at most 63 characters" },
	{ PAT_WL_NAME, "lowercase letters, digits and hyphens, starting "
	  "with a letter and ending with a letter or digit, at most 52 "
	  "characters" },
	{ PAT_CKPT, "a checkpoint directory: step- or checkpoint- and its "
	  "step, such as step-400" },
	{ PAT_TEAM, "lowercase letters, digits and hyphens, starting and "
	  "ending with a letter or digit, at most 39 characters" },
	{ PAT_QUOTA, "letters, digits and hyphens, starting and ending "
	  "with a letter or digit, at most 63 characters" },
	{ PAT_TOKEN_NAME, "letters, digits, dots, underscores and hyphens, "
	  "1 to 64 characters" },
	{ PAT_OP_ID, "an operation id: op- and 16 hexadecimal digits" },
	{ PAT_ML_TYPE, "a SageMaker instance type such as ml.g5.8xlarge" },
	{ PAT_AZ, "an availability zone such as us-west-2a" },
	{ PAT_SUBNET, "a subnet id such as subnet-0123456789abcdef0" },
	{ PAT_NODE, "a node's instance id such as i-0123456789abcdef0" },
	{ PAT_VOLUME, "an EBS volume id such as vol-0123456789abcdef0" },
	{ PAT_MLFLOW_APP, "lowercase letters, digits and hyphens, starting "
	  "and ending with a letter or digit, at most 40 characters" },
	{ PAT_BUCKET, "an S3 bucket name: lowercase letters, digits, dots "
	  "and hyphens, starting and ending with a letter or digit, 3 to 63 "
	  "characters" },
	{ PAT_REL_PATH, "a relative path: up to 8 segments of letters, "
	  "digits, dots, underscores and hyphens, none starting with a dot" },
	{ PAT_CIDR16, "a /16 network such as 10.1.0.0/16" },
	{ PAT_ADDON_VERSION, "an add-on version such as v1.19.0-eksbuild.1" },
	{ NULL, NULL }
};
/* clang-format on */
