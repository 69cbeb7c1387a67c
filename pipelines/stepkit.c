/*
 * stepkit.c: helpers shared by the stage files (see stepkit.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/url.h"
#include "cloud/aws_api.h"
#include "lib/json.h"
#include "lib/log.h"
#include "pipelines/stepkit.h"

enum sw_step_rc
sw_step_aws_ok(struct sw_step *s, enum aws_service svc, const char *op,
    json_object *in, json_object **out, const char *ok_codes)
{
	struct aws_error err;
	enum sw_step_rc rc;
	char msg[sizeof(s->msg)];

	memset(&err, 0, sizeof(err));
	memcpy(msg, s->msg, sizeof(msg));
	rc = sw_step_aws(s, svc, op, in, out, &err);
	if (rc == STEP_FAIL && err.code[0] != '\0' &&
	    strstr(ok_codes, err.code) != NULL) {
		memcpy(s->msg, msg, sizeof(msg));
		*out = json_object_new_object();
		return STEP_DONE;
	}
	return rc;
}

enum sw_step_rc
sw_step_aws_once(struct sw_step *s, const char *key, enum aws_service svc,
    const char *op, json_object *in, json_object **out, int *resumed)
{
	struct aws_error err;
	enum sw_step_rc rc;

	*out = NULL;
	*resumed = 0;
	if (!s->plan && sw_res_get(s, key) != NULL) {
		/* Recorded as sent by a run that did not live to record the
		 * answer: the caller reads the state instead. */
		json_object_put(in);
		*resumed = 1;
		return STEP_DONE;
	}
	if (!s->plan) {
		sw_res_set(s, key, op);
		if (sw_step_save(s) != SW_OK) {
			json_object_object_del(s->res, key);
			json_object_put(in);
			return sw_step_retry(s, 2000,
			    "cannot record %s as sent "
			    "(will retry)",
			    op);
		}
	}
	memset(&err, 0, sizeof(err));
	rc = sw_step_aws(s, svc, op, in, out, &err);
	if (rc != STEP_DONE &&
	    (err.unsent || (err.http_status >= 400 && err.http_status < 500)))
		/* Not sent (past its lease's send-by time), or AWS refused
		 * it (4xx): nothing was changed, so the next attempt may
		 * send again (the runner saves res).  After a 5xx or no
		 * answer the change may have been made. */
		json_object_object_del(s->res, key);
	return rc;
}

enum sw_step_rc
sw_ec2_find(struct sw_step *s, const char *describe, const char *set,
    const char *idfield, const char *name, const char *key, json_object *extra)
{
	json_object *filters, *out, *list, *item;
	enum sw_step_rc rc;
	size_t i;

	if (sw_res_get(s, key) != NULL) {
		json_object_put(extra);
		return STEP_DONE;
	}
	filters = sw_tag_filter(s, name);
	if (extra != NULL) {
		for (i = 0; i < json_object_array_length(extra); i++)
			json_object_array_add(filters,
			    json_object_get(
				json_object_array_get_idx(extra, i)));
		json_object_put(extra);
	}
	rc = sw_step_aws(s, AWS_SVC_EC2, describe,
	    sw_jo("Filters", filters, NULL), &out, NULL);
	if (rc != STEP_DONE)
		return rc;
	list = sw_json_get(out, set);
	for (i = 0;
	     list != NULL && json_object_is_type(list, json_type_array) &&
	     i < json_object_array_length(list);
	     i++) {
		item = json_object_array_get_idx(list, i);
		if (sw_json_get_str(item, idfield) != NULL) {
			sw_res_set(s, key, sw_json_get_str(item, idfield));
			break;
		}
	}
	json_object_put(out);
	return STEP_DONE;
}

int64_t
sw_poll_ms(struct sw_step *s, int64_t base_ms)
{
	int64_t speed = sw_json_get_int(
		    sw_json_get(s->cfg->root, "sandbox_info"), "speed", 1),
		ms;

	if (speed < 1)
		speed = 1;
	ms = base_ms / speed;
	return ms < 100 ? 100 : ms;
}

/*
 * How long AWS takes for each thing a pipeline waits for (AWS time, ms):
 * `first` is when the quickest would be done after its request, `then`
 * the interval between later reads.  These are the real services'
 * durations, which the sandbox models too (NAT gateway 1-2 min, EKS
 * control plane 8-12 min, add-ons 30-90 s, HyperPod instances 7-13 min
 * to boot, a pod 8 s to start).
 */
static const struct {
	const char *name;
	int64_t first_ms;
	int64_t then_ms;
} waits[SW_WAIT__MAX] = {
	[SW_WAIT_NAT] = { .name = "NAT gateway available",
	    .first_ms = 60000,
	    .then_ms = 15000 },
	[SW_WAIT_EKS_CLUSTER] = { .name = "EKS cluster ACTIVE",
	    .first_ms = 480000,
	    .then_ms = 30000 },
	[SW_WAIT_ADDON] = { .name = "EKS add-on ACTIVE",
	    .first_ms = 30000,
	    .then_ms = 15000 },
	[SW_WAIT_HYPERPOD] = { .name = "HyperPod cluster InService",
	    .first_ms = 420000,
	    .then_ms = 30000 },
	[SW_WAIT_NODES_RUNNING] = { .name = "HyperPod nodes Running",
	    .first_ms = 30000,
	    .then_ms = 30000 },
	[SW_WAIT_NODES_READY] = { .name = "Kubernetes nodes Ready",
	    .first_ms = 15000,
	    .then_ms = 15000 },
	[SW_WAIT_HELM_JOB] = { .name = "Helm installer Job Complete",
	    .first_ms = 10000,
	    .then_ms = 5000 },
};

const char *
sw_wait_name(enum sw_wait_kind k)
{
	return k >= 0 && k < SW_WAIT__MAX ? waits[k].name : "?";
}

static enum sw_step_rc
wait_v(struct sw_step *s, int64_t base_ms, const char *fmt, va_list ap)
{
	s->wait_ms = sw_poll_ms(s, base_ms);
	vsnprintf(s->msg, sizeof(s->msg), fmt, ap);
	return STEP_WAIT;
}

enum sw_step_rc
sw_wait_first(struct sw_step *s, enum sw_wait_kind k, const char *fmt, ...)
{
	enum sw_step_rc rc;
	va_list ap;

	va_start(ap, fmt);
	rc = wait_v(s, waits[k].first_ms, fmt, ap);
	va_end(ap);
	return rc;
}

enum sw_step_rc
sw_wait_next(struct sw_step *s, enum sw_wait_kind k, const char *fmt, ...)
{
	enum sw_step_rc rc;
	va_list ap;

	va_start(ap, fmt);
	rc = wait_v(s, waits[k].then_ms, fmt, ap);
	va_end(ap);
	return rc;
}

enum sw_step_rc
sw_plan_wait(struct sw_step *s, enum sw_wait_kind k)
{
	if (s->plan && s->waits != NULL)
		json_object_array_add(s->waits,
		    sw_jo("stage", sw_js(s->stage), "wait",
			sw_js(waits[k].name), NULL));
	return STEP_DONE;
}

void
sw_mark_started(struct sw_step *s, const char *key)
{
	char now[32];

	if (sw_fmt(now, sizeof(now), "%lld", (long long)sw_db_now_ms(s->db)) ==
	    SW_OK)
		sw_res_set(s, key, now);
}

enum sw_step_rc
sw_wait_since(struct sw_step *s, enum sw_wait_kind k, const char *key)
{
	const char *v = sw_res_get(s, key);
	int64_t due, now;

	if (s->plan || v == NULL)
		return STEP_DONE;
	/* v is the database's clock: the poller that resumes the stage
	 * may run on another host */
	due = strtoll(v, NULL, 10) + sw_poll_ms(s, waits[k].first_ms);
	if ((now = sw_db_now_ms(s->db)) >= due)
		return STEP_DONE;
	s->wait_ms = due - now;
	sw_fmt_text(s->msg, sizeof(s->msg), "waiting for %s", waits[k].name);
	return STEP_WAIT;
}

json_object *
sw_trust_service(const char *principal)
{
	return sw_jo("Version", sw_js("2012-10-17"), "Statement",
	    sw_ja(sw_jo("Effect", sw_js("Allow"), "Principal",
		sw_jo("Service", sw_js(principal), NULL), "Action",
		sw_js("sts:AssumeRole"), NULL)),
	    NULL);
}

json_object *
sw_trust_pods(void)
{
	return sw_jo("Version", sw_js("2012-10-17"), "Statement",
	    sw_ja(sw_jo("Effect", sw_js("Allow"), "Principal",
		sw_jo("Service", sw_js("pods.eks.amazonaws.com"), NULL),
		"Action",
		sw_ja(sw_js("sts:AssumeRole"), sw_js("sts:TagSession")), NULL)),
	    NULL);
}

enum sw_step_rc
sw_ensure_pods_role(struct sw_step *s, const struct sw_role *r)
{
	struct sw_role pods = *r;
	enum sw_step_rc rc;

	pods.trust = sw_trust_pods();
	rc = sw_ensure_role(s, &pods);
	json_object_put(pods.trust);
	return rc;
}

/* A JSON document as IAM takes it, a new string (free()). */
static char *
role_doc_text(json_object *doc)
{
	const char *t = json_object_to_json_string_ext(
	    doc, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);

	return sw_strdup(t != NULL ? t : "{}");
}

/* An IAM role ARN (a path of up to 512 characters and a name of 64). */
#define ROLE_ARN_MAX 768

/* IAM's answer names the role: its ARN copied into arn[ROLE_ARN_MAX]. */
static enum sw_step_rc
role_record(struct sw_step *s, const struct sw_role *r, json_object *out,
    const char *result, char *arn_out)
{
	char path[64];
	const char *arn;

	if (sw_fmt(path, sizeof(path), "%s.Role.Arn", result) != SW_OK)
		arn = NULL;
	else
		arn = sw_out_str(out, "Role.Arn", path, NULL);
	if (arn == NULL && s->plan)
		arn = "arn:aws:iam::planned:role/planned";
	if (arn == NULL) {
		json_object_put(out);
		return sw_step_fail(s, "%s %s gave no ARN", result, r->name);
	}
	if (sw_fmt(arn_out, ROLE_ARN_MAX, "%s", arn) != SW_OK) {
		json_object_put(out);
		return sw_step_fail(s, "%s %s: ARN too long", result, r->name);
	}
	json_object_put(out);
	return STEP_DONE;
}

/*
 * The role's ARN into arn[ROLE_ARN_MAX]; *made when this call created
 * it.  A plan reads the role first and names the create only when there
 * is none yet; a run creates first and reads the role only when it
 * exists already (EntityAlreadyExists).
 */
static enum sw_step_rc
role_find_or_create(
    struct sw_step *s, const struct sw_role *r, int *made, char *arn)
{
	struct aws_error err;
	json_object *out;
	enum sw_step_rc rc;
	char *trust;

	*made = 0;
	if (s->plan) {
		TRY(sw_step_aws_ok(s, AWS_SVC_IAM, "GetRole",
		    sw_jo("RoleName", sw_js(r->name), NULL), &out,
		    "NoSuchEntity"));
		if (sw_out_str(out, "Role.Arn", "GetRoleResult.Role.Arn",
			NULL) != NULL)
			return role_record(s, r, out, "GetRoleResult", arn);
		json_object_put(out);
	}
	if ((trust = role_doc_text(r->trust)) == NULL)
		return sw_step_fail(s, "out of memory");
	memset(&err, 0, sizeof(err));
	rc = sw_step_aws(s, AWS_SVC_IAM, "CreateRole",
	    sw_jo("RoleName", sw_js(r->name), "AssumeRolePolicyDocument",
		sw_js(trust), "Description", sw_js("Created by Slipway"),
		"PermissionsBoundary", sw_js(sw_config_boundary(s->cfg)),
		"Tags", sw_tag_list(s), NULL),
	    &out, &err);
	free(trust);
	if (rc == STEP_FAIL && strcmp(err.code, "EntityAlreadyExists") == 0) {
		/* Made by an earlier run: its ARN by name. */
		s->msg[0] = '\0';
		TRY(sw_step_aws(s, AWS_SVC_IAM, "GetRole",
		    sw_jo("RoleName", sw_js(r->name), NULL), &out, NULL));
		return role_record(s, r, out, "GetRoleResult", arn);
	}
	if (rc != STEP_DONE)
		return rc;
	*made = 1;
	return role_record(s, r, out, "CreateRoleResult", arn);
}

/* Whether the live role has managed policy arn attached. */
static enum sw_step_rc
role_has_managed(
    struct sw_step *s, const char *name, const char *arn, int *have)
{
	json_object *out, *list;
	size_t i, n;

	*have = 0;
	TRY(sw_step_aws(s, AWS_SVC_IAM, "ListAttachedRolePolicies",
	    sw_jo("RoleName", sw_js(name), NULL), &out, NULL));
	list = sw_out_array(out, "AttachedPolicies",
	    "ListAttachedRolePoliciesResult.AttachedPolicies", NULL);
	n = list != NULL ? json_object_array_length(list) : 0;
	for (i = 0; i < n; i++)
		if (strcmp(sw_json_get_str(
			       json_object_array_get_idx(list, i), "PolicyArn")
			    ?: "",
			arn) == 0)
			*have = 1;
	json_object_put(out);
	return STEP_DONE;
}

/* Whether the live role's inline policy pname is doc (IAM returns it
 * URL-encoded). */
static enum sw_step_rc
role_has_inline(struct sw_step *s, const char *name, const char *pname,
    json_object *doc, int *have)
{
	json_object *out, *live = NULL;
	const char *enc;
	char *raw;
	size_t n;

	*have = 0;
	TRY(sw_step_aws_ok(s, AWS_SVC_IAM, "GetRolePolicy",
	    sw_jo("RoleName", sw_js(name), "PolicyName", sw_js(pname), NULL),
	    &out, "NoSuchEntity"));
	enc = sw_out_str(
	    out, "PolicyDocument", "GetRolePolicyResult.PolicyDocument", NULL);
	if (enc != NULL && (raw = sw_malloc((n = strlen(enc) + 1))) != NULL) {
		if (sw_url_decode(enc, n - 1, raw, n) >= 0)
			live = json_tokener_parse(raw);
		free(raw);
	}
	json_object_put(out);
	*have = live != NULL && json_object_equal(live, doc);
	json_object_put(live);
	return STEP_DONE;
}

/* Each managed policy attached, each only when the live role lacks it
 * (a role made just now has none). */
static enum sw_step_rc
role_attach(struct sw_step *s, const struct sw_role *r, int made)
{
	json_object *out;
	int i, have = 0;

	for (i = 0; r->managed != NULL && r->managed[i] != NULL; i++) {
		if (!made)
			TRY(role_has_managed(s, r->name, r->managed[i], &have));
		if (have)
			continue;
		TRY(sw_step_aws(s, AWS_SVC_IAM, "AttachRolePolicy",
		    sw_jo("RoleName", sw_js(r->name), "PolicyArn",
			sw_js(r->managed[i]), NULL),
		    &out, NULL));
		json_object_put(out);
	}
	return STEP_DONE;
}

/*
 * The role whole: made or found, its managed policies attached and its
 * inline policy put.  Its ARN is recorded under r->key only then, so a
 * stage that comes back to it (after a wait) reads nothing again, and
 * one that died half-way through finds the key missing and checks the
 * live role.
 */
enum sw_step_rc
sw_ensure_role(struct sw_step *s, const struct sw_role *r)
{
	json_object *out;
	enum sw_step_rc rc;
	char *text, arn[ROLE_ARN_MAX];
	int made, have = 0;

	if (sw_res_get(s, r->key) != NULL)
		return STEP_DONE;
	TRY(role_find_or_create(s, r, &made, arn));
	TRY(role_attach(s, r, made));
	if (r->inline_doc != NULL && !made)
		TRY(role_has_inline(
		    s, r->name, r->inline_name, r->inline_doc, &have));
	if (r->inline_doc != NULL && !have) {
		if ((text = role_doc_text(r->inline_doc)) == NULL)
			return sw_step_fail(s, "out of memory");
		rc = sw_step_aws(s, AWS_SVC_IAM, "PutRolePolicy",
		    sw_jo("RoleName", sw_js(r->name), "PolicyName",
			sw_js(r->inline_name), "PolicyDocument", sw_js(text),
			NULL),
		    &out, NULL);
		free(text);
		if (rc != STEP_DONE)
			return rc;
		json_object_put(out);
	}
	sw_res_set(s, r->key, arn);
	return STEP_DONE;
}

const char *
sw_account_id(struct sw_step *s)
{
	char arn[256];
	struct aws_error err;

	/* Kept on the context: a cluster of a member account has its own. */
	if (s->aws->account[0] != '\0')
		return s->aws->account;
	memset(&err, 0, sizeof(err));
	if (aws_sts_get_caller_identity(s->aws, s->aws->account,
		sizeof(s->aws->account), arn, sizeof(arn), &err) != SW_OK) {
		s->aws->account[0] = '\0';
		return NULL;
	}
	return s->aws->account;
}

enum sw_step_rc
sw_kube_open(struct sw_step *s, const char *cluster, struct sw_kube *kb)
{
	const char *known = sw_res_from(s, "eks", "endpoint");
	struct aws_error err;
	int asked = 1;
	sw_err e;

	memset(kb, 0, sizeof(*kb));
	if (s->plan)
		return STEP_DONE;
	/* The endpoint this operation's eks stage saw ACTIVE: its CA is
	 * remembered, so no DescribeCluster per step. */
	if (known != NULL && strcmp(cluster, CLUSTER(s)) == 0)
		e = sw_kube_connect_known(
		    s->aws, cluster, known, kb, &err, &asked);
	else
		e = sw_kube_connect(s->aws, cluster, kb, &err);
	s->calls_made += asked;
	if (e == SW_OK) {
		/* The cluster is read for the person who asked; Kubernetes
		 * is reached as Slipway's own identity (its access entry). */
		kb->src->ctx = s->svc_aws != NULL ? s->svc_aws : s->aws;
		return STEP_DONE;
	}
	sw_kube_close(kb);
	if (e == SW_ECONFLICT)
		return sw_step_wait(s, sw_poll_ms(s, 30000),
		    "cluster %s has no endpoint yet", cluster);
	if (sw_err_transient(e))
		return sw_step_transient(s,
		    "eks DescribeCluster: %s (will retry)",
		    err.code[0] ? err.code : "transport error");
	return sw_step_fail(s, "Kubernetes API of %s: %s: %s", cluster,
	    err.code[0] ? err.code : sw_err_slug(e),
	    err.message[0] ? err.message : "cannot connect");
}

enum sw_step_rc
sw_kube_fence(struct sw_step *s, struct sw_kube *kb)
{
	return sw_step_fence(s, &kb->k.http, "a Kubernetes change");
}

void
sw_kube_unfence(struct sw_kube *kb)
{
	kb->k.http.send_by_ms = 0;
}

enum sw_step_rc
sw_kube_apply(struct sw_step *s, struct sw_kube *kb, json_object *obj)
{
	return sw_kube_apply_out(s, kb, obj, NULL, NULL);
}

enum sw_step_rc
sw_kube_apply_out(struct sw_step *s, struct sw_kube *kb, json_object *obj,
    json_object **out, int *status)
{
	const char *api = sw_json_get_str(obj, "apiVersion");
	const char *kind = sw_json_get_str(obj, "kind");
	const char *ns = sw_json_path_str(obj, "metadata.namespace");
	const char *name = sw_json_path_str(obj, "metadata.name");
	char plural[64], path[512];
	struct k8s_error err;
	size_t i;
	sw_err e;

	if (api == NULL || kind == NULL || name == NULL)
		return sw_step_fail(s,
		    "manifest without apiVersion, kind or "
		    "name");
	/* Kinds we apply all pluralise by lower-casing and adding "s". */
	for (i = 0; kind[i] != '\0' && i + 2 < sizeof(plural); i++)
		plural[i] =
		    (char)(kind[i] >= 'A' && kind[i] <= 'Z' ? kind[i] + 32
							    : kind[i]);
	if (i > 0 && plural[i - 1] == 's')
		plural[i++] = 'e';
	plural[i++] = 's';
	plural[i] = '\0';
	if (out != NULL)
		*out = NULL;
	if (status != NULL)
		*status = 0;
	if (s->plan) {
		json_object_array_add(s->calls,
		    sw_jo("stage", sw_js(s->stage), "kubernetes",
			sw_js("apply"), "apiVersion", sw_js(api), "kind",
			sw_js(kind), "namespace", ns ? sw_js(ns) : NULL, "name",
			sw_js(name), NULL));
		return STEP_DONE;
	}
	if (k8s_path(path, sizeof(path), api, ns, plural, name) != SW_OK)
		return sw_step_fail(
		    s, "bad manifest path for %s/%s", kind, name);
	memset(&err, 0, sizeof(err));
	TRY(sw_kube_fence(s, kb));
	s->calls_made++;
	e = k8s_apply(&kb->k, path, obj, out, &err);
	sw_kube_unfence(kb);
	if (e == SW_OK)
		return STEP_DONE;
	if (out != NULL) {
		json_object_put(*out);
		*out = NULL;
	}
	if (status != NULL)
		*status = err.status;
	if (e == SW_ETHROTTLED || e == SW_EUNAVAIL || e == SW_ETIMEOUT ||
	    err.status >= 500 || err.status == 0)
		return sw_step_wait(s, sw_poll_ms(s, 10000),
		    "apply %s/%s: %s (will retry)", kind, name, err.message);
	return sw_step_fail(s, "apply %s/%s: %s", kind, name,
	    err.message[0] ? err.message : "refused");
}

enum sw_step_rc
sw_remove_role(struct sw_step *s, const char *name)
{
	json_object *out, *list, *o2;
	enum sw_step_rc rc;
	const char *v;
	size_t i;

	TRY(sw_step_aws_ok(s, AWS_SVC_IAM, "GetRole",
	    sw_jo("RoleName", sw_js(name), NULL), &out, "NoSuchEntity"));
	v = sw_out_str(out, "Role.Arn", "GetRoleResult.Role.Arn", NULL);
	json_object_put(out);
	if (v == NULL)
		return STEP_DONE;
	TRY(sw_step_aws(s, AWS_SVC_IAM, "ListAttachedRolePolicies",
	    sw_jo("RoleName", sw_js(name), NULL), &out, NULL));
	list = sw_json_get(out, "AttachedPolicies");
	if (list == NULL)
		list = sw_json_path(
		    out, "ListAttachedRolePoliciesResult.AttachedPolicies");
	for (i = 0; list && json_object_is_type(list, json_type_array) &&
	     i < json_object_array_length(list);
	     i++) {
		rc = sw_step_aws_ok(s, AWS_SVC_IAM, "DetachRolePolicy",
		    sw_jo("RoleName", sw_js(name), "PolicyArn",
			sw_js(sw_json_get_str(
			    json_object_array_get_idx(list, i), "PolicyArn")),
			NULL),
		    &o2, "NoSuchEntity");
		json_object_put(o2);
		if (rc != STEP_DONE) {
			json_object_put(out);
			return rc;
		}
	}
	json_object_put(out);
	TRY(sw_step_aws(s, AWS_SVC_IAM, "ListRolePolicies",
	    sw_jo("RoleName", sw_js(name), NULL), &out, NULL));
	list = sw_json_get(out, "PolicyNames");
	if (list == NULL)
		list = sw_json_path(out, "ListRolePoliciesResult.PolicyNames");
	for (i = 0; list && json_object_is_type(list, json_type_array) &&
	     i < json_object_array_length(list);
	     i++) {
		v = json_object_get_string(json_object_array_get_idx(list, i));
		rc = sw_step_aws_ok(s, AWS_SVC_IAM, "DeleteRolePolicy",
		    sw_jo(
			"RoleName", sw_js(name), "PolicyName", sw_js(v), NULL),
		    &o2, "NoSuchEntity");
		json_object_put(o2);
		if (rc != STEP_DONE) {
			json_object_put(out);
			return rc;
		}
	}
	json_object_put(out);
	TRY(sw_step_aws_ok(s, AWS_SVC_IAM, "DeleteRole",
	    sw_jo("RoleName", sw_js(name), NULL), &out, "NoSuchEntity"));
	json_object_put(out);
	return STEP_DONE;
}

const char *
sw_planned(struct sw_step *s, const char *v, const char *what)
{
	return v != NULL ? v : s->plan ? what : NULL;
}

enum sw_step_rc
sw_hp_status_step(
    struct sw_step *s, json_object *hp, const char *what, int64_t poll_ms)
{
	const char *status = sw_keep(s, sw_json_get_str(hp, "ClusterStatus"));
	const char *why = sw_json_get_str(hp, "FailureMessage");

	if (status != NULL && strcmp(status, "InService") == 0)
		return STEP_DONE;
	if (status != NULL && strcmp(status, "Failed") == 0)
		return sw_step_fail(s, "%s: HyperPod cluster %s failed: %s",
		    what, CLUSTER(s), why ? why : "no reason given");
	return sw_step_wait(s, sw_poll_ms(s, poll_ms),
	    "%s: HyperPod cluster "
	    "%s is %s",
	    what, CLUSTER(s), status ? status : "unknown");
}

enum sw_step_rc
sw_hp_wait_in_service(
    struct sw_step *s, const char *what, int64_t poll_ms, json_object **out)
{
	json_object *hp = NULL;
	enum sw_step_rc rc;

	if (out != NULL)
		*out = NULL;
	if (s->plan)
		return STEP_DONE;
	rc = sw_step_hp_describe(s, CLUSTER(s), &hp, NULL);
	if (rc == STEP_DONE)
		rc = sw_hp_status_step(s, hp, what, poll_ms);
	if (out != NULL && hp != NULL)
		*out = hp;
	else
		json_object_put(hp);
	return rc;
}

/*
 * The Kubernetes version of the step's cluster into *kver (kept in the
 * step): what this operation's eks stage recorded, else DescribeCluster.
 * In a plan made before the cluster exists, *kver is NULL and the step
 * is done.
 */
static enum sw_step_rc
cluster_kver(struct sw_step *s, const char **kver)
{
	json_object *eks;
	enum sw_step_rc rc;

	*kver = sw_res_from(s, "eks", "kubernetes_version");
	if (*kver != NULL)
		return STEP_DONE;
	rc = sw_step_aws(s, AWS_SVC_EKS, "DescribeCluster",
	    sw_jo("name", sw_js(CLUSTER(s)), NULL), &eks, NULL);
	if (rc != STEP_DONE && s->plan) {
		s->msg[0] = '\0';
		return STEP_DONE;
	}
	if (rc != STEP_DONE)
		return rc;
	*kver = sw_keep(s, sw_json_path_str(eks, "cluster.version"));
	json_object_put(eks);
	if (*kver == NULL)
		return sw_step_fail(s,
		    "EKS cluster %s has no Kubernetes "
		    "version",
		    CLUSTER(s));
	return STEP_DONE;
}

/* The version of one add-on document of DescribeAddonVersions for kver:
 * its default there, else the first compatible one; NULL if none. */
static const char *
pick_addon_version(struct sw_step *s, json_object *addon, const char *kver)
{
	json_object *vers = sw_json_get(addon, "addonVersions");
	const char *pick = NULL;
	size_t i, j;

	for (i = 0; vers && i < json_object_array_length(vers); i++) {
		json_object *v = json_object_array_get_idx(vers, i);
		json_object *comp = sw_json_get(v, "compatibilities");

		for (j = 0; comp && j < json_object_array_length(comp); j++) {
			json_object *c = json_object_array_get_idx(comp, j);

			if (strcmp(sw_json_get_str(c, "clusterVersion") ?: "",
				kver) != 0)
				continue;
			if (pick == NULL ||
			    sw_json_get_bool(c, "defaultVersion", 0))
				pick = sw_keep(
				    s, sw_json_get_str(v, "addonVersion"));
		}
	}
	return pick;
}

/* Largest number of DescribeAddonVersions pages read for one stage. */
#define ADDON_VERSION_PAGES 20
/* How long what EKS offers for a Kubernetes version is kept: it
 * publishes add-on versions every few weeks. */
#define ADDON_VERSIONS_KEEP_MS (15 * 60 * 1000)

enum sw_step_rc
sw_addon_versions(struct sw_step *s, const char *const *addons)
{
	json_object *out = NULL, *list;
	const char *kver, *token = NULL, *name, *pick;
	char key[128], tok[1024];
	int pages = 0, missing;
	size_t i, k;

	for (missing = 0, k = 0; addons[k] != NULL; k++) {
		if (sw_fmt(key, sizeof(key), "addon_version.%s", addons[k]) !=
		    SW_OK)
			return sw_step_fail(
			    s, "add-on name %s too long", addons[k]);
		missing += sw_res_get(s, key) == NULL;
	}
	if (missing == 0)
		return STEP_DONE;
	TRY(cluster_kver(s, &kver));
	if (kver == NULL)
		return STEP_DONE;
	do {
		TRY(sw_step_aws_kept(s, AWS_SVC_EKS, "DescribeAddonVersions",
		    sw_jo("kubernetesVersion", sw_js(kver), "nextToken",
			token ? sw_js(token) : NULL, NULL),
		    &out, ADDON_VERSIONS_KEEP_MS));
		list = sw_json_get(out, "addons");
		for (i = 0;
		     list && json_object_is_type(list, json_type_array) &&
		     i < json_object_array_length(list);
		     i++) {
			json_object *a = json_object_array_get_idx(list, i);

			name = sw_json_get_str(a, "addonName");
			for (k = 0; name != NULL && addons[k] != NULL; k++) {
				/* names that fit, as the loop above found */
				if (strcmp(name, addons[k]) != 0 ||
				    sw_fmt(key, sizeof(key), "addon_version.%s",
					name) != SW_OK)
					continue;
				if (sw_res_get(s, key) == NULL &&
				    (pick = pick_addon_version(s, a, kver)) !=
					NULL) {
					sw_res_set(s, key, pick);
					missing--;
				}
			}
		}
		token = sw_json_copy_str(out, "nextToken", tok, sizeof(tok));
		json_object_put(out);
	} while (token != NULL && missing > 0 && ++pages < ADDON_VERSION_PAGES);
	/* What is still missing is looked up one by one and reported by
	 * sw_addon_version. */
	return STEP_DONE;
}

/*
 * The version of addon to create on this cluster, into in's
 * addonVersion: the one sw_addon_versions recorded, else
 * DescribeAddonVersions for the cluster's Kubernetes version, its
 * default there, else the first compatible one.  Fails naming the
 * Kubernetes version when none is compatible.  A plan made before the
 * EKS cluster exists leaves the version to the create.
 */
enum sw_step_rc
sw_addon_version(struct sw_step *s, const char *addon, json_object *in)
{
	json_object *out;
	const char *kver, *pick;
	char key[128];

	if (sw_fmt(key, sizeof(key), "addon_version.%s", addon) != SW_OK)
		return sw_step_fail(s, "add-on name %s too long", addon);
	if ((pick = sw_res_get(s, key)) != NULL) {
		json_object_object_add(in, "addonVersion", sw_js(pick));
		return STEP_DONE;
	}
	TRY(cluster_kver(s, &kver));
	if (kver == NULL)
		return STEP_DONE;
	TRY(sw_step_aws(s, AWS_SVC_EKS, "DescribeAddonVersions",
	    sw_jo("addonName", sw_js(addon), "kubernetesVersion", sw_js(kver),
		NULL),
	    &out, NULL));
	pick = pick_addon_version(s, sw_json_path(out, "addons[0]"), kver);
	json_object_put(out);
	if (pick == NULL)
		return sw_step_fail(s,
		    "add-on %s has no version compatible "
		    "with Kubernetes %s",
		    addon, kver);
	json_object_object_add(in, "addonVersion", sw_js(pick));
	return STEP_DONE;
}
