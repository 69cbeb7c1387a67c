/*
 * access.c: the team_access.set pipeline, a cluster's Kubernetes access
 * following the teams: one EKS access entry per configured team role
 * (team.<team>.<role>.iam_role_arn), its access policy scoped to the
 * team's namespace, reconciled against what is live.
 *
 *   flag     the EKS cluster's tag slipway:team-access = on or off
 *            (TagResource, only when it differs)
 *   remove   entries of ours (tagged slipway:team-access) that are not
 *            asked for, or every one of ours when turning it off:
 *            DeleteAccessEntry (which drops their policies)
 *   add      each asked entry: CreateAccessEntry when missing (an entry
 *            of the same principal that is not ours stops the run),
 *            then policies other than the asked one disassociated and
 *            the asked one associated with its scope when it differs
 *
 * params: {name, enabled, entries: [{team, role, principal_arn,
 * policy_arn, scope, namespaces}]}; the handler (handlers/access.c)
 * read the entries from the configuration (sw_team_access_entries).
 * Every stage reads the live state first, so a resumed or repeated run
 * sends only what is still missing.
 */
#include <string.h>

#include "lib/buf.h"
#include "lib/json.h"
#include "pipelines/pipelines.h"
#include "pipelines/stepkit.h"

#define ENABLED(s) sw_json_get_bool((s)->params, "enabled", 0)
#define ENTRIES(s) sw_json_get((s)->params, "entries")

/* "team/role", the tag value of an entry of ours. */
static void
entry_tag(json_object *e, char *out, size_t sz)
{
	sw_fmt_text(out, sz, "%s/%s", sw_json_get_str(e, "team") ?: "",
	    sw_json_get_str(e, "role") ?: "");
}

/* The asked entry (borrowed) for principal, or NULL. */
static json_object *
asked(struct sw_step *s, const char *principal)
{
	json_object *a = ENTRIES(s);
	size_t i;

	if (!ENABLED(s))
		return NULL;
	for (i = 0; a && i < json_object_array_length(a); i++)
		if (strcmp(sw_json_get_str(
			       json_object_array_get_idx(a, i), "principal_arn")
			    ?: "",
			principal) == 0)
			return json_object_array_get_idx(a, i);
	return NULL;
}

static enum sw_step_rc
stage_flag(struct sw_step *s)
{
	const char *want = ENABLED(s) ? "on" : "off", *arn, *have;
	json_object *out;

	TRY(sw_step_aws(s, AWS_SVC_EKS, "DescribeCluster",
	    sw_jo("name", sw_js(CLUSTER(s)), NULL), &out, NULL));
	arn = sw_keep(s, sw_json_path_str(out, "cluster.arn"));
	have = sw_json_get_str(
	    sw_json_path(out, "cluster.tags"), SW_TAG_TEAM_ACCESS);
	if (have != NULL && strcmp(have, want) == 0) {
		json_object_put(out);
		sw_res_set(s, "team_access", want);
		return STEP_DONE;
	}
	json_object_put(out);
	if (arn == NULL)
		return sw_step_fail(s, "EKS cluster %s has no ARN", CLUSTER(s));
	TRY(sw_step_aws(s, AWS_SVC_EKS, "TagResource",
	    sw_jo("resourceArn", sw_js(arn), "tags",
		sw_jo(SW_TAG_CLUSTER, sw_js(CLUSTER(s)), SW_TAG_TEAM_ACCESS,
		    sw_js(want), NULL),
		NULL),
	    &out, NULL));
	json_object_put(out);
	sw_res_set(s, "team_access", want);
	return STEP_DONE;
}

/* The access entry of principal (new reference in *out, NULL when
 * there is none). */
static enum sw_step_rc
describe_entry(struct sw_step *s, const char *principal, json_object **out)
{
	TRY(sw_step_aws_ok(s, AWS_SVC_EKS, "DescribeAccessEntry",
	    sw_jo("clusterName", sw_js(CLUSTER(s)), "principalArn",
		sw_js(principal), NULL),
	    out, "ResourceNotFoundException"));
	if (sw_json_get(*out, "accessEntry") == NULL) {
		json_object_put(*out);
		*out = NULL;
	}
	return STEP_DONE;
}

/* One listed principal: deleted when it is ours and not asked for. */
static enum sw_step_rc
remove_one(struct sw_step *s, const char *principal, int *removed)
{
	json_object *e, *out, *want;
	const char *tag;
	char wtag[128];

	TRY(describe_entry(s, principal, &e));
	tag = e ? sw_json_get_str(
		      sw_json_path(e, "accessEntry.tags"), SW_TAG_TEAM_ACCESS)
		: NULL;
	want = asked(s, principal);
	if (want != NULL)
		entry_tag(want, wtag, sizeof(wtag));
	if (tag == NULL || (want != NULL && strcmp(tag, wtag) == 0)) {
		json_object_put(e);
		return STEP_DONE;
	}
	json_object_put(e);
	TRY(sw_step_aws_ok(s, AWS_SVC_EKS, "DeleteAccessEntry",
	    sw_jo("clusterName", sw_js(CLUSTER(s)), "principalArn",
		sw_js(principal), NULL),
	    &out, "ResourceNotFoundException"));
	json_object_put(out);
	(*removed)++;
	return STEP_DONE;
}

static enum sw_step_rc
stage_remove(struct sw_step *s)
{
	json_object *out, *list;
	const char *next = NULL;
	char count[16];
	int removed = 0;
	size_t i;

	do {
		TRY(sw_step_aws(s, AWS_SVC_EKS, "ListAccessEntries",
		    sw_jo("clusterName", sw_js(CLUSTER(s)), "nextToken",
			sw_js(next), NULL),
		    &out, NULL));
		list = sw_json_get(out, "accessEntries");
		for (i = 0; list && i < json_object_array_length(list); i++) {
			enum sw_step_rc rc = remove_one(s,
			    json_object_get_string(
				json_object_array_get_idx(list, i)),
			    &removed);

			if (rc != STEP_DONE) {
				json_object_put(out);
				return rc;
			}
		}
		next = sw_keep(s, sw_json_get_str(out, "nextToken"));
		json_object_put(out);
	} while (next != NULL);
	sw_fmt_text(count, sizeof(count), "%d", removed);
	sw_res_set(s, "removed", count);
	return STEP_DONE;
}

/* Does policy p (an associatedAccessPolicies item) have e's scope? */
static int
same_scope(json_object *p, json_object *e)
{
	json_object *have = sw_json_path(p, "accessScope.namespaces");
	json_object *want = sw_json_get(e, "namespaces");
	size_t i, n = want ? json_object_array_length(want) : 0;

	if (strcmp(sw_json_path_str(p, "accessScope.type") ?: "",
		sw_json_get_str(e, "scope") ?: "") != 0 ||
	    (have ? json_object_array_length(have) : 0) != n)
		return 0;
	for (i = 0; i < n; i++)
		if (strcmp(json_object_get_string(
			       json_object_array_get_idx(have, i))
			    ?: "",
			json_object_get_string(
			    json_object_array_get_idx(want, i))
			    ?: "") != 0)
			return 0;
	return 1;
}

/* Policies of an existing entry: others dropped, e's made to match. */
static enum sw_step_rc
policies(struct sw_step *s, json_object *e, int *ok)
{
	const char *principal = sw_json_get_str(e, "principal_arn");
	const char *want = sw_json_get_str(e, "policy_arn"), *arn;
	json_object *out, *list, *p, *o2;
	enum sw_step_rc rc = STEP_DONE;
	size_t i;

	TRY(sw_step_aws(s, AWS_SVC_EKS, "ListAssociatedAccessPolicies",
	    sw_jo("clusterName", sw_js(CLUSTER(s)), "principalArn",
		sw_js(principal), NULL),
	    &out, NULL));
	list = sw_json_get(out, "associatedAccessPolicies");
	*ok = 0;
	for (i = 0;
	     rc == STEP_DONE && list && i < json_object_array_length(list);
	     i++) {
		p = json_object_array_get_idx(list, i);
		arn = sw_json_get_str(p, "policyArn") ?: "";
		if (strcmp(arn, want) == 0) {
			*ok = same_scope(p, e);
			continue;
		}
		rc = sw_step_aws_ok(s, AWS_SVC_EKS, "DisassociateAccessPolicy",
		    sw_jo("clusterName", sw_js(CLUSTER(s)), "principalArn",
			sw_js(principal), "policyArn", sw_js(arn), NULL),
		    &o2, "ResourceNotFoundException");
		if (rc == STEP_DONE)
			json_object_put(o2);
	}
	json_object_put(out);
	return rc;
}

/* One asked entry made and given its policy. */
static enum sw_step_rc
add_one(struct sw_step *s, json_object *e)
{
	const char *principal = sw_json_get_str(e, "principal_arn");
	json_object *cur, *out;
	char tag[128], group[160];
	int ok = 0;

	entry_tag(e, tag, sizeof(tag));
	TRY(describe_entry(s, principal, &cur));
	if (cur != NULL &&
	    sw_json_get_str(sw_json_path(cur, "accessEntry.tags"),
		SW_TAG_TEAM_ACCESS) == NULL) {
		json_object_put(cur);
		return sw_step_fail(s,
		    "the access entry of %s (team.%s) is "
		    "not Slipway's; delete it or give the team another role "
		    "ARN",
		    principal, tag);
	}
	if (cur == NULL) {
		sw_fmt_text(group, sizeof(group), "slipway:%s:%s",
		    sw_json_get_str(e, "team") ?: "",
		    sw_json_get_str(e, "role") ?: "");
		TRY(sw_step_aws_ok(s, AWS_SVC_EKS, "CreateAccessEntry",
		    sw_jo("clusterName", sw_js(CLUSTER(s)), "principalArn",
			sw_js(principal), "type", sw_js("STANDARD"),
			"kubernetesGroups", sw_ja(sw_js(group)), "tags",
			sw_jo(SW_TAG_TEAM_ACCESS, sw_js(tag), SW_TAG_MANAGED,
			    sw_js("true"), NULL),
			NULL),
		    &out, "ResourceInUseException"));
		json_object_put(out);
	} else {
		json_object_put(cur);
		TRY(policies(s, e, &ok));
	}
	if (ok)
		return STEP_DONE;
	TRY(sw_step_aws(s, AWS_SVC_EKS, "AssociateAccessPolicy",
	    sw_jo("clusterName", sw_js(CLUSTER(s)), "principalArn",
		sw_js(principal), "policyArn",
		sw_js(sw_json_get_str(e, "policy_arn")), "accessScope",
		sw_jo("type", sw_js(sw_json_get_str(e, "scope")), "namespaces",
		    json_object_get(sw_json_get(e, "namespaces")), NULL),
		NULL),
	    &out, NULL));
	json_object_put(out);
	return STEP_DONE;
}

static enum sw_step_rc
stage_add(struct sw_step *s)
{
	json_object *a = ENTRIES(s);
	char count[16];
	size_t i, n = a && ENABLED(s) ? json_object_array_length(a) : 0;

	for (i = 0; i < n; i++)
		TRY(add_one(s, json_object_array_get_idx(a, i)));
	sw_fmt_text(count, sizeof(count), "%zu", n);
	sw_res_set(s, "entries", count);
	return STEP_DONE;
}

/* clang-format off */
static const struct sw_stage_def team_access_stages[] = {
	{ "flag", stage_flag },
	{ "remove", stage_remove },
	{ "add", stage_add },
	{ NULL, NULL }
};
/* clang-format on */

const struct sw_pipeline sw_pl_team_access_set = { "team_access.set",
	team_access_stages };
