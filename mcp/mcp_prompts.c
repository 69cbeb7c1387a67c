/*
 * mcp_prompts.c: the skills as MCP prompts (see mcp.h).
 *
 * The skills directory (skills/NAME/SKILL.md, installed under
 * $(pkgdatadir)/skills) is the one source: prompts/list gives each skill
 * with its front matter's description and version, prompts/get gives
 * its playbook as a user message, aimed at a cluster when the caller
 * names one, and slipway://skills/NAME (mcp/mcp_resources.c) reads the
 * same file.  The front matter is the small YAML subset the skills use:
 * "key: value", a folded "key: >-" block and "  - item" lists.
 */
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/alloc.h"
#include "lib/json.h"
#include "lib/log.h"
#include "mcp/mcp.h"

/* A skill name: what a skills/ folder may be called. */
static int
skill_name_ok(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n <= 64 &&
	    strspn(s,
		"abcdefghijklmnopqrstuvwxyz"
		"0123456789-") == n &&
	    s[0] != '-';
}

sw_err
sw_mcp_skill_read(const struct sw_mcp *m, const char *name, struct sw_buf *out,
    json_object **front)
{
	char path[700], chunk[4096];
	FILE *f;
	size_t n;
	sw_err e = SW_OK;

	if (front != NULL)
		*front = NULL;
	if (!skill_name_ok(name) || m->skills_dir[0] == '\0' ||
	    sw_fmt(path, sizeof(path), "%s/%s/SKILL.md", m->skills_dir, name) !=
		SW_OK)
		return SW_ENOTFOUND;
	if ((f = fopen(path, "r")) == NULL)
		return SW_ENOTFOUND;
	while (e == SW_OK && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		e = sw_buf_add(out, chunk, n);
	if (ferror(f))
		e = SW_EINTERNAL;
	fclose(f);
	if (e != SW_OK) {
		sw_warn("%s: %s", path,
		    e == SW_ETOOBIG ? "over the skill "
				      "size cap"
				    : "read error");
		return e;
	}
	if (front != NULL)
		*front = sw_mcp_skill_front(sw_buf_str(out));
	return SW_OK;
}

/* Copy s[0..n) trimmed into a new json string. */
static json_object *
trimmed(const char *s, size_t n)
{
	while (n > 0 && isspace((unsigned char)*s)) {
		s++;
		n--;
	}
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		n--;
	return json_object_new_string_len(s, (int)n);
}

json_object *
sw_mcp_skill_front(const char *text)
{
	json_object *fm = json_object_new_object(), *list = NULL;
	const char *p, *end, *eol, *colon, *h;
	struct sw_buf fold;
	char key[64] = "";
	int folding = 0;

	if (strncmp(text, "---\n", 4) != 0 ||
	    (end = strstr(text + 4, "\n---\n")) == NULL)
		return fm;
	sw_buf_init(&fold, SW_MCP_MAX_SKILL);
	for (p = text + 4; p < end; p = eol + 1) {
		if ((eol = memchr(p, '\n', (size_t)(end - p))) == NULL)
			eol = end;
		if (folding && p[0] == ' ') {
			if (fold.len > 0)
				(void)sw_buf_putc(&fold, ' ');
			while (p < eol && *p == ' ')
				p++;
			(void)sw_buf_add(&fold, p, (size_t)(eol - p));
			continue;
		}
		if (folding) {
			json_object_object_add(
			    fm, key, json_object_new_string(sw_buf_str(&fold)));
			sw_buf_reset(&fold);
			folding = 0;
		}
		if (strncmp(p, "  - ", 4) == 0 && list != NULL) {
			json_object_array_add(
			    list, trimmed(p + 4, (size_t)(eol - p - 4)));
			continue;
		}
		list = NULL;
		colon = memchr(p, ':', (size_t)(eol - p));
		if (colon == NULL || colon == p ||
		    (size_t)(colon - p) >= sizeof(key) ||
		    !islower((unsigned char)p[0]))
			continue;
		memcpy(key, p, (size_t)(colon - p));
		key[colon - p] = '\0';
		for (h = colon + 1; h < eol && *h == ' '; h++)
			;
		if (h == eol) {
			list = json_object_new_array();
			json_object_object_add(fm, key, list);
		} else if (eol - h == 2 && strncmp(h, ">-", 2) == 0)
			folding = 1;
		else
			json_object_object_add(
			    fm, key, trimmed(h, (size_t)(eol - h)));
	}
	if (folding)
		json_object_object_add(
		    fm, key, json_object_new_string(sw_buf_str(&fold)));
	sw_buf_free(&fold);
	/* The title is the body's first heading. */
	for (p = end + 5; p != NULL && *p != '\0'; p = eol ? eol + 1 : NULL) {
		eol = strchr(p, '\n');
		if (strncmp(p, "# ", 2) == 0) {
			json_object_object_add(fm, "title",
			    trimmed(p + 2,
				eol != NULL ? (size_t)(eol - p - 2)
					    : strlen(p + 2)));
			break;
		}
	}
	return fm;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

json_object *
sw_mcp_skills(const struct sw_mcp *m)
{
	json_object *arr = json_object_new_array(), *fm;
	char *names[SW_MCP_MAX_SKILLS];
	struct sw_buf md;
	struct dirent *d;
	size_t n = 0, i;
	DIR *dir;

	if (m->skills_dir[0] == '\0' || (dir = opendir(m->skills_dir)) == NULL)
		return arr;
	while ((d = readdir(dir)) != NULL && n < SW_MCP_MAX_SKILLS)
		if (skill_name_ok(d->d_name) &&
		    (names[n] = sw_strdup(d->d_name)) != NULL)
			n++;
	closedir(dir);
	qsort(names, n, sizeof(names[0]), name_cmp);
	for (i = 0; i < n; i++) {
		sw_buf_init(&md, SW_MCP_MAX_SKILL);
		if (sw_mcp_skill_read(m, names[i], &md, &fm) == SW_OK) {
			/* The folder names the skill, whatever it says. */
			sw_json_add_str(fm, "name", names[i]);
			if (sw_json_get_str(fm, "description") == NULL)
				sw_json_add_str(
				    fm, "description", "A Slipway skill.");
			json_object_array_add(arr, fm);
		}
		sw_buf_free(&md);
		free(names[i]);
	}
	return arr;
}

/* The argument every skill prompt takes. */
static json_object *
prompt_arguments(void)
{
	json_object *arr = json_object_new_array(), *a;

	a = json_object_new_object();
	sw_json_add_str(a, "name", "cluster");
	sw_json_add_str(a, "description",
	    "The cluster to work on (to "
	    "create, for the cluster creation skill); the model asks "
	    "when it is left out.");
	sw_json_add_bool(a, "required", 0);
	json_object_array_add(arr, a);
	return arr;
}

static json_object *
prompt_of(json_object *fm)
{
	json_object *p = json_object_new_object(), *meta;
	const char *v;

	sw_json_add_str(p, "name", sw_json_get_str(fm, "name"));
	if ((v = sw_json_get_str(fm, "title")) != NULL)
		sw_json_add_str(p, "title", v);
	sw_json_add_str(p, "description", sw_json_get_str(fm, "description"));
	json_object_object_add(p, "arguments", prompt_arguments());
	meta = json_object_new_object();
	if ((v = sw_json_get_str(fm, "version")) != NULL)
		sw_json_add_str(meta, "slipway/version", v);
	if ((v = sw_json_get_str(fm, "mode")) != NULL)
		sw_json_add_str(meta, "slipway/mode", v);
	json_object_object_add(p, "_meta", meta);
	return p;
}

json_object *
sw_mcp_prompt_list(const struct sw_mcp *m)
{
	json_object *skills = sw_mcp_skills(m), *arr;
	size_t i;

	arr = json_object_new_array();
	for (i = 0; i < json_object_array_length(skills); i++)
		json_object_array_add(
		    arr, prompt_of(json_object_array_get_idx(skills, i)));
	json_object_put(skills);
	return arr;
}

/* A skill prompt takes one optional string argument, cluster. */
static int
arguments_ok(json_object *arguments, char *why, size_t whysz)
{
	json_object_object_foreach(arguments, k, val)
	{
		if (strcmp(k, "cluster") != 0) {
			sw_fmt_text(why, whysz,
			    "unknown argument '%.64s' (a "
			    "skill prompt takes cluster)",
			    k);
			return 0;
		}
		if (!json_object_is_type(val, json_type_string)) {
			sw_fmt_text(why, whysz, "cluster must be a string");
			return 0;
		}
	}
	return 1;
}

sw_err
sw_mcp_prompt_get(const struct sw_mcp *m, const char *name,
    json_object *arguments, json_object **result, char *why, size_t whysz)
{
	json_object *fm = NULL, *res, *msgs, *msg, *content, *v, *meta;
	const char *cluster = NULL, *version;
	struct sw_buf md, text;
	sw_err e;

	*result = NULL;
	if (arguments != NULL &&
	    !json_object_is_type(arguments, json_type_object)) {
		sw_fmt_text(why, whysz, "arguments must be an object");
		return SW_EINVAL;
	}
	if (arguments != NULL && !arguments_ok(arguments, why, whysz))
		return SW_EINVAL;
	if ((v = sw_json_get(arguments, "cluster")) != NULL &&
	    (cluster = json_object_get_string(v))[0] == '\0')
		cluster = NULL;
	sw_buf_init(&md, SW_MCP_MAX_SKILL);
	if ((e = sw_mcp_skill_read(m, name, &md, &fm)) != SW_OK) {
		sw_fmt_text(why, whysz, "unknown prompt '%.128s'", name);
		sw_buf_free(&md);
		return SW_ENOTFOUND;
	}
	version = sw_json_get_str(fm, "version");
	sw_buf_init(&text, SW_MCP_MAX_SKILL + 1024);
	(void)sw_buf_printf(&text,
	    "Follow the Slipway skill \"%s\" "
	    "(version %s) below%s%s%s, with the Slipway MCP tools it names.\n"
	    "\n",
	    name, version ? version : "unversioned",
	    cluster ? " for the cluster \"" : "", cluster ? cluster : "",
	    cluster ? "\"" : "");
	if (sw_buf_add(&text, md.data, md.len) != SW_OK) {
		sw_fmt_text(why, whysz, "the skill is larger than a prompt");
		e = SW_EINTERNAL;
		goto out;
	}
	content = json_object_new_object();
	sw_json_add_str(content, "type", "text");
	sw_json_add_str(content, "text", sw_buf_str(&text));
	msg = json_object_new_object();
	sw_json_add_str(msg, "role", "user");
	json_object_object_add(msg, "content", content);
	msgs = json_object_new_array();
	json_object_array_add(msgs, msg);
	res = json_object_new_object();
	sw_json_add_str(res, "description", sw_json_get_str(fm, "description"));
	json_object_object_add(res, "messages", msgs);
	meta = json_object_new_object();
	if (version != NULL)
		sw_json_add_str(meta, "slipway/version", version);
	json_object_object_add(res, "_meta", meta);
	*result = res;
out:
	json_object_put(fm);
	sw_buf_free(&md);
	sw_buf_free(&text);
	return e;
}
