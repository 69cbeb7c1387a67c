/*
 * mcp_resources.c: MCP resources and resource templates (see mcp.h).
 *
 * A slipway:// URI names live state; reading one runs the REST row
 * behind it in this process (sw_mcp_op_run), so the scope check and
 * validation are the REST route's own:
 *   slipway://clusters                  cluster_list
 *   slipway://clusters/{name}           cluster_get, instance_group_list,
 *                                       node_list, feature_list,
 *                                       storage_list (one document)
 *   slipway://operations/{id}           operation_get (stages, events)
 *   slipway://clusters/{name}/training-jobs/{job}/logs
 *                                       training_job_logs (last lines)
 *   slipway://skills/{name}             the skill's SKILL.md (read scope)
 * The skills are files of the skills directory (mcp/mcp_prompts.c reads
 * the same files for prompts); nothing here is a second copy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/json.h"
#include "lib/log.h"
#include "mcp/mcp.h"

#define PFX "slipway://"
#define JSON_MIME "application/json"

/* The parameterised resources, in the order resources/templates/list
 * gives them. */
static const struct {
	const char *uri;
	const char *name;
	const char *title;
	const char *desc;
	const char *mime;
} templates[] = {
	{ PFX "clusters/{name}", "cluster", "A cluster's live state",
	    "EKS and HyperPod status, instance groups, nodes, managed "
	    "features and storage of one cluster.",
	    JSON_MIME },
	{ PFX "operations/{id}", "operation", "An operation",
	    "State, stages and events of one operation; subscribe to it to "
	    "hear of each new event.",
	    JSON_MIME },
	{ PFX "clusters/{name}/training-jobs/{job}/logs", "training-job-logs",
	    "A training job's logs",
	    "The last lines of a training job's "
	    "logs.",
	    "text/plain" },
	{ PFX "skills/{name}", "skill", "A Slipway skill",
	    "The playbook (markdown) of one skill; the same skill is a "
	    "prompt.",
	    "text/markdown" },
};

json_object *
sw_mcp_resource_templates(void)
{
	json_object *arr = json_object_new_array(), *o;
	size_t i;

	for (i = 0; i < sizeof(templates) / sizeof(templates[0]); i++) {
		o = json_object_new_object();
		sw_json_add_str(o, "uriTemplate", templates[i].uri);
		sw_json_add_str(o, "name", templates[i].name);
		sw_json_add_str(o, "title", templates[i].title);
		sw_json_add_str(o, "description", templates[i].desc);
		sw_json_add_str(o, "mimeType", templates[i].mime);
		json_object_array_add(arr, o);
	}
	return arr;
}

static json_object *
resource_new(const char *uri, const char *name, const char *title,
    const char *desc, const char *mime)
{
	json_object *o = json_object_new_object();

	sw_json_add_str(o, "uri", uri);
	sw_json_add_str(o, "name", name);
	if (title != NULL)
		sw_json_add_str(o, "title", title);
	if (desc != NULL)
		sw_json_add_str(o, "description", desc);
	sw_json_add_str(o, "mimeType", mime);
	return o;
}

json_object *
sw_mcp_resource_list(struct sw_mcp *m, const struct sw_principal *who)
{
	json_object *arr = json_object_new_array(), *doc = NULL, *list, *c;
	json_object *skills;
	char uri[256];
	const char *name;
	long status = 0;
	size_t i;

	json_object_array_add(arr,
	    resource_new(PFX "clusters", "clusters", "Clusters",
		"Every cluster Slipway manages, with its state.", JSON_MIME));
	/* The clusters the caller may read, as the REST list shows them. */
	if (sw_mcp_op_run(m, who, "cluster_list", NULL, &status, &doc) ==
		SW_OK &&
	    status == 200) {
		list = sw_json_get(doc, "items");
		for (i = 0; list != NULL &&
		     json_object_is_type(list, json_type_array) &&
		     i < json_object_array_length(list);
		     i++) {
			c = json_object_array_get_idx(list, i);
			if ((name = sw_json_get_str(c, "name")) == NULL ||
			    sw_fmt(uri, sizeof(uri), PFX "clusters/%s", name) !=
				SW_OK)
				continue;
			json_object_array_add(arr,
			    resource_new(uri, name, NULL,
				"Live state of cluster", JSON_MIME));
		}
	}
	json_object_put(doc);
	skills = sw_mcp_skills(m);
	for (i = 0; i < json_object_array_length(skills); i++) {
		c = json_object_array_get_idx(skills, i);
		name = sw_json_get_str(c, "name");
		if (snprintf(uri, sizeof(uri), PFX "skills/%s", name) >=
		    (int)sizeof(uri))
			continue;
		json_object_array_add(arr,
		    resource_new(uri, name, sw_json_get_str(c, "title"),
			sw_json_get_str(c, "description"), "text/markdown"));
	}
	json_object_put(skills);
	return arr;
}

/*
 * Split uri after PFX into at most n '/'-separated segments (copied
 * into buf); returns the count, or -1 when there are more or one is
 * empty.
 */
static int
segments(const char *uri, char *buf, size_t bufsz, char **seg, int n)
{
	char *p, *slash;
	int k = 0;

	if (strncmp(uri, PFX, strlen(PFX)) != 0 ||
	    sw_fmt(buf, bufsz, "%s", uri + strlen(PFX)) != SW_OK)
		return -1;
	for (p = buf;; p = slash + 1) {
		if (k == n || *p == '\0')
			return -1;
		seg[k++] = p;
		if ((slash = strchr(p, '/')) == NULL)
			break;
		*slash = '\0';
	}
	return k;
}

/* One text content of a resource read.  text is copied. */
static json_object *
contents_of(const char *uri, const char *mime, const char *text)
{
	json_object *arr = json_object_new_array(), *o, *res;

	o = json_object_new_object();
	sw_json_add_str(o, "uri", uri);
	sw_json_add_str(o, "mimeType", mime);
	sw_json_add_str(o, "text", text);
	json_object_array_add(arr, o);
	res = json_object_new_object();
	json_object_object_add(res, "contents", arr);
	return res;
}

/* Run op for a resource read; a failure fills the reason and returns
 * the HTTP status (>= 300) with the problem in *doc. */
static long
read_op(struct sw_mcp *m, const struct sw_principal *who, const char *op,
    json_object *args, json_object **doc)
{
	long status = 0;

	if (sw_mcp_op_run(m, who, op, args, &status, doc) != SW_OK) {
		*doc = NULL;
		return 500;
	}
	return status;
}

/* The whole state of one cluster, read row by row. */
static long
read_cluster(struct sw_mcp *m, const struct sw_principal *who, const char *name,
    json_object **out)
{
	static const struct {
		const char *op, *key;
	} parts[] = {
		{ "instance_group_list", "instance_groups" },
		{ "node_list", "nodes" },
		{ "feature_list", "features" },
		{ "storage_list", "storage" },
	};
	json_object *args = json_object_new_object(), *doc = NULL, *all;
	long st;
	size_t i;

	sw_json_add_str(args, "name", name);
	st = read_op(m, who, "cluster_get", args, &doc);
	if (st != 200) {
		json_object_put(args);
		*out = doc;
		return st;
	}
	all = json_object_new_object();
	json_object_object_add(all, "cluster", doc);
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		doc = NULL;
		(void)read_op(m, who, parts[i].op, args, &doc);
		/* A part that fails says why in its place (its problem). */
		json_object_object_add(all, parts[i].key,
		    doc != NULL ? doc : json_object_new_object());
	}
	json_object_put(args);
	*out = all;
	return 200;
}

/* The logs row answers {pods: [{pod, phase, lines: [...]}]}: the
 * lines as text, a header line per pod.  A cut answer ends in "...". */
static void
logs_text(json_object *doc, struct sw_buf *out)
{
	json_object *pods = sw_json_get(doc, "pods"), *p, *lines;
	size_t i, j;
	sw_err e = SW_OK;

	for (i = 0; e == SW_OK && pods != NULL &&
	     json_object_is_type(pods, json_type_array) &&
	     i < json_object_array_length(pods);
	     i++) {
		p = json_object_array_get_idx(pods, i);
		e = sw_buf_printf(out, "==> pod %s (%s) <==\n",
		    sw_json_get_str(p, "pod"), sw_json_get_str(p, "phase"));
		lines = sw_json_get(p, "lines");
		for (j = 0; e == SW_OK && lines != NULL &&
		     json_object_is_type(lines, json_type_array) &&
		     j < json_object_array_length(lines);
		     j++)
			e = sw_buf_printf(out, "%s\n",
			    json_object_get_string(
				json_object_array_get_idx(lines, j)));
	}
	if (e != SW_OK && out->data != NULL) {
		out->len = out->len > 4 ? out->len - 4 : 0;
		out->data[out->len] = '\0';
		(void)sw_buf_puts(out, "...\n");
	}
}

sw_err
sw_mcp_resource_read(struct sw_mcp *m, const struct sw_principal *who,
    const char *uri, json_object **result, json_object **problem)
{
	json_object *args = NULL, *doc = NULL;
	const char *mime = JSON_MIME;
	char buf[512], *seg[6];
	struct sw_buf md;
	long st = 404;
	int n;

	*result = NULL;
	*problem = NULL;
	n = segments(uri, buf, sizeof(buf), seg, 6);
	if (n == 1 && strcmp(seg[0], "clusters") == 0)
		st = read_op(m, who, "cluster_list", NULL, &doc);
	else if (n == 2 && strcmp(seg[0], "clusters") == 0)
		st = read_cluster(m, who, seg[1], &doc);
	else if (n == 2 && strcmp(seg[0], "operations") == 0) {
		args = json_object_new_object();
		sw_json_add_str(args, "id", seg[1]);
		st = read_op(m, who, "operation_get", args, &doc);
	} else if (n == 5 && strcmp(seg[0], "clusters") == 0 &&
	    strcmp(seg[2], "training-jobs") == 0 &&
	    strcmp(seg[4], "logs") == 0) {
		args = json_object_new_object();
		sw_json_add_str(args, "name", seg[1]);
		sw_json_add_str(args, "job", seg[3]);
		st = read_op(m, who, "training_job_logs", args, &doc);
		mime = "text/plain";
	} else if (n == 2 && strcmp(seg[0], "skills") == 0) {
		if (who->scope < SW_SCOPE_READ)
			st = 403;
		else {
			sw_buf_init(&md, SW_MCP_MAX_SKILL);
			if (sw_mcp_skill_read(m, seg[1], &md, NULL) == SW_OK) {
				*result = contents_of(
				    uri, "text/markdown", sw_buf_str(&md));
				st = 200;
			}
			sw_buf_free(&md);
		}
	}
	json_object_put(args);
	if (*result != NULL) {
		json_object_put(doc);
		return SW_OK;
	}
	if (st != 200) {
		*problem = doc;
		return st == 404 ? SW_ENOTFOUND
		    : st == 403  ? SW_EFORBIDDEN
		    : st >= 500  ? SW_EINTERNAL
				 : SW_EINVAL;
	}
	if (strcmp(mime, "text/plain") == 0) {
		sw_buf_init(&md, SW_MCP_MAX_SKILL * 4);
		logs_text(doc, &md);
		*result = contents_of(uri, mime, sw_buf_str(&md));
		sw_buf_free(&md);
	} else
		*result = contents_of(uri, mime, sw_json_pretty(doc));
	json_object_put(doc);
	return SW_OK;
}
