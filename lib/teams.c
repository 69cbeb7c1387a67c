/*
 * teams.c: a principal's teams and roles (from its service account, or
 * from the provider's groups through the configuration's mapping), and
 * the team rule (lib/teams.h) every face asks before a request runs.
 */
#include <stdio.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/json.h"
#include "lib/teams.h"

/* Is group one of the comma list groups? */
static int
in_groups(const char *groups, const char *group)
{
	size_t n = strlen(group);
	const char *p = groups;

	while (n > 0 && p != NULL && *p != '\0') {
		if (strncmp(p, group, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return 1;
		p = strchr(p, ',');
		p = p != NULL ? p + 1 : NULL;
	}
	return 0;
}

/* The highest role the groups of team's mapping give. */
static enum sw_role
team_role(json_object *roles, const char *groups)
{
	enum sw_role best = SW_ROLE_NONE, r;
	size_t i;

	if (!json_object_is_type(roles, json_type_object))
		return SW_ROLE_NONE;
	json_object_object_foreach(roles, role, list)
	{
		r = sw_role_parse(role);
		if (!json_object_is_type(list, json_type_array))
			continue;
		for (i = 0; i < json_object_array_length(list); i++)
			if (r > best &&
			    in_groups(groups,
				json_object_get_string(
				    json_object_array_get_idx(list, i))))
				best = r;
	}
	return best;
}

int
sw_principal_teams(const struct sw_config *cfg, const struct sw_principal *p,
    struct sw_membership *m, int max)
{
	json_object *teams =
	    cfg != NULL ? sw_json_get(cfg->root, "teams") : NULL;
	enum sw_role r;
	int n = 0;

	if (p->team[0] != '\0') {
		if (max < 1)
			return 0;
		memcpy(m[0].team, p->team, sizeof(m[0].team));
		m[0].role = p->role;
		return 1;
	}
	if (!p->via_provider || teams == NULL ||
	    !json_object_is_type(teams, json_type_object))
		return -1;
	json_object_object_foreach(teams, team, roles)
	{
		if (n >= max || strlen(team) > SW_MAX_TEAM ||
		    (r = team_role(roles, p->groups)) == SW_ROLE_NONE)
			continue;
		memcpy(m[n].team, team, strlen(team) + 1);
		m[n++].role = r;
	}
	return n;
}

/* The role of team among m[0..n), NONE when it is not one of them. */
static enum sw_role
role_in(const struct sw_membership *m, int n, const char *team)
{
	int i;

	for (i = 0; team != NULL && i < n; i++)
		if (strcmp(m[i].team, team) == 0)
			return m[i].role;
	return SW_ROLE_NONE;
}

static const char *
team_denied(char *why, size_t whysz, const struct sw_rule_row *row,
    const struct sw_principal *who, enum sw_role need, const char *team,
    enum sw_role has)
{
	if (team == NULL)
		sw_fmt_text(why, whysz,
		    "rule %s: %s needs role %s in the "
		    "team it is for, and the request names no team of '%s'",
		    sw_touch_name(row->touch), row->name, sw_role_name(need),
		    who->name);
	else
		sw_fmt_text(why, whysz,
		    "rule %s: %s needs role %s in team "
		    "'%s'; '%s' has %s there",
		    sw_touch_name(row->touch), row->name, sw_role_name(need),
		    team, who->name, sw_role_name(has));
	return why;
}

/* PLATFORM rows without a team argument: platform-admin of any team. */
static const char *
platform_rule(const struct sw_rule_row *row, const struct sw_principal *who,
    const struct sw_membership *m, int n, char *why, size_t whysz)
{
	enum sw_role best = SW_ROLE_NONE;
	int i;

	for (i = 0; i < n; i++)
		if (m[i].role > best)
			best = m[i].role;
	if (best >= SW_ROLE_PLATFORM_ADMIN)
		return NULL;
	sw_fmt_text(why, whysz,
	    "rule platform: %s needs role platform-admin "
	    "in a team; '%s' has at most %s",
	    row->name, who->name, sw_role_name(best));
	return why;
}

const char *
sw_team_rule(const struct sw_config *cfg, const struct sw_principal *who,
    const struct sw_rule_row *row, const char *team, char *why, size_t whysz)
{
	struct sw_membership m[SW_MAX_MEMBERSHIPS];
	enum sw_role need;
	int n = sw_principal_teams(cfg, who, m, SW_MAX_MEMBERSHIPS);

	if (n < 0) {
		if (who->scope >= row->scope)
			return NULL;
		sw_fmt_text(why, whysz, "%s needs scope %s; token '%s' has %s",
		    row->name, sw_scope_name(row->scope), who->name,
		    sw_scope_name(who->scope));
		return why;
	}
	switch (row->touch) {
	case SW_TOUCH_SELF:
		return NULL;
	case SW_TOUCH_CLUSTER:
		if (n > 0)
			return NULL;
		sw_fmt_text(why, whysz,
		    "rule cluster: %s reads the clusters' "
		    "summaries, which a member of any team may; '%s' is in "
		    "no team",
		    row->name, who->name);
		return why;
	case SW_TOUCH_TEAM:
		need = row->readonly ? SW_ROLE_VIEWER : SW_ROLE_OPERATOR;
		break;
	case SW_TOUCH_PLATFORM:
		if (!row->team_arg)
			return platform_rule(row, who, m, n, why, whysz);
		need = SW_ROLE_PLATFORM_ADMIN;
		break;
	default:
		sw_fmt_text(why, whysz, "%s names no touch", row->name);
		return why;
	}
	if (role_in(m, n, team) >= need)
		return NULL;
	return team_denied(
	    why, whysz, row, who, need, team, role_in(m, n, team));
}

/* The EKS access policy of a role and whether it is namespaced. */
static const char *
access_policy(enum sw_role r, int *namespaced)
{
	*namespaced = r != SW_ROLE_PLATFORM_ADMIN;
	switch (r) {
	case SW_ROLE_VIEWER:
		return SW_EKS_POLICY_PREFIX "AmazonEKSViewPolicy";
	case SW_ROLE_OPERATOR:
		return SW_EKS_POLICY_PREFIX "AmazonEKSEditPolicy";
	default:
		return SW_EKS_POLICY_PREFIX "AmazonEKSClusterAdminPolicy";
	}
}

/* Is principal already the principal_arn of an item of a? */
static int
principal_taken(json_object *a, const char *principal)
{
	size_t i;

	for (i = 0; i < json_object_array_length(a); i++)
		if (strcmp(sw_json_get_str(
			       json_object_array_get_idx(a, i), "principal_arn")
			    ?: "",
			principal) == 0)
			return 1;
	return 0;
}

/* One team's entries (roles: {role: arn}) onto a; NULL or why. */
static const char *
team_entries(json_object *a, const char *team, json_object *roles, char *why,
    size_t whysz)
{
	const char *arn, *pol;
	enum sw_role r;
	int ns;

	json_object_object_foreach(roles, role, v)
	{
		arn = json_object_get_string(v);
		if ((r = sw_role_parse(role)) == SW_ROLE_NONE || arn == NULL)
			continue;
		if (principal_taken(a, arn)) {
			sw_fmt_text(why, whysz,
			    "team.%s.%s.iam_role_arn: %s "
			    "is given to another team or role too; EKS has one "
			    "access entry per principal",
			    team, role, arn);
			return why;
		}
		pol = access_policy(r, &ns);
		json_object_array_add(a,
		    sw_jo("team", sw_js(team), "role", sw_js(sw_role_name(r)),
			"principal_arn", sw_js(arn), "policy_arn", sw_js(pol),
			"scope", sw_js(ns ? "namespace" : "cluster"),
			"namespaces",
			ns ? sw_ja(sw_jsf("%s%s", SW_TEAM_NS_PREFIX, team))
			   : json_object_new_array(),
			NULL));
	}
	return NULL;
}

json_object *
sw_team_access_entries(json_object *root, char *why, size_t whysz)
{
	json_object *all = sw_json_get(root, "team_iam");
	json_object *a = json_object_new_array();

	if (!json_object_is_type(all, json_type_object))
		return a;
	json_object_object_foreach(all, team, roles)
	{
		if (!json_object_is_type(roles, json_type_object))
			continue;
		if (team_entries(a, team, roles, why, whysz) != NULL) {
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}
