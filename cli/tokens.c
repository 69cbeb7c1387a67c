/*
 * tokens.c: `slipway token create|list|revoke` (see tokens.h): the
 * admin's way to make and revoke API tokens straight in state.db, with
 * no server running.
 */
#include <sys/stat.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/tokens.h"
#include "lib/auth.h"
#include "lib/conf.h"
#include "lib/db.h"
#include "lib/json.h"
#include "api/optable.h"

static int
open_db(const char *state_dir, struct sw_db **db)
{
	struct sw_config cfg;
	int rc = 0;

	if (mkdir(state_dir, 0700) != 0 && errno != EEXIST) {
		fprintf(stderr, "slipway: cannot create %s\n", state_dir);
		return -1;
	}
	/* config.json names the database when it is not state.db */
	if (sw_config_load(state_dir, &cfg) != SW_OK) {
		fprintf(
		    stderr, "slipway: cannot read %s/config.json\n", state_dir);
		rc = -1;
	} else if (sw_db_open(cfg.db_path, db) != SW_OK) {
		fprintf(stderr, "slipway: cannot open %s\n",
		    sw_db_is_pg_url(cfg.db_path) ? "the PostgreSQL database"
						 : cfg.db_path);
		rc = -1;
	}
	sw_config_free(&cfg);
	return rc;
}

/* --team/--role/--ttl into the live token name, after it is made. */
static sw_err
make_account(struct sw_db *db, const struct sw_cli_tok *o)
{
	int64_t expires =
	    o->ttl > 0 ? sw_db_now_ms(db) + (int64_t)o->ttl * 1000 : 0;

	if (o->team[0] == '\0' && expires == 0)
		return SW_OK;
	return sw_token_set_team(db, o->name, o->team[0] ? o->team : NULL,
	    sw_role_parse(o->role), expires);
}

/* The scope of a token to create, or NONE (said why on stderr). */
static enum sw_scope
create_scope(const struct sw_cli_tok *o)
{
	enum sw_role role = sw_role_parse(o->role);

	if ((o->team[0] != '\0') != (role != SW_ROLE_NONE)) {
		fprintf(stderr,
		    "slipway: a service account needs both --team "
		    "and --role viewer|operator|platform-admin\n");
		return SW_SCOPE_NONE;
	}
	if (role != SW_ROLE_NONE && o->scope[0] != '\0' &&
	    sw_scope_parse(o->scope) != sw_role_scope(role)) {
		fprintf(stderr, "slipway: a %s's scope is %s\n",
		    sw_role_name(role), sw_scope_name(sw_role_scope(role)));
		return SW_SCOPE_NONE;
	}
	if (role != SW_ROLE_NONE)
		return sw_role_scope(role);
	if (sw_scope_parse(o->scope) == SW_SCOPE_NONE)
		fprintf(stderr,
		    "slipway: token create needs --scope "
		    "read|write|admin (or --team and --role) and --name "
		    "NAME\n");
	return sw_scope_parse(o->scope);
}

int
sw_cli_token(const char *state_dir, const char *sub, const struct sw_cli_tok *o)
{
	const char *name = o->name, *tools = o->tools;
	int json = o->json;
	char tok[SW_TOKEN_LEN];
	struct sw_db *db;
	json_object *list;
	enum sw_scope scope;
	size_t i;
	sw_err e;
	int rc = 1;

	if (open_db(state_dir, &db) != 0)
		return 1;
	if (strcmp(sub, "create") == 0) {
		if ((scope = create_scope(o)) == SW_SCOPE_NONE)
			goto out;
		if (name[0] == '\0') {
			fprintf(stderr,
			    "slipway: token create needs --name "
			    "NAME\n");
			goto out;
		}
		if (tools[0] != '\0' && !sw_tool_classes_ok(tools)) {
			fprintf(stderr,
			    "slipway: --tools takes a comma list "
			    "of read-only, diagnose and tool tags (clusters, "
			    "workloads, nodes...)\n");
			goto out;
		}
		e = sw_token_create(db, name, scope, tok);
		if (e == SW_OK &&
		    ((tools[0] != '\0' &&
			 sw_token_set_tools(db, name, tools) != SW_OK) ||
			make_account(db, o) != SW_OK)) {
			(void)sw_token_revoke(db, name, NULL);
			e = SW_EINTERNAL;
		}
		if (e == SW_ECONFLICT)
			fprintf(stderr, "slipway: a token named '%s' exists\n",
			    name);
		else if (e == SW_EINVAL)
			fprintf(stderr,
			    "slipway: token names are 1 to 64 of "
			    "[A-Za-z0-9._-]\n");
		else if (e != SW_OK)
			fprintf(stderr, "slipway: cannot create the token\n");
		else {
			printf("%s\n", tok);
			rc = 0;
		}
	} else if (strcmp(sub, "list") == 0) {
		if (sw_token_list(db, NULL, &list) != SW_OK)
			goto out;
		if (json)
			printf("%s\n", sw_json_pretty(list));
		else
			for (i = 0; i < json_object_array_length(list); i++) {
				json_object *t =
				    json_object_array_get_idx(list, i);

				printf("%-24s %-6s%s%s%s%s%s\n",
				    sw_json_get_str(t, "name"),
				    sw_json_get_str(t, "scope"),
				    sw_json_get_str(t, "team") ? " team " : "",
				    sw_json_get_str(t, "team")
					? sw_json_get_str(t, "team")
					: "",
				    sw_json_get_str(t, "role") ? " " : "",
				    sw_json_get_str(t, "role")
					? sw_json_get_str(t, "role")
					: "",
				    sw_json_get_bool(t, "revoked", 0)
					? " revoked"
					: "");
			}
		json_object_put(list);
		rc = 0;
	} else if (strcmp(sub, "revoke") == 0) {
		if (name[0] == '\0') {
			fprintf(stderr, "slipway: token revoke needs --name\n");
			goto out;
		}
		e = sw_token_revoke(db, name, NULL);
		if (e == SW_ENOTFOUND)
			fprintf(stderr, "slipway: no live token named '%s'\n",
			    name);
		else if (e == SW_OK) {
			printf("slipway: revoked %s\n", name);
			rc = 0;
		}
	} else
		rc = 2;
out:
	sw_db_close(db);
	return rc;
}
