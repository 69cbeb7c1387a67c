/* test-conf.c: the operator's slipway.conf (sw_conf_file_load): every
 * key and its rule, comments and blanks, the line named on an error, a
 * line too long, a missing file; the EKS access entries the team lines
 * ask for (sw_team_access_entries). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/conf.h"
#include "lib/json.h"
#include "lib/teams.h"
#include "t/tap.h"

static char path[] = "/tmp/sw-test-conf-XXXXXX";

/* Load text as a file: the result code, the object in *out, why. */
static sw_err
load(const char *text, json_object **out, char *why, size_t whysz)
{
	FILE *f = fopen(path, "w");

	if (f == NULL || fputs(text, f) == EOF || fclose(f) != 0)
		return SW_EINTERNAL;
	return sw_conf_file_load(path, out, why, whysz);
}

static void
refused(const char *text, const char *want, const char *name)
{
	json_object *o = NULL;
	char why[300];
	sw_err e = load(text, &o, why, sizeof(why));

	ok(e == SW_EINVAL && o == NULL && strstr(why, want) != NULL, "%s (%s)",
	    name, why);
}

/* The entries of o's team_iam: a's viewer scoped to its namespace, the
 * platform-admin cluster-wide. */
static void
entries_of(json_object *o)
{
	char why[300];
	json_object *a = sw_team_access_entries(o, why, sizeof(why)), *e;

	is_int(a ? (long long)json_object_array_length(a) : -1, 2,
	    "one access entry per role ARN");
	e = a ? json_object_array_get_idx(a, 0) : NULL;
	is_str(sw_json_get_str(e, "policy_arn"),
	    SW_EKS_POLICY_PREFIX "AmazonEKSViewPolicy",
	    "a viewer gets AmazonEKSViewPolicy");
	is_str(json_object_get_string(
		   json_object_array_get_idx(sw_json_get(e, "namespaces"), 0)),
	    "hyperpod-ns-a", "scoped to hyperpod-ns-a");
	e = a ? json_object_array_get_idx(a, 1) : NULL;
	ok(strcmp(sw_json_get_str(e, "scope") ?: "", "cluster") == 0 &&
		json_object_array_length(sw_json_get(e, "namespaces")) == 0 &&
		strstr(sw_json_get_str(e, "policy_arn") ?: "", "ClusterAdmin"),
	    "a platform-admin gets AmazonEKSClusterAdminPolicy cluster-wide");
	json_object_put(a);
}

int
main(void)
{
	json_object *o = NULL;
	char why[300], *longline;
	sw_err e;
	int fd;

	if ((fd = mkstemp(path)) < 0)
		return 1;
	close(fd);
	e = load(
	    "# production\n\nregion = eu-west-1\nport=3100\n"
	    "  workers = 8   # more\nlog_format = json\n"
	    "ledger_interval = 300\nwatch_interval = 5\nwatch_rate = 20\n"
	    "training_plan.warn_before = 7200\n"
	    "endpoint.pricing = https://api.pricing."
	    "us-east-1.amazonaws.com\n"
	    "allowed_origins = https://a.example http://b.example:8080\n"
	    "endpoint.sagemaker = https://api.sagemaker.eu-west-1."
	    "amazonaws.com\nendpoint.service_quotas = http://127.0.0.1:4566\n",
	    &o, why, sizeof(why));
	is_int(e, SW_OK, "a full file reads");
	is_str(sw_json_get_str(o, "region"), "eu-west-1", "region");
	is_int(sw_json_get_int(o, "port", 0), 3100, "port without spaces");
	is_int(sw_json_get_int(o, "workers", 0), 8, "trailing comment cut");
	is_str(sw_json_get_str(o, "log_format"), "json", "log_format");
	is_int(
	    sw_json_get_int(o, "ledger_interval", 0), 300, "ledger_interval");
	is_int(sw_json_get_int(o, "watch_interval", 0), 5, "watch_interval");
	is_int(sw_json_get_int(o, "watch_rate", 0), 20, "watch_rate");
	is_int(sw_json_get_int(o, "training_plan_warn_before", 0), 7200,
	    "training_plan.warn_before");
	is_str(sw_json_get_str(sw_json_get(o, "endpoints"), "pricing"),
	    "https://api.pricing.us-east-1.amazonaws.com",
	    "the Price List endpoint");
	is_int((long long)json_object_array_length(
		   sw_json_get(o, "allowed_origins")),
	    2, "two origins");
	is_str(sw_json_get_str(sw_json_get(o, "endpoints"), "sagemaker"),
	    "https://api.sagemaker.eu-west-1.amazonaws.com", "one endpoint");
	is_str(sw_json_get_str(sw_json_get(o, "endpoints"), "service_quotas"),
	    "http://127.0.0.1:4566", "loopback http");
	json_object_put(o);

	refused("region = us-west-2\nbogus = 1\n", "line 2: bogus: unknown",
	    "an unknown key names its line");
	refused("region = US_WEST\n", "region is not", "a bad region");
	refused("port = 0\n", "port must be", "port 0");
	refused("port = 80x\n", "port must be", "a port that is not a number");
	refused("workers = 17\n", "workers is out of range", "workers cap");
	refused("ledger_interval = 0\n", "ledger_interval must be",
	    "a ledger interval of 0");
	refused("watch_interval = 0\n", "watch_interval must be",
	    "a watch interval of 0");
	refused("watch_rate = 0\n", "watch_rate must be", "a watch rate of 0");
	refused("watch_rate = 1001\n", "watch_rate must be",
	    "a watch rate over 1000");
	refused("training_plan.warn_before = 30\n",
	    "training_plan.warn_before must be", "a warning under a minute");
	refused("log_format = xml\n", "text or json", "an unknown log format");
	refused("database = /var/lib/slipway/state.db\n", "postgresql:// URL",
	    "a database that is not a PostgreSQL URL");
	refused("database = mysql://db/slipway\n", "postgresql:// URL",
	    "a database of another engine");
	{
		json_object *d = NULL;

		ok(load("database = postgresql://slipway@db.internal/slipway"
			"?sslmode=verify-full\n",
		       &d, why, sizeof(why)) == SW_OK &&
			strcmp(sw_json_get_str(d, "database")
				? sw_json_get_str(d, "database")
				: "",
			    "postgresql://slipway@db.internal/"
			    "slipway?sslmode=verify-full") == 0,
		    "database = postgresql://... is kept as written");
		json_object_put(d);
	}
	refused("allowed_origins = a.example\n", "scheme://",
	    "an origin without a scheme");
	refused("endpoint = http://evil.example\n", "https://",
	    "plain http to another host");
	refused("endpoint.lambda = https://x.example\n", "no such service",
	    "an unknown service");
	refused("region\n", "not key = value", "a line without =");

	/* The role AWS calls made for a person go through. */
	e = load("person_role_arn = arn:aws:iam::123456789012:role/ops/"
		 "slipway-people\n",
	    &o, why, sizeof(why));
	is_int(e, SW_OK, "a person role reads");
	is_str(sw_json_get_str(o, "person_role_arn"),
	    "arn:aws:iam::123456789012:role/ops/slipway-people",
	    "person_role_arn");
	json_object_put(o);
	o = NULL;
	refused("person_role_arn = arn:aws:iam::123456789012:policy/p\n",
	    "person_role_arn is an IAM role ARN", "a policy is not a role");
	refused("person_role_arn = slipway-people\n",
	    "person_role_arn is an IAM role ARN", "a bare role name");

	/* The OpenID provider. */
	e = load(
	    "public_url = https://slipway.example.com\n"
	    "oidc.issuer = https://example.okta.com/oauth2/default\n"
	    "oidc.audience = api://default\noidc.algorithms = RS256, ES256\n"
	    "oidc.user_claim = email\noidc.groups_claim = cognito:groups\n"
	    "oidc.clock_skew = 30\noidc.scope = write\n",
	    &o, why, sizeof(why));
	is_int(e, SW_OK, "a provider reads");
	is_str(sw_json_get_str(sw_json_get(o, "oidc"), "issuer"),
	    "https://example.okta.com/oauth2/default", "oidc.issuer");
	is_int((long long)json_object_array_length(
		   sw_json_get(sw_json_get(o, "oidc"), "algorithms")),
	    2, "two algorithms");
	is_int(sw_json_get_int(sw_json_get(o, "oidc"), "clock_skew", 0), 30,
	    "clock_skew is a number");
	is_str(sw_json_get_str(o, "public_url"), "https://slipway.example.com",
	    "public_url");
	json_object_put(o);
	refused("oidc.algorithms = RS256 none\n", "never accepted",
	    "alg none is refused");
	refused(
	    "oidc.algorithms = HS256\n", "never accepted", "HMAC is refused");
	refused("oidc.algorithms = PS512\n", "RS256 and ES256",
	    "an unknown algorithm is refused");
	refused("oidc.issuer = http://id.example.com\n", "https URL",
	    "a plain http issuer off loopback");
	refused("oidc.clock_skew = 3600\n", "0 to 300", "a skew too large");
	refused("oidc.scope = root\n", "read, write or admin", "a bad scope");
	refused("oidc.tenant = x\n", "no such key", "an unknown oidc key");

	/* Teams: provider groups to team roles. */
	e = load("team.ml-a.operator = ml-a-eng, ml-a-ops\n"
		 "team.ml-a.viewer = ml-a-all\n",
	    &o, why, sizeof(why));
	is_int(e, SW_OK, "team lines read");
	is_int((long long)json_object_array_length(sw_json_get(
		   sw_json_get(sw_json_get(o, "teams"), "ml-a"), "operator")),
	    2, "two groups make operators of ml-a");
	json_object_put(o);
	refused("team.ML.viewer = g\n", "[a-z0-9-]", "a team in capitals");
	refused("team.a.boss = g\n", "viewer, operator or platform-admin",
	    "an unknown role");
	refused("team.a.viewer = ,\n", "at least one", "no group");

	/* The IAM role a team role assumes, and the access entries. */
	e = load("team.a.viewer.iam_role_arn = arn:aws:iam::111122223333:"
		 "role/a-view\nteam.ops.platform-admin.iam_role_arn = "
		 "arn:aws:iam::111122223333:role/ops\n",
	    &o, why, sizeof(why));
	is_int(e, SW_OK, "iam_role_arn lines read");
	is_str(sw_json_path_str(o, "team_iam.a.viewer"),
	    "arn:aws:iam::111122223333:role/a-view", "a's viewer role ARN");
	entries_of(o);
	json_object_put(o);
	refused("team.a.viewer.iam_role_arn = arn:aws:iam::1:user/x\n",
	    "IAM role ARN", "a user ARN is no role ARN");
	refused("team.a.boss.iam_role_arn = arn:aws:iam::111122223333:"
		"role/x\n",
	    "viewer, operator or platform-admin",
	    "iam_role_arn of an unknown role");
	refused("team.a.viewer.groups = g\n", "only key below a role",
	    "an unknown key below a role");
	e = load("team.a.viewer.iam_role_arn = arn:aws:iam::111122223333:"
		 "role/same\nteam.b.operator.iam_role_arn = "
		 "arn:aws:iam::111122223333:role/same\n",
	    &o, why, sizeof(why));
	ok(e == SW_OK && sw_team_access_entries(o, why, sizeof(why)) == NULL &&
		strstr(why, "one access entry per principal") != NULL,
	    "one role ARN for two team roles is refused (%s)", why);
	json_object_put(o);
	longline = malloc(2100);
	if (longline == NULL)
		return 1;
	memset(longline, 'a', 2098);
	memcpy(longline, "region = ", 9);
	longline[2098] = '\n';
	longline[2099] = '\0';
	refused(longline, "too long", "a line too long");
	free(longline);

	unlink(path);
	o = NULL;
	e = sw_conf_file_load(path, &o, why, sizeof(why));
	ok(e == SW_ENOTFOUND && o == NULL, "no file: SW_ENOTFOUND");
	return tap_done();
}
