/*
 * teams.h: teams, roles and the one rule that decides every request.
 * A principal's teams come from its service account (one team) or from
 * the configuration's mapping of an OpenID provider's groups to team
 * roles; the operation table's row says what a request touches; the
 * rule below decides from those two and the request's team.
 */
#ifndef SW_TEAMS_H
#define SW_TEAMS_H

#include <stddef.h>

#include "lib/auth.h"
#include "lib/conf.h"
#include "lib/json.h"

/*
 * The teams p is in, with its role in each, into m (at most max; the
 * count is returned): a service account's one team; a person's from
 * the configuration's mapping of provider groups to team roles
 * (config.json "teams": {team: {role: [group...]}}, the highest role a
 * group gives).  -1 for a principal of no team that is limited by its
 * scope alone: a token of no team, or a person when no teams are
 * configured (an admin-scope token of no team is thus platform-admin
 * of every team).
 */
int sw_principal_teams(const struct sw_config *, const struct sw_principal *,
    struct sw_membership *m, int max);

/*
 * THE rule that decides every request (docs/DESIGN.md "Teams and
 * roles"), on every face: REST and MCP through dispatch
 * (sw_authz_decide, api/router.h, which fills row from the operation
 * table's row), the WebSocket streams (stream/) directly.  May who do
 * what row describes for team (the request's; NULL: none)?  NULL when
 * it may, else why, naming the rule (into why):
 *   - a principal of no team (sw_principal_teams -1): its scope alone;
 *   - SELF: anyone signed in;
 *   - CLUSTER: a member of any team;
 *   - TEAM: viewer of team to read (readonly), operator to change;
 *   - PLATFORM: platform-admin of team when the row takes a team
 *     argument (team_arg), else of any team.
 * A role includes the ones below it.
 */
struct sw_rule_row {
	const char *name; /* the operation, for the words */
	enum sw_scope scope; /* least scope (no-team principals) */
	enum sw_touch touch;
	int readonly; /* changes nothing */
	int team_arg; /* its team argument names the team */
};
const char *sw_team_rule(const struct sw_config *,
    const struct sw_principal *who, const struct sw_rule_row *row,
    const char *team, char *why, size_t whysz);

/* A team's namespace is SW_TEAM_NS_PREFIX "<team>". */
#define SW_TEAM_NS_PREFIX "hyperpod-ns-"
/* EKS access policies are this prefix and a name. */
#define SW_EKS_POLICY_PREFIX "arn:aws:eks::aws:cluster-access-policy/"

/*
 * The EKS access entries the configuration asks for when a cluster's
 * team access is on (team_access_set): one per
 * team.<team>.<role>.iam_role_arn line of root (config.json's
 * "team_iam" {team: {role: arn}}), as a new array of {team, role,
 * principal_arn, policy_arn, scope, namespaces}: viewer gets
 * AmazonEKSViewPolicy and operator AmazonEKSEditPolicy, both scoped to
 * the namespace hyperpod-ns-<team>; platform-admin gets
 * AmazonEKSClusterAdminPolicy on the whole cluster.  NULL, with why,
 * when two lines name the same role ARN.
 */
json_object *sw_team_access_entries(json_object *root, char *why, size_t whysz);

#endif
