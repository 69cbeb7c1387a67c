/*
 * access.c: a cluster's Kubernetes access following the teams
 * (team_access_get, team_access_set).  With it on, every configured
 * team.<team>.<role>.iam_role_arn has an EKS access entry whose access
 * policy is scoped to the team's namespace, so kubectl as that role sees
 * what Slipway shows the role and no more.  The entries asked for are
 * read from the operator's slipway.conf when the request comes (an
 * edited team line applies at the next team_access_set, no restart),
 * else from config.json; the team_access.set pipeline
 * (pipelines/access.c) reconciles the live entries to them.
 */
#include <stdlib.h>
#include <string.h>

#include "handlers/handlers.h"
#include "lib/alloc.h"
#include "lib/conf.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/teams.h"
#include "lib/valid.h"
#include "pipelines/pipeline.h"

/* One EKS read; on failure the problem is filled. */
static sw_err
eks_read(struct sw_req *r, const char *op, json_object *in, json_object **out)
{
	struct aws_error err;
	sw_err e;

	memset(&err, 0, sizeof(err));
	if ((e = h_call(r, AWS_SVC_EKS, op, in, out, &err)) == SW_OK)
		return SW_OK;
	return h_aws_fail(r, AWS_SVC_EKS, op, e, &err);
}

/* The entries the configuration asks for, into *out (new); SW_OK or a
 * 422 naming the line. */
static sw_err
asked_entries(struct sw_req *r, json_object **out)
{
	const char *path = sw_json_get_str(r->cfg->root, "conf_file");
	json_object *file = NULL;
	char why[300];

	if (path != NULL &&
	    sw_conf_file_load(path, &file, why, sizeof(why)) != SW_OK) {
		sw_warn("team access: %s: %s; using the configuration read "
			"at start",
		    path, why);
		file = NULL;
	}
	*out = sw_team_access_entries(
	    file ? file : r->cfg->root, why, sizeof(why));
	json_object_put(file);
	if (*out != NULL)
		return SW_OK;
	sw_ferr_add(&r->ferrs, "enabled", "one_entry_per_principal", "%s", why);
	return sw_req_fail(r, SW_EPRECONDITION, "%s", why);
}

/* The asked item (borrowed) of principal in a, or NULL. */
static json_object *
find_principal(json_object *a, const char *principal)
{
	size_t i;

	for (i = 0; a && i < json_object_array_length(a); i++)
		if (strcmp(sw_json_get_str(
			       json_object_array_get_idx(a, i), "principal_arn")
			    ?: "",
			principal) == 0)
			return json_object_array_get_idx(a, i);
	return NULL;
}

/* Does live policy p carry asked item e's policy and scope? */
static int
policy_matches(json_object *p, json_object *e)
{
	json_object *ns = sw_json_path(p, "accessScope.namespaces");

	return strcmp(sw_json_get_str(p, "policyArn") ?: "",
		   sw_json_get_str(e, "policy_arn")) == 0 &&
	    strcmp(sw_json_path_str(p, "accessScope.type") ?: "",
		sw_json_get_str(e, "scope")) == 0 &&
	    json_object_equal(ns ? ns : sw_json_get(e, "namespaces"),
		sw_json_get(e, "namespaces"));
}

/*
 * One live entry of ours (tag "team/role") against the asked ones: the
 * asked item it is gets state present or differs (its live policies in
 * "live_policies"); one nobody asks for is added as stale.
 */
static sw_err
live_entry(struct sw_req *r, const char *cluster, const char *principal,
    const char *tag, json_object *items)
{
	json_object *e = find_principal(items, principal), *out, *pols;
	const char *slash = strchr(tag, '/');
	size_t i;
	int ok = 0;

	if (eks_read(r, "ListAssociatedAccessPolicies",
		sw_jo("clusterName", sw_js(cluster), "principalArn",
		    sw_js(principal), NULL),
		&out) != SW_OK)
		return r->err;
	pols = sw_json_get(out, "associatedAccessPolicies");
	if (e == NULL) {
		e = sw_jo("team",
		    slash ? sw_jsf("%.*s", (int)(slash - tag), tag)
			  : sw_js(tag),
		    "role", sw_js(slash ? slash + 1 : ""), "principal_arn",
		    sw_js(principal), NULL);
		json_object_array_add(items, e);
		sw_json_add_str(e, "state", "stale");
	} else {
		for (i = 0; pols && i < json_object_array_length(pols); i++)
			ok |= policy_matches(
			    json_object_array_get_idx(pols, i), e);
		sw_json_add_str(e, "state",
		    ok && json_object_array_length(pols) == 1 ? "present"
							      : "differs");
	}
	json_object_object_add(e, "live_policies",
	    pols ? json_object_get(pols) : json_object_new_array());
	json_object_put(out);
	return SW_OK;
}

/* The live entries of ours set against the asked ones in items. */
static sw_err
live_entries(struct sw_req *r, const char *cluster, json_object *items)
{
	json_object *out, *list, *d;
	const char *next = NULL, *tag;
	char *tok = NULL;
	size_t i;
	sw_err e = SW_OK;

	do {
		if (eks_read(r, "ListAccessEntries",
			sw_jo("clusterName", sw_js(cluster), "nextToken",
			    sw_js(tok), NULL),
			&out) != SW_OK) {
			free(tok);
			return r->err;
		}
		list = sw_json_get(out, "accessEntries");
		for (i = 0;
		     e == SW_OK && list && i < json_object_array_length(list);
		     i++) {
			const char *p = json_object_get_string(
			    json_object_array_get_idx(list, i));

			if ((e = eks_read(r, "DescribeAccessEntry",
				 sw_jo("clusterName", sw_js(cluster),
				     "principalArn", sw_js(p), NULL),
				 &d)) != SW_OK)
				break;
			tag =
			    sw_json_get_str(sw_json_path(d, "accessEntry.tags"),
				SW_TAG_TEAM_ACCESS);
			if (tag != NULL)
				e = live_entry(r, cluster, p, tag, items);
			json_object_put(d);
		}
		free(tok);
		next = sw_json_get_str(out, "nextToken");
		tok = next != NULL ? sw_strdup(next) : NULL;
		if (next != NULL && tok == NULL && e == SW_OK)
			e = sw_req_fail(r, SW_ENOMEM, "out of memory");
		json_object_put(out);
	} while (e == SW_OK && tok != NULL);
	free(tok);
	return e;
}

sw_err
h_team_access_get(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "name"), *flag, *mode;
	json_object *desc, *items;
	size_t i;

	if (eks_read(r, "DescribeCluster", sw_jo("name", sw_js(name), NULL),
		&desc) != SW_OK)
		return r->err;
	mode = sw_json_path_str(desc, "cluster.accessConfig.authenticationMode")
	    ?: "CONFIG_MAP";
	/* CONFIG_MAP alone: EKS has no access entries to read */
	if (asked_entries(r, &items) != SW_OK ||
	    (strcmp(mode, "CONFIG_MAP") != 0 &&
		live_entries(r, name, items) != SW_OK)) {
		json_object_put(desc);
		json_object_put(items);
		return r->err;
	}
	for (i = 0; i < json_object_array_length(items); i++) {
		json_object *e = json_object_array_get_idx(items, i);

		if (sw_json_get(e, "state") == NULL) {
			sw_json_add_str(e, "state", "missing");
			json_object_object_add(
			    e, "live_policies", json_object_new_array());
		}
	}
	flag = sw_json_get_str(
	    sw_json_path(desc, "cluster.tags"), SW_TAG_TEAM_ACCESS);
	sw_req_reply(r, 200,
	    sw_jo("cluster", sw_js(name), "enabled",
		sw_jb(flag != NULL && strcmp(flag, "on") == 0),
		"authentication_mode", sw_js(mode), "items", items, NULL));
	json_object_put(desc);
	return SW_OK;
}

/* Refuse it where EKS has no access entries (CONFIG_MAP alone). */
static sw_err
check_mode(struct sw_req *r, const char *name)
{
	json_object *desc;
	const char *mode;
	sw_err e = SW_OK;

	if (eks_read(r, "DescribeCluster", sw_jo("name", sw_js(name), NULL),
		&desc) != SW_OK)
		return r->err;
	mode = sw_json_path_str(desc, "cluster.accessConfig.authenticationMode")
	    ?: "CONFIG_MAP";
	if (strcmp(mode, "API") != 0 && strcmp(mode, "API_AND_CONFIG_MAP")) {
		sw_ferr_add(&r->ferrs, "enabled", "authentication_mode",
		    "EKS cluster %s authenticates with %s only; access "
		    "entries need authenticationMode API or API_AND_CONFIG_MAP "
		    "(aws eks update-cluster-config --access-config "
		    "authenticationMode=API_AND_CONFIG_MAP)",
		    name, mode);
		e = sw_req_fail(r, SW_EPRECONDITION,
		    "team access needs EKS "
		    "access entries: cluster %s's authenticationMode is %s",
		    name, mode);
	}
	json_object_put(desc);
	return e;
}

sw_err
h_team_access_set(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "name");
	int on = sw_json_get_bool(r->args, "enabled", 0);
	json_object *entries, *input;
	sw_err e;

	if (check_mode(r, name) != SW_OK || asked_entries(r, &entries) != SW_OK)
		return r->err;
	if (on && json_object_array_length(entries) == 0) {
		json_object_put(entries);
		sw_ferr_add(&r->ferrs, "enabled", "iam_role_arn",
		    "no "
		    "team.<team>.<role>.iam_role_arn line is configured: "
		    "each names the IAM role a team's members of that role "
		    "assume");
		return sw_req_fail(r, SW_EPRECONDITION,
		    "no team role has an "
		    "IAM role ARN configured");
	}
	input = r->args;
	r->args = sw_jo("name", sw_js(name), "enabled", sw_jb(on), "entries",
	    entries, NULL);
	e = h_start(r, "team_access.set", name, name);
	json_object_put(input);
	return e;
}
