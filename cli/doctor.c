/*
 * doctor.c: `slipway doctor`, the checks an operator runs before (and
 * systemd runs as ExecStartPre with --local) starting Slipway: the
 * slipway.conf, the state directory, nginx and its configuration, then
 * the AWS side: credentials, region, every service endpoint, and the
 * IAM permissions the code needs, simulated with
 * iam:SimulatePrincipalPolicy for the actions cfn/aws-actions.py
 * derived from the sources (installed as iam-actions.txt), and that
 * every slipway-* role carries the configured permissions boundary
 * (iam:GetRole; ListRoles leaves boundaries out).  Each check
 * is one finding in plain words; the exit status is 0 only when every
 * finding is good.
 */
#include <sys/stat.h>
#include <sys/wait.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/doctor.h"
#include "cloud/aws.h"
#include "cloud/aws_api.h"
#include "lib/buf.h"
#include "lib/conf.h"
#include "lib/db.h"
#include "lib/limits.h"
#include "lib/json.h"
#include "pipelines/pipeline.h"

#define DOCTOR_MAX_ACTIONS 256 /* lines read from the actions file */
#define DOCTOR_SIM_BATCH 100 /* actions per simulation (IAM: 128) */

struct doctor {
	const struct sw_doctor_opts *o;
	json_object *findings; /* [{check,ok,detail}] */
	int failed;
	json_object *conf; /* slipway.conf or NULL */
};

static void say(struct doctor *, const char *, int, const char *, ...)
    __attribute__((format(printf, 4, 5)));

/* Record one finding and print it unless the output is JSON. */
static void
say(struct doctor *d, const char *check, int ok, const char *fmt, ...)
{
	char detail[1024];
	va_list ap;

	va_start(ap, fmt);
	if (vsnprintf(detail, sizeof(detail), fmt, ap) >= (int)sizeof(detail))
		memcpy(detail + sizeof(detail) - 4, "...", 4);
	va_end(ap);
	if (!ok)
		d->failed = 1;
	json_object_array_add(d->findings,
	    sw_jo("check", sw_js(check), "ok", json_object_new_boolean(ok),
		"detail", sw_js(detail), NULL));
	if (!d->o->json)
		printf("%-4s  %s: %s\n", ok ? "ok" : "FAIL", check, detail);
}

static void
check_conf(struct doctor *d)
{
	char why[300];
	sw_err e;

	if (d->o->conf_file == NULL || d->o->conf_file[0] == '\0') {
		say(d, "configuration", 0, "no path for slipway.conf");
		return;
	}
	e = sw_conf_file_load(d->o->conf_file, &d->conf, why, sizeof(why));
	if (e == SW_ENOTFOUND)
		say(d, "configuration", 1, "no %s; the defaults are used",
		    d->o->conf_file);
	else if (e != SW_OK)
		say(d, "configuration", 0, "%s is wrong: %s", d->o->conf_file,
		    why);
	else
		say(d, "configuration", 1, "%s reads well", d->o->conf_file);
}

static void
check_state_dir(struct doctor *d)
{
	const char *dir = d->o->state_dir;
	char parent[PATH_MAX], db[PATH_MAX + 16];
	struct stat st;
	char *slash;

	if (stat(dir, &st) != 0) {
		if (errno != ENOENT) {
			say(d, "state directory", 0, "%s: %s", dir,
			    strerror(errno));
			return;
		}
		if (sw_fmt(parent, sizeof(parent), "%s", dir) != SW_OK) {
			say(d, "state directory", 0, "%s: path too long", dir);
			return;
		}
		if ((slash = strrchr(parent, '/')) != NULL && slash != parent)
			*slash = '\0';
		if (access(parent, W_OK | X_OK) == 0)
			say(d, "state directory", 1,
			    "%s does not exist yet; "
			    "slipway start will create it",
			    dir);
		else
			say(d, "state directory", 0,
			    "%s does not exist and "
			    "%s is not writable, so it cannot be created",
			    dir, parent);
		return;
	}
	if (!S_ISDIR(st.st_mode))
		say(d, "state directory", 0, "%s is not a directory", dir);
	else if (st.st_uid != geteuid())
		say(d, "state directory", 0,
		    "%s belongs to uid %ld, not to "
		    "this user (uid %ld)",
		    dir, (long)st.st_uid, (long)geteuid());
	else if ((st.st_mode & 077) != 0)
		say(d, "state directory", 0,
		    "%s can be read by others (mode "
		    "%03o); it holds tokens and sockets: chmod 700 it",
		    dir, (unsigned)(st.st_mode & 0777));
	else if (access(dir, W_OK | X_OK) != 0)
		say(d, "state directory", 0, "%s is not writable", dir);
	else {
		if (sw_fmt(db, sizeof(db), "%s/state.db", dir) != SW_OK)
			say(d, "state directory", 0, "%s: path too long", dir);
		else if (access(db, F_OK) == 0 && access(db, R_OK | W_OK) != 0)
			say(d, "state directory", 0,
			    "%s cannot be read and "
			    "written",
			    db);
		else
			say(d, "state directory", 1,
			    "%s is private and "
			    "writable",
			    dir);
	}
}

/*
 * The database's clock against this host's: leases and due times are
 * compared across both, so they must agree within SW_DB_CLOCK_SKEW_MS.
 */
static void
check_db_clock(struct doctor *d, struct sw_db *db)
{
	int64_t before = sw_now_ms(), at, after, skew;

	if (sw_db_clock_ms(db, &at) != SW_OK) {
		say(d, "database clock", 0, "cannot read the database's clock");
		return;
	}
	after = sw_now_ms();
	/* against the middle of the round trip */
	skew = at - (before + (after - before) / 2);
	if (skew < 0)
		skew = -skew;
	if (skew > SW_DB_CLOCK_SKEW_MS)
		say(d, "database clock", 0,
		    "the database's clock is %lld ms "
		    "from this host's (more than %d): run chrony on both",
		    (long long)skew, SW_DB_CLOCK_SKEW_MS);
	else
		say(d, "database clock", 1, "within %lld ms of this host's",
		    (long long)skew);
}

/*
 * The state store the configuration names: reachable, its engine's
 * version, and its schema against this build's (opening it applies the
 * migrations it lacks, as `slipway start` does).  A PostgreSQL URL is
 * never printed: it may carry a password.
 */
static void
check_database(struct doctor *d)
{
	struct sw_config cfg;
	struct sw_db *db = NULL;
	int pg, v;

	if (sw_config_load(d->o->state_dir, &cfg) != SW_OK) {
		say(d, "database", 0, "cannot read %s/config.json",
		    d->o->state_dir);
		sw_config_free(&cfg);
		return;
	}
	pg = sw_db_is_pg_url(cfg.db_path);
	if (!pg && access(cfg.db_path, F_OK) != 0)
		say(d, "database", 1,
		    "sqlite: %s does not exist yet; "
		    "slipway start will create it",
		    cfg.db_path);
	else if (sw_db_open(cfg.db_path, &db) != SW_OK)
		say(d, "database", 0,
		    "%s cannot be reached or migrated (see "
		    "the message above)",
		    pg ? "the PostgreSQL database" : cfg.db_path);
	else if ((v = sw_db_version(db)) != sw_db_version_latest())
		say(d, "database", 0, "%s %s: schema %d, this build's is %d",
		    sw_db_engine(db), sw_db_engine_version(db), v,
		    sw_db_version_latest());
	else
		say(d, "database", 1,
		    "%s %s reachable; schema %d of %d "
		    "migrations",
		    sw_db_engine(db), sw_db_engine_version(db), v,
		    sw_db_version_latest());
	if (db != NULL)
		check_db_clock(d, db);
	sw_db_close(db);
	sw_config_free(&cfg);
}

/* Run nginx -t on conf; 0 when it passes, else its first words in why. */
static int
nginx_test(const char *nginx, const char *prefix, const char *conf, char *why,
    size_t whysz)
{
	int p[2], status;
	ssize_t n;
	pid_t pid;

	why[0] = '\0';
	if (pipe(p) != 0)
		return -1;
	if ((pid = fork()) < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 1);
		dup2(p[1], 2);
		close(p[0]);
		char errlog[PATH_MAX];

		if (snprintf(errlog, sizeof(errlog), "%s/logs/error.log",
			prefix) >= (int)sizeof(errlog))
			_exit(127);
		/* -e: never the compiled-in log, which a user cannot write */
		execl(nginx, nginx, "-t", "-q", "-p", prefix, "-c", conf, "-e",
		    errlog, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	n = read(p[0], why, whysz - 1);
	why[n > 0 ? n : 0] = '\0';
	why[strcspn(why, "\n")] = '\0';
	close(p[0]);
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static void
check_nginx(struct doctor *d)
{
	char conf[PATH_MAX + 16], why[512];

	if (access(d->o->nginx, X_OK) != 0) {
		say(d, "nginx", 0, "%s is missing (install nginx)",
		    d->o->nginx);
		return;
	}
	if (access(d->o->nginx_template, R_OK) != 0) {
		say(d, "nginx", 0,
		    "the configuration template %s is "
		    "missing: reinstall Slipway",
		    d->o->nginx_template);
		return;
	}
	if (sw_fmt(conf, sizeof(conf), "%s/nginx.conf", d->o->state_dir) !=
	    SW_OK) {
		say(d, "nginx", 0, "%s: path too long", d->o->state_dir);
		return;
	}
	if (access(conf, R_OK) != 0) {
		say(d, "nginx", 1,
		    "%s and the template are there; the "
		    "configuration is rendered at start",
		    d->o->nginx);
		return;
	}
	if (nginx_test(d->o->nginx, d->o->state_dir, conf, why, sizeof(why)) !=
	    0)
		say(d, "nginx", 0, "nginx -t refuses %s: %s", conf,
		    why[0] ? why : "no reason given");
	else
		say(d, "nginx", 1, "nginx -t accepts %s", conf);
}

/* One read-only call per service: does its endpoint answer? */
static void
check_endpoints(struct doctor *d, struct aws_ctx *aws, const char *bucket)
{
	static const struct {
		enum aws_service svc;
		const char *op;
	} probes[] = {
		{ AWS_SVC_EC2, "DescribeAvailabilityZones" },
		{ AWS_SVC_IAM, "ListRoles" },
		{ AWS_SVC_EKS, "ListClusters" },
		{ AWS_SVC_SAGEMAKER, "ListClusters" },
		{ AWS_SVC_FSX, "DescribeFileSystems" },
		{ AWS_SVC_QUOTAS, "ListServiceQuotas" },
	};
	char url[512], reg[64], what[96];
	struct aws_error err;
	json_object *in, *out;
	size_t i;
	sw_err e;

	for (i = 0; i <= sizeof(probes) / sizeof(probes[0]); i++) {
		memset(&err, 0, sizeof(err));
		out = NULL;
		if (i == sizeof(probes) / sizeof(probes[0])) {
			/* S3: HeadBucket of the shared bucket (404 answers) */
			sw_fmt_text(what, sizeof(what), "s3 endpoint");
			aws_endpoint(aws, AWS_SVC_S3, url, sizeof(url), reg,
			    sizeof(reg));
			e = aws_s3_head_bucket(aws, bucket, NULL, 0, &err);
		} else {
			sw_fmt_text(what, sizeof(what), "%s endpoint",
			    aws_service(probes[i].svc)->id);
			aws_endpoint(aws, probes[i].svc, url, sizeof(url), reg,
			    sizeof(reg));
			in = probes[i].svc == AWS_SVC_IAM
			    ? sw_jo("MaxItems", sw_ji(1), NULL)
			    : probes[i].svc == AWS_SVC_QUOTAS
			    ? sw_jo("ServiceCode", sw_js("sagemaker"),
				  "MaxResults", sw_ji(1), NULL)
			    : probes[i].svc == AWS_SVC_SAGEMAKER
			    ? sw_jo("MaxResults", sw_ji(1), NULL)
			    : NULL;
			e = aws_call(
			    aws, probes[i].svc, probes[i].op, in, &out, &err);
			json_object_put(in);
			json_object_put(out);
		}
		if (e == SW_OK)
			say(d, what, 1, "%s answers", url);
		else if (err.transport || err.http_status == 0)
			say(d, what, 0,
			    "%s cannot be reached (%s): check "
			    "the network, the NAT gateway or VPC endpoint, "
			    "and slipway.conf's endpoints",
			    url, err.message[0] ? err.message : "no answer");
		else if (err.http_status >= 500)
			say(d, what, 0,
			    "%s answers %ld %s: the service is "
			    "failing",
			    url, err.http_status, err.code);
		else
			say(d, what, 1, "%s answers (%ld %s)", url,
			    err.http_status, err.code[0] ? err.code : "");
	}
}

/* The ARN a simulated action is checked against: what Slipway touches. */
static sw_err
sim_resource(const char *action, const char *part, const char *acct,
    const char *region, char *out, size_t sz)
{
	const char *op = strchr(action, ':') + 1;
	sw_err e;

	if (strncmp(action, "iam:", 4) == 0) {
		if (strstr(op, "OpenIDConnectProvider") != NULL &&
		    strncmp(op, "List", 4) != 0)
			e = sw_fmt(out, sz,
			    "arn:%s:iam::%s:oidc-provider/"
			    "oidc.eks.%s.amazonaws.com/id/DOCTOR",
			    part, acct, region);
		else if (strcmp(op, "CreateServiceLinkedRole") == 0)
			e = sw_fmt(out, sz,
			    "arn:%s:iam::%s:role/aws-service-"
			    "role/sagemaker.amazonaws.com/AWSServiceRoleFor"
			    "AmazonSageMaker",
			    part, acct);
		else if (strncmp(op, "List", 4) == 0 &&
		    strcmp(op, "ListRolePolicies") != 0 &&
		    strcmp(op, "ListAttachedRolePolicies") != 0)
			e = sw_fmt(out, sz, "*");
		else
			e = sw_fmt(out, sz,
			    "arn:%s:iam::%s:role/slipway-"
			    "doctor-check",
			    part, acct);
	} else if (strncmp(action, "eks:", 4) == 0) {
		if (strstr(op, "PodIdentityAssociation") != NULL &&
		    strncmp(op, "Create", 6) != 0 &&
		    strncmp(op, "List", 4) != 0)
			e = sw_fmt(out, sz,
			    "arn:%s:eks:%s:%s:"
			    "podidentityassociation/slipway-doctor/a-doctor",
			    part, region, acct);
		else if (strcmp(op, "DeleteAddon") == 0 ||
		    strcmp(op, "DescribeAddon") == 0)
			e = sw_fmt(out, sz,
			    "arn:%s:eks:%s:%s:addon/slipway-"
			    "doctor/doctor/0",
			    part, region, acct);
		else
			e = sw_fmt(out, sz,
			    "arn:%s:eks:%s:%s:cluster/slipway-"
			    "doctor",
			    part, region, acct);
	} else if (strncmp(action, "sagemaker:", 10) == 0)
		e = sw_fmt(out, sz, "arn:%s:sagemaker:%s:%s:%s", part, region,
		    acct,
		    strstr(op, "TrainingPlan") != NULL
			? "training-plan/doctor"
			: "cluster/slipway-doctor");
	else if (strncmp(action, "ec2:", 4) == 0)
		e = sw_fmt(out, sz,
		    "arn:%s:ec2:%s:%s:vpc/"
		    "vpc-0d0c0d0c0d0c0d0c0",
		    part, region, acct);
	else if (strncmp(action, "fsx:", 4) == 0)
		e = sw_fmt(out, sz,
		    "arn:%s:fsx:%s:%s:file-system/"
		    "fs-0d0c0d0c0d0c0d0c0",
		    part, region, acct);
	else if (strcmp(action, "s3:PutObject") == 0)
		e = sw_fmt(out, sz,
		    "arn:%s:s3:::sagemaker-slipway-%s-%s/"
		    "lifecycle/doctor",
		    part, acct, region);
	else if (strncmp(action, "s3:", 3) == 0)
		e = sw_fmt(out, sz, "arn:%s:s3:::sagemaker-slipway-%s-%s", part,
		    acct, region);
	else
		e = sw_fmt(out, sz, "*");
	return e;
}

/* The request context Slipway's calls carry (its tags, its roles, the
 * permissions boundary it sends on CreateRole). */
static json_object *
sim_context(const char *part, const char *boundary)
{
	json_object *ctx;

#define CTX(k, t, v) \
	sw_jo("ContextKeyName", sw_js(k), "ContextKeyValues", sw_ja(sw_js(v)), \
	    "ContextKeyType", sw_js(t), NULL)
	ctx = sw_ja(CTX("aws:RequestTag/" SW_TAG_CLUSTER, "string", "doctor"),
	    CTX("aws:ResourceTag/" SW_TAG_CLUSTER, "string", "doctor"),
	    CTX("aws:TagKeys", "stringList", SW_TAG_CLUSTER),
	    CTX("iam:PassedToService", "string", "sagemaker.amazonaws.com"),
	    CTX("iam:AWSServiceName", "string", "sagemaker.amazonaws.com"),
	    sw_jo("ContextKeyName", sw_js("iam:PolicyARN"), "ContextKeyValues",
		sw_ja(sw_jsf("arn:%s:iam::aws:policy/"
			     "AmazonEKSClusterPolicy",
		    part)),
		"ContextKeyType", sw_js("arn"), NULL),

	    CTX("ec2:CreateAction", "string", "CreateVpc"));
	if (boundary != NULL)
		json_object_array_add(
		    ctx, CTX("iam:PermissionsBoundary", "string", boundary));
#undef CTX
	return ctx;
}

/*
 * The IAM principal behind a caller ARN: an assumed role's role (path
 * unknown, "/" assumed), a user as it is.
 */
static int
sim_principal(
    const char *caller, char *out, size_t sz, char *part, size_t partsz)
{
	char acct[16], role[128];
	const char *p;

	if (sscanf(caller, "arn:%15[^:]:", part) != 1 || partsz < 16)
		return -1;
	if ((p = strstr(caller, ":assumed-role/")) != NULL) {
		if (sscanf(caller,
			"arn:%*[^:]:sts::%15[^:]:assumed-role/"
			"%127[^/]/",
			acct, role) != 2)
			return -1;
		return snprintf(out, sz, "arn:%s:iam::%s:role/%s", part, acct,
			   role) < (int)sz
		    ? 0
		    : -1;
	}
	return snprintf(out, sz, "%s", caller) < (int)sz ? 0 : -1;
}

static void
check_permissions(struct doctor *d, struct aws_ctx *aws, const char *caller,
    const char *acct, const char *boundary)
{
	char line[128], principal[300], part[16], res[400];
	char *actions[DOCTOR_MAX_ACTIONS];
	char denied[1024];
	size_t nact = 0, ndenied = 0, nallowed = 0, i, j, k;
	struct aws_error err;
	json_object *in, *out, *list, *batch, *results;
	FILE *f;
	int done[DOCTOR_MAX_ACTIONS] = { 0 };

	if ((f = fopen(d->o->actions_file, "r")) == NULL) {
		say(d, "IAM permissions", 0,
		    "the list of actions %s is "
		    "missing: reinstall Slipway",
		    d->o->actions_file);
		return;
	}
	while (nact < DOCTOR_MAX_ACTIONS && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] != '\0' && strchr(line, ':') != NULL)
			actions[nact++] = strdup(line);
	}
	fclose(f);
	if (sim_principal(caller, principal, sizeof(principal), part,
		sizeof(part)) != 0) {
		say(d, "IAM permissions", 0,
		    "cannot tell the IAM principal "
		    "of %s",
		    caller);
		goto out;
	}
	denied[0] = '\0';
	/* One simulation per resource ARN, all its actions at once. */
	for (i = 0; i < nact; i++) {
		if (actions[i] == NULL || done[i])
			continue;
		if (sim_resource(actions[i], part, acct, aws->region, res,
			sizeof(res)) != SW_OK) {
			say(d, "IAM permissions", 0,
			    "no room for the ARN "
			    "%s is checked against",
			    actions[i]);
			goto out;
		}
		batch = json_object_new_array();
		for (j = i; j < nact &&
		     json_object_array_length(batch) < DOCTOR_SIM_BATCH;
		     j++) {
			char other[400];

			if (actions[j] == NULL || done[j])
				continue;
			if (sim_resource(actions[j], part, acct, aws->region,
				other, sizeof(other)) != SW_OK ||
			    strcmp(other, res) != 0)
				continue;
			json_object_array_add(batch, sw_js(actions[j]));
			done[j] = 1;
		}
		in = sw_jo("PolicySourceArn", sw_js(principal), "ActionNames",
		    batch, "ResourceArns", sw_ja(sw_js(res)), "ContextEntries",
		    sim_context(part, boundary), NULL);
		memset(&err, 0, sizeof(err));
		out = NULL;
		if (aws_call(aws, AWS_SVC_IAM, "SimulatePrincipalPolicy", in,
			&out, &err) != SW_OK) {
			json_object_put(in);
			say(d, "IAM permissions", 0,
			    "cannot simulate the "
			    "policies of %s: %s: %s%s",
			    principal, err.code, err.message,
			    strstr(err.code, "AccessDenied")
				? " (the role needs iam:SimulatePrincipalPolicy on "
				  "itself)"
				: "");
			goto out;
		}
		json_object_put(in);
		results = sw_json_get(out, "EvaluationResults");
		if (results == NULL &&
		    (list = sw_json_get(
			 out, "SimulatePrincipalPolicyResult")) != NULL)
			results = sw_json_get(list, "EvaluationResults");
		list = results;
		for (k = 0; list != NULL &&
		     json_object_is_type(list, json_type_array) &&
		     k < json_object_array_length(list);
		     k++) {
			json_object *r = json_object_array_get_idx(list, k);
			const char *dec = sw_json_get_str(r, "EvalDecision");
			const char *name = sw_json_get_str(r, "EvalActionName");

			if (dec != NULL && strcmp(dec, "allowed") == 0) {
				nallowed++;
				continue;
			}
			ndenied++;
			if (strlen(denied) + strlen(name ? name : "?") + 3 <
			    sizeof(denied))
				sw_fmt_text(denied + strlen(denied),
				    sizeof(denied) - strlen(denied), "%s%s",
				    denied[0] ? ", " : "", name ? name : "?");
		}
		json_object_put(out);
	}
	if (nallowed + ndenied != nact)
		say(d, "IAM permissions", 0,
		    "the simulation answered for %zu "
		    "of %zu actions",
		    nallowed + ndenied, nact);
	else if (ndenied > 0)
		say(d, "IAM permissions", 0,
		    "%s may not call %zu of the %zu "
		    "actions Slipway needs: %s (deploy cfn/slipway.yaml's "
		    "role)",
		    principal, ndenied, nact, denied);
	else
		say(d, "IAM permissions", 1,
		    "%s may call all %zu actions "
		    "Slipway needs",
		    principal, nact);
out:
	for (i = 0; i < nact; i++)
		free(actions[i]);
}

/* Add to names (", "-separated, capped) the slipway-* roles of one
 * ListRoles page that do not carry boundary; their count into *n. */
static int
boundary_page(struct aws_ctx *aws, json_object *roles, const char *boundary,
    char *names, size_t sz, size_t *n, size_t *bad)
{
	struct aws_error err;
	json_object *in, *out;
	const char *name, *arn;
	size_t i;
	sw_err e;

	for (i = 0; roles != NULL && i < json_object_array_length(roles); i++) {
		name = sw_json_get_str(
		    json_object_array_get_idx(roles, i), "RoleName");
		if (name == NULL || strncmp(name, "slipway-", 8) != 0)
			continue;
		memset(&err, 0, sizeof(err));
		/* ListRoles leaves the boundary out: GetRole has it. */
		in = sw_jo("RoleName", sw_js(name), NULL);
		e = aws_call(aws, AWS_SVC_IAM, "GetRole", in, &out, &err);
		json_object_put(in);
		if (e != SW_OK)
			return -1;
		arn = sw_out_str(out,
		    "Role.PermissionsBoundary."
		    "PermissionsBoundaryArn",
		    "GetRoleResult.Role."
		    "PermissionsBoundary.PermissionsBoundaryArn",
		    NULL);
		(*n)++;
		if (arn == NULL || strcmp(arn, boundary) != 0) {
			(*bad)++;
			if (strlen(names) + strlen(name) + 3 < sz)
				sw_fmt_text(names + strlen(names),
				    sz - strlen(names), "%s%s",
				    names[0] ? ", " : "", name);
		}
		json_object_put(out);
	}
	return 0;
}

/* Every slipway-* role carries the configured permissions boundary. */
static void
check_boundary(struct doctor *d, struct aws_ctx *aws, const char *boundary)
{
	char names[512] = "", marker[512] = "";
	struct aws_error err;
	json_object *in, *out, *roles;
	const char *next;
	size_t n = 0, bad = 0;
	sw_err e;

	if (boundary == NULL) {
		say(d, "IAM permissions boundary", 1,
		    "none configured "
		    "(iam_permissions_boundary): roles are created without "
		    "one");
		return;
	}
	do {
		memset(&err, 0, sizeof(err));
		in = marker[0] ? sw_jo("Marker", sw_js(marker), NULL) : NULL;
		e = aws_call(aws, AWS_SVC_IAM, "ListRoles", in, &out, &err);
		json_object_put(in);
		if (e != SW_OK) {
			say(d, "IAM permissions boundary", 0,
			    "cannot list the "
			    "roles: %s: %s",
			    err.code, err.message);
			return;
		}
		roles = sw_json_get(out, "Roles");
		if (roles == NULL)
			roles = sw_json_path(out, "ListRolesResult.Roles");
		if (boundary_page(aws, roles, boundary, names, sizeof(names),
			&n, &bad) != 0) {
			json_object_put(out);
			say(d, "IAM permissions boundary", 0,
			    "cannot read a "
			    "Slipway role");
			return;
		}
		next =
		    sw_out_str(out, "Marker", "ListRolesResult.Marker", NULL);
		if (sw_fmt(marker, sizeof(marker), "%s", next ? next : "") !=
		    SW_OK) {
			json_object_put(out);
			say(d, "IAM permissions boundary", 0,
			    "ListRoles "
			    "answered a marker too long to follow");
			return;
		}
		json_object_put(out);
	} while (marker[0] != '\0');
	if (bad > 0)
		say(d, "IAM permissions boundary", 0,
		    "%zu of %zu Slipway "
		    "roles do not carry %s: %s",
		    bad, n, boundary, names);
	else
		say(d, "IAM permissions boundary", 1,
		    "%zu Slipway role(s) "
		    "carry %s",
		    n, boundary);
}

static void
check_aws(struct doctor *d)
{
	struct sw_config cfg;
	struct aws_ctx aws;
	struct aws_error err;
	char acct[32], arn[512], bucket[128], env[64];
	json_object *out = NULL, *zones, *eps;
	const char *v;
	size_t i, up = 0;
	int i2;

	memset(&aws, 0, sizeof(aws));
	if (sw_config_load(d->o->state_dir, &cfg) != SW_OK) {
		say(d, "AWS", 0, "cannot read %s/config.json", d->o->state_dir);
		sw_config_free(&cfg);
		return;
	}
	if (!cfg.sandbox && (v = sw_json_get_str(d->conf, "region")) != NULL &&
	    sw_fmt(cfg.region, sizeof(cfg.region), "%s", v) != SW_OK) {
		say(d, "region", 0, "%s is not a region", v);
		goto out;
	}
	eps = sw_json_get(d->conf, "endpoints");
	if (!cfg.sandbox && eps != NULL) {
		if ((v = sw_json_get_str(eps, "*")) != NULL)
			setenv("AWS_ENDPOINT_URL", v, 1);
		for (i2 = 0; sw_conf_services[i2] != NULL; i2++) {
			if ((v = sw_json_get_str(eps, sw_conf_services[i2])) ==
			    NULL)
				continue;
			if (sw_fmt(env, sizeof(env), "AWS_ENDPOINT_URL_%s",
				sw_conf_service_env[i2]) == SW_OK)
				setenv(env, v, 1);
		}
	}
	if (sw_aws_setup(&aws, &cfg) != SW_OK) {
		say(d, "region", 0,
		    "cannot set up AWS for region %s (a bad "
		    "region or endpoint)",
		    cfg.region);
		goto out;
	}
	memset(&err, 0, sizeof(err));
	if (aws_sts_get_caller_identity(
		&aws, acct, sizeof(acct), arn, sizeof(arn), &err) != SW_OK) {
		say(d, "credentials", 0,
		    "AWS does not accept the credentials "
		    "found (%s: %s); set AWS_PROFILE or the instance role, "
		    "and check the clock",
		    err.code[0] ? err.code : "no answer", err.message);
		goto out;
	}
	say(d, "credentials", 1, "signed in as %s (account %s)", arn, acct);
	memset(&err, 0, sizeof(err));
	if (aws_call(&aws, AWS_SVC_EC2, "DescribeAvailabilityZones", NULL, &out,
		&err) != SW_OK) {
		say(d, "region", 0, "region %s does not answer: %s: %s",
		    aws.region, err.code, err.message);
		goto out;
	}
	zones = sw_json_get(out, "availabilityZoneInfo");
	for (i = 0; zones != NULL && i < json_object_array_length(zones); i++)
		if ((v = sw_json_get_str(json_object_array_get_idx(zones, i),
			 "zoneState")) == NULL ||
		    strcmp(v, "available") == 0)
			up++;
	json_object_put(out);
	if (up == 0)
		say(d, "region", 0, "region %s has no available zone",
		    aws.region);
	else
		say(d, "region", 1, "%s, %zu zones available", aws.region, up);
	if (sw_fmt(bucket, sizeof(bucket), "sagemaker-slipway-%s-%s", acct,
		aws.region) != SW_OK) {
		say(d, "region", 0, "no room for the bucket name of %s",
		    aws.region);
		goto out;
	}
	check_endpoints(d, &aws, bucket);

	if ((v = sw_json_get_str(d->conf, "iam_permissions_boundary")) == NULL)
		v = sw_config_boundary(&cfg);
	check_permissions(d, &aws, arn, acct, v);
	check_boundary(d, &aws, v);
out:
	aws_ctx_free(&aws);
	sw_config_free(&cfg);
}

int
sw_cli_doctor(const struct sw_doctor_opts *o)
{
	struct doctor d = { .o = o, .findings = json_object_new_array() };

	check_conf(&d);
	check_state_dir(&d);
	check_database(&d);
	check_nginx(&d);
	if (!o->local)
		check_aws(&d);
	if (o->json) {
		json_object *doc =
		    sw_jo("ok", json_object_new_boolean(!d.failed), "findings",
			json_object_get(d.findings), NULL);

		printf("%s\n",
		    json_object_to_json_string_ext(
			doc, JSON_C_TO_STRING_PRETTY));
		json_object_put(doc);
	} else
		printf("%s\n",
		    d.failed ? "Slipway is not ready: fix what "
			       "FAIL says."
			     : "All is well.");
	json_object_put(d.findings);
	json_object_put(d.conf);
	return d.failed ? 1 : 0;
}
