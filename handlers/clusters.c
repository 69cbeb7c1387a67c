/*
 * clusters.c: inspect-before-create reads (regions, availability zones,
 * instance types, training plans), and cluster create / list / get /
 * delete / import.  Creates and deletes are operations run by the
 * poller; with dry_run they answer with the plan instead.
 *
 * A create request is checked in three layers:
 *   1. the field tables in api/ops/clusters.c (types, bounds, patterns);
 *   2. cross-field rules here (400, naming the field and the rule):
 *      CIDR overlap, unknown AZ, EFA-only on a type without EFA, spot
 *      with a training plan, duplicate group names;
 *   3. pre-flight against the live account (422): instance type offered
 *      in the AZ, training-plan reservation, service quota net of what
 *      the account already runs (handlers/capacity.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/handlers.h"
#include "cloud/aws_api.h"
#include "cloud/aws_member.h"
#include "cloud/aws_person.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "lib/log.h"
#include "lib/ops.h"
#include "api/optable.h"
#include "pipelines/pipelines.h"

/* ---- the AWS context of this worker process ---------------------------- */

static struct aws_ctx worker_aws;
static int worker_aws_ready;

/* The worker's own context: Slipway's account and configured region. */
static struct aws_ctx *
worker_base(struct sw_req *r)
{
	if (!worker_aws_ready) {
		if (sw_aws_setup(&worker_aws, r->cfg) != SW_OK) {
			aws_ctx_free(&worker_aws);
			memset(&worker_aws, 0, sizeof(worker_aws));
			return NULL;
		}
		worker_aws_ready = 1;
	}
	return &worker_aws;
}

/*
 * Where the cluster a request is about lives, into rec's account and
 * region ("" for Slipway's own): cluster_create's account and region
 * fields, else the record of the cluster it names (the {name} of a
 * /clusters/{name} path, else its "cluster" field).
 */
static void
req_place(struct sw_req *r, struct sw_cluster_rec *rec)
{
	const char *name;

	memset(rec, 0, sizeof(*rec));
	if (r->op == NULL || r->args == NULL)
		return;
	if (strcmp(r->op->name, "cluster_create") == 0) {
		name = sw_json_get_str(r->args, "account");
		sw_fmt_text(
		    rec->account, sizeof(rec->account), "%s", name ? name : "");
		name = sw_json_get_str(r->args, "region");
		sw_fmt_text(
		    rec->region, sizeof(rec->region), "%s", name ? name : "");
		return;
	}
	name = strncmp(r->op->path, "/api/v1/clusters/{name}", 23) == 0
	    ? sw_json_get_str(r->args, "name")
	    : sw_json_get_str(r->args, "cluster");
	if (name == NULL || sw_cluster_get(r->db, name, rec) != SW_OK)
		memset(rec, 0, sizeof(*rec));
}

/*
 * The context of the request's cluster (cloud/aws_member.h), chosen
 * once per request: the worker's own, or one in the cluster's account
 * and region.  NULL with err filled when there is no client
 * (NoAwsClient) or the member account's role refused Slipway ("cannot
 * reach account ..."; SW_EFORBIDDEN or a transient error in *e).
 */
static struct aws_ctx *
place_ctx(struct sw_req *r, struct aws_error *err, sw_err *e)
{
	struct aws_ctx *base = worker_base(r);
	struct sw_cluster_rec rec;
	char role[2049], said[sizeof(err->message)];

	aws_error_clear(err);
	*e = SW_EUNAVAIL;
	if (r->aws != NULL)
		return r->aws;
	if (base == NULL) {
		sw_fmt_text(err->code, sizeof(err->code), "NoAwsClient");
		return NULL;
	}
	req_place(r, &rec);
	if (aws_member_ctx(base, r->cfg, rec.account, rec.region, &r->aws, role,
		sizeof(role), err) == SW_OK)
		return r->aws;
	r->aws = NULL;
	*e = err->retryable || err->transport ? SW_EUNAVAIL : SW_EFORBIDDEN;
	memcpy(said, err->message, sizeof(said));
	sw_fmt_text(err->message, sizeof(err->message),
	    "cannot reach "
	    "account %s: sts:AssumeRole of %s: %s",
	    rec.account, role, said);
	return NULL;
}

struct aws_ctx *
h_aws(struct sw_req *r)
{
	struct aws_error err;
	sw_err e;

	return place_ctx(r, &err, &e);
}

/*
 * The context for the AWS calls a request makes itself: for a cluster
 * of Slipway's own account and region, a session acting for the caller
 * (cloud/aws_person.h: sts:AssumeRole of the person role with
 * SourceIdentity = the caller, so CloudTrail names who asked) when a
 * person role is configured, else the worker's own; for a cluster
 * elsewhere, the context of its account and region.  NULL with err
 * filled when there is no client (NoAwsClient) or STS refused to act for
 * the caller or to enter the account (its error, and SW_EFORBIDDEN or a
 * transient one in *e).  The Kubernetes connection (h_kube) stays the
 * worker's: the cluster's access entries are for Slipway's role.
 */
struct aws_ctx *
h_aws_for(struct sw_req *r, struct aws_error *err, sw_err *e)
{
	struct aws_ctx *base = place_ctx(r, err, e), *out;
	char said[sizeof(err->message)];

	if (base == NULL)
		return NULL;
	if (base != worker_base(r))
		return base;
	if (aws_person_ctx(base, r->cfg, r->who.name, &out, err) == SW_OK)
		return out;
	*e = err->retryable || err->transport ? SW_EUNAVAIL : SW_EFORBIDDEN;
	memcpy(said, err->message, sizeof(said));
	sw_fmt_text(err->message, sizeof(err->message),
	    "cannot act for %s: "
	    "sts:AssumeRole of %s: %s",
	    r->who.name, sw_config_person_role(r->cfg), said);
	return NULL;
}

sw_err
h_call(struct sw_req *r, enum aws_service svc, const char *op, json_object *in,
    json_object **out, struct aws_error *err)
{
	struct aws_ctx *aws;
	sw_err e;

	*out = NULL;
	if ((aws = h_aws_for(r, err, &e)) == NULL) {
		json_object_put(in);
		return e;
	}
	e = aws_call(aws, svc, op, in, out, err);
	json_object_put(in);
	return e;
}

sw_err
h_call_fact(struct sw_req *r, enum aws_service svc, const char *op,
    json_object *in, json_object **out, struct aws_error *err)
{
	return h_call_kept(r, svc, op, in, out, err, H_FACT_KEEP_MS, 0);
}

sw_err
h_call_kept(struct sw_req *r, enum aws_service svc, const char *op,
    json_object *in, json_object **out, struct aws_error *err, int64_t keep_ms,
    int fresh)
{
	struct aws_keep keep = { keep_ms, fresh, sw_config_account(r->cfg) };
	struct aws_ctx *aws;
	sw_err e;

	*out = NULL;
	if ((aws = h_aws_for(r, err, &e)) == NULL) {
		json_object_put(in);
		return e;
	}
	e = aws_call_kept(aws, r->db, svc, op, in, out, err, &keep);
	json_object_put(in);
	return e;
}

sw_err
h_hp_describe(struct sw_req *r, const char *name, json_object **out,
    struct aws_error *err)
{
	struct aws_ctx *aws;
	sw_err e;

	*out = NULL;
	if ((aws = h_aws_for(r, err, &e)) == NULL)
		return e;
	return aws_hp_describe(aws, name, out, err);
}

sw_err
h_hp_need(struct sw_req *r, const char *name, json_object **out)
{
	struct aws_error err;
	sw_err e;

	if ((e = h_hp_describe(r, name, out, &err)) == SW_OK)
		return SW_OK;
	if (e == SW_ENOTFOUND)
		return sw_req_fail(r, e, "no HyperPod cluster %s", name);
	return h_aws_fail(r, AWS_SVC_SAGEMAKER, "DescribeCluster", e, &err);
}

sw_err
h_kube(struct sw_req *r, const char *cluster, struct sw_kube *kb)
{
	struct aws_error err;
	sw_err e;

	memset(kb, 0, sizeof(*kb));
	if (h_aws(r) == NULL)
		return sw_req_fail(r, SW_EUNAVAIL,
		    "no AWS client: check the "
		    "credentials and region");
	if ((e = sw_kube_connect(h_aws(r), cluster, kb, &err)) == SW_OK)
		return SW_OK;
	sw_kube_close(kb);
	if (e == SW_ENOTFOUND)
		return sw_req_fail(r, e, "no EKS cluster %s", cluster);
	if (e == SW_ECONFLICT)
		return sw_req_fail(r, e,
		    "cluster %s is not ready: it has no "
		    "Kubernetes endpoint yet",
		    cluster);
	/* Still throttled or failing after the retries: 429/503/504 with
	 * Retry-After (aws_error_sw said so), as every AWS call of a
	 * request. */
	return sw_req_fail(r, e == SW_EINVAL ? SW_EUPSTREAM : e,
	    "cluster %s: "
	    "%s %s",
	    cluster, err.code, err.message);
}

sw_err
h_aws_fail(struct sw_req *r, enum aws_service svc, const char *op, sw_err e,
    const struct aws_error *err)
{
	if (e == SW_EUNAVAIL && strcmp(err->code, "NoAwsClient") == 0)
		return sw_req_fail(r, e,
		    "no AWS client: check the "
		    "credentials and region");
	if (strncmp(err->message, "cannot act for ", 15) == 0 ||
	    strncmp(err->message, "cannot reach account ", 21) == 0)
		return sw_req_fail(r, e, "%s %s: %s %s", aws_service(svc)->id,
		    op, err->code[0] ? err->code : "error", err->message);
	if (e == SW_ENOTFOUND || err->http_status == 404)
		return sw_req_fail(
		    r, SW_ENOTFOUND, "%s: %s", err->code, err->message);
	/* An input AWS refused is ours (the caller's passed validation). */
	return sw_req_fail(r, e == SW_EINVAL || e == SW_OK ? SW_EUPSTREAM : e,
	    "%s %s: %s: %s", aws_service(svc)->id, op,
	    err->code[0] ? err->code : "error", err->message);
}

/* Call AWS for a handler; on failure fill the problem and return it. */
static sw_err
call(struct sw_req *r, enum aws_service svc, const char *op, json_object *in,
    json_object **out)
{
	struct aws_error err;
	sw_err e;

	e = h_call(r, svc, op, in, out, &err);
	return e == SW_OK ? SW_OK : h_aws_fail(r, svc, op, e, &err);
}

/* call() of a fact of the region (h_call_fact). */
static sw_err
call_fact(struct sw_req *r, enum aws_service svc, const char *op,
    json_object *in, json_object **out)
{
	struct aws_error err;
	sw_err e;

	e = h_call_fact(r, svc, op, in, out, &err);
	return e == SW_OK ? SW_OK : h_aws_fail(r, svc, op, e, &err);
}

/* ---- inspection ------------------------------------------------------ */

/* Regions where SageMaker HyperPod runs (AWS documentation). */
static const char *const hyperpod_regions[] = { "us-east-1", "us-east-2",
	"us-west-1", "us-west-2", "ap-south-1", "ap-southeast-1",
	"ap-southeast-2", "ap-southeast-3", "ap-southeast-4", "ap-northeast-1",
	"eu-central-1", "eu-north-1", "eu-south-2", "eu-west-1", "eu-west-2",
	"sa-east-1", NULL };

sw_err
h_region_list(struct sw_req *r)
{
	json_object *items = json_object_new_array();
	int i;

	for (i = 0; hyperpod_regions[i] != NULL; i++)
		json_object_array_add(items,
		    sw_jo("name", sw_js(hyperpod_regions[i]), "current",
			sw_jb(strcmp(hyperpod_regions[i], r->cfg->region) == 0),
			NULL));
	sw_req_reply(r, 200,
	    sw_jo("region", sw_js(r->cfg->region), "items", items, NULL));
	return SW_OK;
}

/* AZs of the region: [{name, id, state}]; new reference or NULL. */
static json_object *
zones(struct sw_req *r)
{
	json_object *out, *list, *items;
	size_t i;

	if (call_fact(r, AWS_SVC_EC2, "DescribeAvailabilityZones",
		sw_jo("Filters",
		    sw_ja(sw_jo("Name", sw_js("zone-type"), "Values",
			sw_ja(sw_js("availability-zone")), NULL)),
		    NULL),
		&out) != SW_OK)
		return NULL;
	items = json_object_new_array();
	list = sw_json_get(out, "availabilityZoneInfo");
	for (i = 0; list && i < json_object_array_length(list); i++) {
		json_object *z = json_object_array_get_idx(list, i);

		json_object_array_add(items,
		    sw_jo("name", sw_js(sw_json_get_str(z, "zoneName")), "id",
			sw_js(sw_json_get_str(z, "zoneId")
				? sw_json_get_str(z, "zoneId")
				: ""),
			"state",
			sw_js(sw_json_get_str(z, "zoneState")
				? sw_json_get_str(z, "zoneState")
				: "available"),
			NULL));
	}
	json_object_put(out);
	return items;
}

sw_err
h_az_list(struct sw_req *r)
{
	json_object *items = zones(r);

	if (items == NULL)
		return r->err;
	sw_req_reply(r, 200,
	    sw_jo("region", sw_js(r->cfg->region), "items", items, NULL));
	return SW_OK;
}

/* EC2 types offered per AZ: {type: [az, ...]}; new or NULL. */
static json_object *
offerings(struct sw_req *r, const char *type)
{
	json_object *out, *list, *map;
	json_object *filters = NULL;
	size_t i;

	if (type != NULL)
		filters = sw_ja(sw_jo("Name", sw_js("instance-type"), "Values",
		    sw_ja(sw_js(sw_ec2_type(type))), NULL));
	if (call_fact(r, AWS_SVC_EC2, "DescribeInstanceTypeOfferings",
		sw_jo("LocationType", sw_js("availability-zone"), "Filters",
		    filters, NULL),
		&out) != SW_OK)
		return NULL;
	map = json_object_new_object();
	list = sw_json_get(out, "instanceTypeOfferingSet");
	for (i = 0; list && i < json_object_array_length(list); i++) {
		json_object *o = json_object_array_get_idx(list, i), *azs;
		const char *t = sw_json_get_str(o, "instanceType");
		const char *az = sw_json_get_str(o, "location");

		if (t == NULL || az == NULL)
			continue;
		if ((azs = sw_json_get(map, t)) == NULL) {
			azs = json_object_new_array();
			json_object_object_add(map, t, azs);
		}
		json_object_array_add(azs, sw_js(az));
	}
	json_object_put(out);
	return map;
}

/* EC2 facts of types: {type: {gpus, gpu_name, efa, vcpus, memory_mib}}. */
static json_object *
type_facts(struct sw_req *r, json_object *types)
{
	json_object *out, *list, *map, *names;
	size_t i;

	names = json_object_new_array();
	json_object_object_foreach(types, t, v)
	{
		(void)v;
		json_object_array_add(names, sw_js(t));
	}
	if (json_object_array_length(names) == 0) {
		json_object_put(names);
		return json_object_new_object();
	}
	if (call_fact(r, AWS_SVC_EC2, "DescribeInstanceTypes",
		sw_jo("InstanceTypes", names, NULL), &out) != SW_OK)
		return NULL;
	map = json_object_new_object();
	list = sw_json_get(out, "instanceTypeSet");
	for (i = 0; list && i < json_object_array_length(list); i++) {
		json_object *o = json_object_array_get_idx(list, i);
		const char *efa =
		    sw_json_path_str(o, "networkInfo.efaSupported");
		const char *gpus = sw_json_path_str(o, "gpuInfo.gpus[0].count");
		const char *vcpu = sw_json_path_str(o, "vCpuInfo.defaultVCpus");
		const char *mem = sw_json_path_str(o, "memoryInfo.sizeInMiB");

		json_object_object_add(map, sw_json_get_str(o, "instanceType"),
		    sw_jo("gpus", sw_ji(gpus ? strtol(gpus, NULL, 10) : 0),
			"gpu_name",
			sw_js(sw_json_path_str(o, "gpuInfo.gpus[0].name")
				? sw_json_path_str(o, "gpuInfo.gpus[0].name")
				: ""),
			"efa", sw_jb(efa != NULL && strcmp(efa, "true") == 0),
			"vcpus", sw_ji(vcpu ? strtol(vcpu, NULL, 10) : 0),
			"memory_mib", sw_ji(mem ? strtol(mem, NULL, 10) : 0),
			NULL));
	}
	json_object_put(out);
	return map;
}

sw_err
h_instance_type_list(struct sw_req *r)
{
	const char *az = sw_json_get_str(r->args, "availability_zone");
	json_object *offers, *facts, *items;

	if ((offers = offerings(
		 r, sw_json_get_str(r->args, "instance_type"))) == NULL)
		return r->err;
	if ((facts = type_facts(r, offers)) == NULL) {
		json_object_put(offers);
		return r->err;
	}
	items = json_object_new_array();
	json_object_object_foreach(offers, t, azs)
	{
		json_object *f = sw_json_get(facts, t);
		char ml[64];
		size_t i;
		int here = az == NULL;

		for (i = 0; !here && i < json_object_array_length(azs); i++)
			here = strcmp(json_object_get_string(
					  json_object_array_get_idx(azs, i)),
				   az) == 0;
		if (!here)
			continue;
		if (sw_json_get_bool(r->args, "gpu_only", 0) &&
		    sw_json_get_int(f, "gpus", 0) == 0)
			continue;
		if (sw_fmt(ml, sizeof(ml), "ml.%s", t) != SW_OK)
			continue;
		json_object_array_add(items,
		    sw_jo("instance_type", sw_js(ml), "ec2_instance_type",
			sw_js(t), "availability_zones", json_object_get(azs),
			"gpus", sw_ji(sw_json_get_int(f, "gpus", 0)),
			"gpu_name",
			sw_js(sw_json_get_str(f, "gpu_name")
				? sw_json_get_str(f, "gpu_name")
				: ""),
			"efa_supported", sw_jb(sw_json_get_bool(f, "efa", 0)),
			"vcpus", sw_ji(sw_json_get_int(f, "vcpus", 0)),
			"memory_mib",
			sw_ji(sw_json_get_int(f, "memory_mib", 0)), NULL));
	}
	json_object_put(offers);
	json_object_put(facts);
	sw_req_reply(r, 200, sw_jo("items", items, NULL));
	return SW_OK;
}

/* ---- cluster create ---------------------------------------------------- */

static int
array_has(json_object *arr, const char *s)
{
	size_t i;

	for (i = 0; arr && i < json_object_array_length(arr); i++)
		if (strcmp(json_object_get_string(
			       json_object_array_get_idx(arr, i)),
			s) == 0)
			return 1;
	return 0;
}

/* Add {cidrBlock} rows for the VPCs of unfinished cluster creates. */
static void
planned_cidrs(struct sw_req *r, json_object *list)
{
	static const char *const states[] = { "pending", "running" };
	struct sw_op_filter f;
	json_object *page, *items;
	char cursor[64];
	size_t i;
	int k, pages;

	for (k = 0; k < 2; k++) {
		memset(&f, 0, sizeof(f));
		f.kind = "cluster.create";
		f.state = states[k];
		f.limit = SW_MAX_PAGE;
		for (pages = 0; pages < 20; pages++) {
			if (sw_op_list(r->db, &f, &page) != SW_OK)
				return;
			items = sw_json_get(page, "items");
			for (i = 0; i < json_object_array_length(items); i++) {
				const char *c = sw_json_path_str(
				    json_object_array_get_idx(items, i),
				    "params.vpc_cidr");

				if (c != NULL)
					json_object_array_add(list,
					    sw_jo("cidrBlock", sw_js(c), NULL));
			}
			cursor[0] = '\0';
			if (sw_json_get_str(page, "next") != NULL &&
			    sw_fmt(cursor, sizeof(cursor), "%s",
				sw_json_get_str(page, "next")) != SW_OK)
				cursor[0] = '\0';
			json_object_put(page);
			if (cursor[0] == '\0')
				break;
			f.cursor = cursor;
		}
	}
}

/*
 * Whether a /16 is one AWS lets a VPC have: a valid address, outside
 * "this network" (0/8), loopback (127/8), link-local (169.254/16) and
 * multicast and reserved space (224/3).
 */
static int
vpc_cidr_allowed(const char *cidr)
{
	uint32_t base;
	int prefix;
	unsigned a, b;

	if (sw_cidr_parse(cidr, &base, &prefix) != 0 || prefix != 16)
		return 0;
	a = base >> 24;
	b = (base >> 16) & 0xff;
	return a != 0 && a != 127 && a < 224 && !(a == 169 && b == 254);
}

/* A free 10.x.0.0/16 not overlapping any VPC in the region. */
static sw_err
plan_vpc_cidr(struct sw_req *r, const char *want, char *out, size_t sz)
{
	json_object *vpcs, *list;
	char cand[32];
	size_t i;
	int x;

	if (want != NULL && !vpc_cidr_allowed(want)) {
		sw_ferr_add(&r->ferrs, "vpc_cidr", "range",
		    "%s is not a range "
		    "a VPC can have",
		    want);
		return sw_req_fail(r, SW_EINVAL,
		    "vpc_cidr %s is not a range "
		    "a VPC can have",
		    want);
	}
	if (call(r, AWS_SVC_EC2, "DescribeVpcs", NULL, &vpcs) != SW_OK)
		return r->err;
	list = sw_json_get(vpcs, "vpcSet");
	if (list == NULL) {
		list = json_object_new_array();
		json_object_object_add(vpcs, "vpcSet", list);
	}
	/* VPCs that queued creates will make count as taken too. */
	planned_cidrs(r, list);
	for (x = want ? -1 : 0; x < 256; x++) {
		int clash = 0;

		if ((x < 0 ? sw_fmt(cand, sizeof(cand), "%s", want)
			   : sw_fmt(cand, sizeof(cand), "10.%d.0.0/16", x)) !=
		    SW_OK) {
			json_object_put(vpcs);
			return sw_req_fail(r, SW_EINVAL,
			    "vpc_cidr is not a "
			    "CIDR block");
		}
		for (i = 0; list && i < json_object_array_length(list); i++) {
			const char *c = sw_json_get_str(
			    json_object_array_get_idx(list, i), "cidrBlock");

			if (c != NULL && sw_cidr_overlap(c, cand))
				clash = 1;
		}
		if (!clash) {
			json_object_put(vpcs);
			if (sw_fmt(out, sz, "%s", cand) != SW_OK)
				return sw_req_fail(r, SW_EINTERNAL,
				    "no room "
				    "for the VPC CIDR");
			return SW_OK;
		}

		if (x < 0) {
			json_object_put(vpcs);
			sw_ferr_add(&r->ferrs, "vpc_cidr", "overlap",
			    "overlaps an existing VPC in %s", r->cfg->region);
			return sw_req_fail(r, SW_EINVAL,
			    "vpc_cidr %s overlaps "
			    "an existing VPC",
			    want);
		}
	}
	json_object_put(vpcs);
	return sw_req_fail(r, SW_ECONFLICT, "no free 10.x.0.0/16 left");
}

/* Check one group against the live account; fills defaults. */
static void
check_group(struct sw_req *r, json_object *g, size_t idx, json_object *azs,
    json_object *offers, json_object *facts)
{
	const char *type = sw_json_get_str(g, "instance_type");
	const char *cap = sw_json_get_str(g, "capacity_type");
	const char *az = sw_json_get_str(g, "availability_zone");
	json_object *where = sw_json_get(offers, sw_ec2_type(type));
	char field[96];

	if (cap == NULL) {
		cap = sw_json_get_str(g, "training_plan_arn") ? "training-plan"
							      : "on-demand";
		sw_json_add_str(g, "capacity_type", cap);
	}
	sw_fmt_text(field, sizeof(field), "instance_groups[%zu]", idx);
	if (strcmp(cap, "spot") == 0 &&
	    sw_json_get_str(g, "training_plan_arn") != NULL) {
		sw_fmt_text(field, sizeof(field),
		    "instance_groups[%zu].training_plan_arn", idx);
		sw_ferr_add(&r->ferrs, field, "conflict",
		    "spot capacity "
		    "cannot use a training plan");
	}
	if (strcmp(cap, "training-plan") == 0 &&
	    sw_json_get_str(g, "training_plan_arn") == NULL) {
		sw_fmt_text(field, sizeof(field),
		    "instance_groups[%zu].training_plan_arn", idx);
		sw_ferr_add(&r->ferrs, field, "required",
		    "is required when "
		    "capacity_type is training-plan");
	}
	if (az != NULL && !array_has(azs, az)) {
		sw_fmt_text(field, sizeof(field),
		    "instance_groups[%zu].availability_zone", idx);
		sw_ferr_add(&r->ferrs, field, "exists",
		    "%s is not an "
		    "availability zone of %s",
		    az, r->cfg->region);
		return;
	}
	if (where == NULL) {
		sw_fmt_text(field, sizeof(field),
		    "instance_groups[%zu].instance_type", idx);
		sw_ferr_add(&r->ferrs, field, "offered",
		    "%s is not offered "
		    "in %s",
		    type, r->cfg->region);
		return;
	}
	if (az == NULL) {
		/* The first AZ of the region that offers the type. */
		size_t i;

		for (i = 0; i < json_object_array_length(azs) && az == NULL;
		     i++) {
			const char *z = json_object_get_string(
			    json_object_array_get_idx(azs, i));

			if (array_has(where, z))
				az = z;
		}
		if (az != NULL)
			sw_json_add_str(g, "availability_zone", az);
	} else if (!array_has(where, az)) {
		sw_fmt_text(field, sizeof(field),
		    "instance_groups[%zu].availability_zone", idx);
		sw_ferr_add(&r->ferrs, field, "offered",
		    "%s is not offered "
		    "in %s",
		    type, az);
	}
	if (sw_json_get_bool(g, "efa_only", 0) &&
	    !sw_json_get_bool(
		sw_json_get(facts, sw_ec2_type(type)), "efa", 0)) {
		sw_fmt_text(
		    field, sizeof(field), "instance_groups[%zu].efa_only", idx);
		sw_ferr_add(&r->ferrs, field, "efa",
		    "%s does not support "
		    "EFA, so it cannot use EFA-only interfaces",
		    type);
	}
}

/* Training-plan reservation: status, AZ, type, count (see handlers.h). */
void
h_check_training_plan(struct sw_req *r, json_object *g, const char *field)
{
	const char *arn = sw_json_get_str(g, "training_plan_arn");
	const char *name, *status,
	    *az = sw_json_get_str(g, "availability_zone"),
	    *type = sw_json_get_str(g, "instance_type");
	json_object *out, *res;
	int64_t avail = -1;
	size_t i;
	int match = 0;

	if (arn == NULL || (name = strrchr(arn, '/')) == NULL)
		return;
	if (call(r, AWS_SVC_SAGEMAKER, "DescribeTrainingPlan",
		sw_jo("TrainingPlanName", sw_js(name + 1), NULL),
		&out) != SW_OK) {
		sw_ferr_add(&r->ferrs, field, "exists", "%s", r->detail);
		r->err = SW_OK;
		r->detail[0] = '\0';
		return;
	}
	status = sw_json_get_str(out, "Status");
	if (status == NULL ||
	    (strcmp(status, "Active") != 0 && strcmp(status, "Scheduled") != 0))
		sw_ferr_add(&r->ferrs, field, "status",
		    "the plan is %s, not "
		    "Active or Scheduled",
		    status ? status : "unknown");
	res = sw_json_get(out, "ReservedCapacitySummaries");
	for (i = 0; res && i < json_object_array_length(res); i++) {
		json_object *c = json_object_array_get_idx(res, i);

		if (type && sw_json_get_str(c, "InstanceType") &&
		    strcmp(sw_json_get_str(c, "InstanceType"), type) == 0 &&
		    (az == NULL ||
			(sw_json_get_str(c, "AvailabilityZone") &&
			    strcmp(sw_json_get_str(c, "AvailabilityZone"),
				az) == 0))) {
			match = 1;
			if (az == NULL &&
			    sw_json_get_str(c, "AvailabilityZone"))
				sw_json_add_str(g, "availability_zone",
				    sw_json_get_str(c, "AvailabilityZone"));
		}
	}
	if (!match)
		sw_ferr_add(&r->ferrs, field, "reservation",
		    "the plan reserves "
		    "no %s in %s",
		    type, az ? az : "any AZ");
	avail = sw_json_get_int(out, "AvailableInstanceCount", -1);
	if (avail >= 0 && avail < sw_json_get_int(g, "count", 1))
		sw_ferr_add(&r->ferrs, field, "count",
		    "the plan has %lld "
		    "instances available, fewer than %lld",
		    (long long)avail,
		    (long long)sw_json_get_int(g, "count", 1));
	json_object_put(out);
}

/* The groups' counts against the service quotas, net of what the
 * account runs (handlers/capacity.c). */
static sw_err
check_group_quotas(struct sw_req *r, json_object *groups)
{
	struct h_capacity_ask asks[SW_MAX_GROUPS];
	char fields[SW_MAX_GROUPS][48];
	size_t i, n = json_object_array_length(groups);

	for (i = 0; i < n && i < SW_MAX_GROUPS; i++) {
		json_object *g = json_object_array_get_idx(groups, i);

		sw_fmt_text(fields[i], sizeof(fields[i]),
		    "instance_groups[%zu].count", i);
		asks[i] = (struct h_capacity_ask){ .field = fields[i],
			.type = sw_json_get_str(g, "instance_type"),
			.count = sw_json_get_int(g, "count", 1),
			.plan = sw_json_get_str(g, "training_plan_arn") };
	}
	return h_check_quota(r, asks, i, NULL, NULL);
}

/* Validate against the live account and fill defaults into r->args. */
static sw_err
cluster_preflight(struct sw_req *r)
{
	json_object *a = r->args, *azs = NULL, *names, *offers = NULL,
		    *facts = NULL, *groups, *want, *slots;
	char cidr[32], field[96];
	size_t i;
	sw_err e = SW_OK;

	if ((want = zones(r)) == NULL)
		return r->err;
	azs = json_object_new_array();
	for (i = 0; i < json_object_array_length(want); i++)
		json_object_array_add(azs,
		    sw_js(sw_json_get_str(
			json_object_array_get_idx(want, i), "name")));
	json_object_put(want);
	if ((want = sw_json_get(a, "availability_zones")) != NULL) {
		for (i = 0; i < json_object_array_length(want); i++) {
			const char *z = json_object_get_string(
			    json_object_array_get_idx(want, i));

			sw_fmt_text(
			    field, sizeof(field), "availability_zones[%zu]", i);
			if (!array_has(azs, z))
				sw_ferr_add(&r->ferrs, field, "exists",
				    "%s is "
				    "not an availability zone of %s",
				    z, r->cfg->region);
		}
		if (json_object_array_length(want) == 2 &&
		    strcmp(json_object_get_string(
			       json_object_array_get_idx(want, 0)),
			json_object_get_string(
			    json_object_array_get_idx(want, 1))) == 0)
			sw_ferr_add(&r->ferrs, "availability_zones", "unique",
			    "must name two different zones");
	} else if (json_object_array_length(azs) < 2) {
		e = sw_req_fail(r, SW_EPRECONDITION,
		    "the region has fewer "
		    "than two availability zones");
		goto out;
	} else
		json_object_object_add(a, "availability_zones",
		    sw_ja(json_object_get(json_object_array_get_idx(azs, 0)),
			json_object_get(json_object_array_get_idx(azs, 1))));
	groups = sw_json_get(a, "instance_groups");
	names = json_object_new_array();
	for (i = 0; i < json_object_array_length(groups); i++) {
		const char *n = sw_json_get_str(
		    json_object_array_get_idx(groups, i), "name");

		sw_fmt_text(
		    field, sizeof(field), "instance_groups[%zu].name", i);
		if (array_has(names, n))
			sw_ferr_add(&r->ferrs, field, "unique",
			    "group names "
			    "must be unique");
		json_object_array_add(names, sw_js(n));
	}
	json_object_put(names);
	if ((offers = offerings(r, NULL)) == NULL ||
	    (facts = type_facts(r, offers)) == NULL) {
		e = r->err;
		goto out;
	}
	for (i = 0; i < json_object_array_length(groups); i++)
		check_group(r, json_object_array_get_idx(groups, i), i, azs,
		    offers, facts);
	if (r->ferrs.n > 0) {
		e = r->err = SW_EINVAL;
		goto out;
	}
	if ((e = plan_vpc_cidr(r, sw_json_get_str(a, "vpc_cidr"), cidr,
		 sizeof(cidr))) != SW_OK)
		goto out;
	sw_json_add_str(a, "vpc_cidr", cidr);
	/* Pre-flight against reservations and quotas (422). */
	for (i = 0; i < json_object_array_length(groups); i++) {
		sw_fmt_text(field, sizeof(field),
		    "instance_groups[%zu].training_plan_arn", i);
		h_check_training_plan(
		    r, json_object_array_get_idx(groups, i), field);
	}
	if (r->ferrs.n > 0) {
		e = sw_req_fail(r, SW_EPRECONDITION,
		    "training plan check "
		    "failed: %s: %s",
		    r->ferrs.e[0].field, r->ferrs.e[0].msg);
		goto out;
	}
	if (check_group_quotas(r, groups) != SW_OK) {
		e = r->err;
		goto out;
	}
	/* One shared compute subnet slot per AZ the groups use. */
	slots = json_object_new_object();
	for (i = 0; i < json_object_array_length(groups); i++) {
		const char *z = sw_json_get_str(
		    json_object_array_get_idx(groups, i), "availability_zone");

		if (z != NULL && sw_json_get(slots, z) == NULL)
			sw_json_add_int(
			    slots, z, json_object_object_length(slots));
	}
	json_object_object_add(a, "compute_slots", slots);
	if (sw_json_get_str(a, "kubernetes_version") == NULL)
		sw_json_add_str(a, "kubernetes_version", "1.31");
	if (sw_json_get_str(a, "node_recovery") == NULL)
		sw_json_add_str(a, "node_recovery", "Automatic");
out:
	json_object_put(azs);
	json_object_put(offers);
	json_object_put(facts);
	return e;
}

sw_err
h_start_with(struct sw_req *r, json_object *params, const char *kind,
    const char *target, const char *cluster)
{
	json_object *input = r->args;
	sw_err e;

	r->args = params;
	e = h_start(r, kind, target, cluster);
	json_object_put(input);
	return e;
}

/* Enqueue (or plan) an operation of a pipeline kind for cluster. */
sw_err
h_start(
    struct sw_req *r, const char *kind, const char *target, const char *cluster)
{
	const struct sw_pipeline *pl = sw_pipeline_find(kind);
	struct sw_cluster_rec rec;
	struct sw_op_new n;
	char id[SW_OP_ID_LEN];
	json_object *plan, *waits;
	int existed;
	sw_err e;

	if (pl == NULL)
		return sw_req_fail(r, SW_EINTERNAL, "no pipeline %s", kind);
	/* The one ownership check of every operation on a cluster. */
	if (cluster != NULL && strcmp(kind, "cluster.create") != 0 &&
	    h_owned(r, cluster, &rec) != SW_OK)
		return r->err;
	if (r->dry_run) {
		e = sw_pipeline_plan(
		    h_aws(r), r->cfg, kind, r->args, &plan, &waits);
		sw_req_reply(r, 200,
		    sw_jo("dry_run", sw_jb(1), "kind", sw_js(kind), "target",
			sw_js(target), "params", json_object_get(r->args),
			"calls", plan, "waits", waits, "cost",
			h_plan_cost(r, kind, r->args, cluster), NULL));
		if (e != SW_OK) {
			const char *why = NULL;
			size_t i;

			for (i = 0; plan && i < json_object_array_length(plan);
			     i++)
				if (sw_json_get_str(
					json_object_array_get_idx(plan, i),
					"refused"))
					why = sw_json_get_str(
					    json_object_array_get_idx(plan, i),
					    "refused");
			return sw_req_fail(r,
			    e == SW_EUNAVAIL ? e : SW_EPRECONDITION,
			    "the plan stops: %s", why ? why : "see calls");
		}
		{
			const char *const *names = sw_pipeline_stage_names(pl);
			json_object *st = json_object_new_array();

			while (names && *names)
				json_object_array_add(st, sw_js(*names++));
			json_object_object_add(r->out, "stages", st);
		}
		return SW_OK;
	}
	memset(&n, 0, sizeof(n));
	n.kind = kind;
	n.target = target;
	n.cluster = cluster;
	n.params = r->args;
	n.stages = sw_pipeline_stage_names(pl);
	n.idem_key = r->idem_key;
	n.request_hash = r->request_hash[0] ? r->request_hash : NULL;
	n.token_name = r->who.name;
	e = sw_op_enqueue(r->db, &n, id, &existed);
	if (e == SW_EBUSY)
		return h_busy(r, id);
	if (e == SW_ECONFLICT)
		return sw_req_fail(r, e,
		    "Idempotency-Key %s was used for a "
		    "different request",
		    r->idem_key);
	if (e != SW_OK)
		return sw_req_fail(r, e, "cannot record the operation");
	/* the record that ties this request to the poller's records */
	sw_info("operation %s accepted: %s %s%s", id, kind, target,
	    existed ? " (again, by its Idempotency-Key)" : "");
	return h_accepted(r, id, existed);
}

/*
 * The answer when another operation holds the cluster: 409 naming it,
 * its kind and state, so the caller can wait for it or cancel it.
 */
sw_err
h_busy(struct sw_req *r, const char *holder)
{
	json_object *op = NULL;
	sw_err e;

	if (sw_op_get(r->db, holder, 0, -1, &op) != SW_OK)
		return sw_req_fail(r, SW_EBUSY,
		    "operation %s is still running "
		    "on this cluster; wait for it or cancel it",
		    holder);
	e = sw_req_fail(r, SW_EBUSY,
	    "operation %s (%s) is still %s on "
	    "cluster %s; wait for it or cancel it",
	    holder, sw_json_get_str(op, "kind"), sw_json_get_str(op, "state"),
	    sw_json_get_str(op, "cluster") ? sw_json_get_str(op, "cluster")
					   : sw_json_get_str(op, "target"));
	json_object_put(op);
	return e;
}

/*
 * A create under the name of a Slipway cluster that AWS still has: its
 * newest create (or import) that no delete followed.  A body whose
 * every setting that create had too (defaults included; what its
 * pre-flight chose for settings left out counts as agreed) is that
 * create again, answered with its operation; another body is 409
 * naming the cluster, since a create never changes a cluster.
 * SW_ENOTFOUND when there is none and the create goes ahead.
 */
static sw_err
create_again(struct sw_req *r, const char *name)
{
	struct sw_op_filter f;
	json_object *ops, *items, *o;
	const char *kind, *state, *id;
	size_t i;
	sw_err e = SW_ENOTFOUND;

	memset(&f, 0, sizeof(f));
	f.cluster = name;
	f.limit = 50;
	if (sw_op_list(r->db, &f, &ops) != SW_OK)
		return sw_req_fail(r, SW_EDB,
		    "cannot read the operations of "
		    "cluster %s",
		    name);
	items = sw_json_get(ops, "items");
	for (i = 0; items && i < json_object_array_length(items); i++) {
		o = json_object_array_get_idx(items, i);
		kind = sw_json_get_str(o, "kind");
		state = sw_json_get_str(o, "state");
		id = sw_json_get_str(o, "id");
		if (strcmp(kind, "cluster.delete") == 0 &&
		    strcmp(state, "succeeded") == 0)
			break;
		if ((strcmp(kind, "cluster.create") != 0 &&
			strcmp(kind, "cluster.import") != 0) ||
		    sw_op_state_unsuccessful(state))
			continue;
		if (strcmp(kind, "cluster.create") == 0 &&
		    sw_json_within(r->args, sw_json_get(o, "params")))
			/* its dry run plans the create again */
			e = r->dry_run ? SW_ENOTFOUND : h_accepted(r, id, 1);
		else {
			sw_ferr_add(&r->ferrs, "name", "exists",
			    "Slipway "
			    "cluster %s exists (operation %s) with other "
			    "settings; change it with the instance group and "
			    "feature operations, or delete it first",
			    name, id);
			e = sw_req_fail(r, SW_ECONFLICT,
			    "cluster %s exists "
			    "with other settings",
			    name);
		}
		break;
	}
	json_object_put(ops);
	return e;
}

/*
 * An EKS cluster of that name is ours only when it carries the id of
 * our "created" record: 0 when the name is free or ours, else the
 * problem (409).
 */
static sw_err
create_name_free(
    struct sw_req *r, const char *name, const struct sw_cluster_rec *rec)
{
	json_object *out;
	struct aws_error err;
	int ours;

	if (strcmp(rec->origin, "imported") == 0) {
		sw_ferr_add(&r->ferrs, "name", "exists",
		    "cluster %s is an "
		    "imported cluster",
		    name);
		return sw_req_fail(r, SW_ECONFLICT,
		    "cluster %s is imported; "
		    "delete or release it first",
		    name);
	}
	memset(&err, 0, sizeof(err));
	if (h_aws(r) == NULL ||
	    h_call(r, AWS_SVC_EKS, "DescribeCluster",
		sw_jo("name", sw_js(name), NULL), &out, &err) != SW_OK)
		return SW_OK;
	ours = rec->id[0] != '\0' &&
	    strcmp(
		sw_json_path_str(out, "cluster.tags." SW_TAG_CLUSTER_ID) ?: "",
		rec->id) == 0;
	json_object_put(out);
	if (ours)
		return SW_OK;
	sw_ferr_add(&r->ferrs, "name", "exists",
	    "an EKS cluster named %s "
	    "exists and is not managed by Slipway; import it instead",
	    name);
	return sw_req_fail(r, SW_ECONFLICT, "EKS cluster %s exists", name);
}

/*
 * A create naming an account or region: the region must be one where
 * HyperPod runs, and the account must let Slipway in (its member role
 * assumed now, so a refusal is the request's 403 naming the account).
 */
static sw_err
create_place(struct sw_req *r)
{
	const char *region = sw_json_get_str(r->args, "region");
	struct aws_error err;
	sw_err e;
	int i;

	for (i = 0; region != NULL && hyperpod_regions[i] != NULL; i++)
		if (strcmp(hyperpod_regions[i], region) == 0)
			break;
	if (region != NULL && hyperpod_regions[i] == NULL) {
		sw_ferr_add(&r->ferrs, "region", "hyperpod",
		    "%s is not a "
		    "region where SageMaker HyperPod runs",
		    region);
		return sw_req_fail(r, SW_EINVAL, "invalid input");
	}
	if (place_ctx(r, &err, &e) != NULL)
		return SW_OK;
	return h_aws_fail(r, AWS_SVC_STS, "AssumeRole", e, &err);
}

/* Record the account and region the create names, none when they are
 * Slipway's own. */
static sw_err
record_place(struct sw_req *r, const char *name, const char *id)
{
	const char *account = sw_json_get_str(r->args, "account");
	const char *region = sw_json_get_str(r->args, "region");
	const char *home = sw_config_account(r->cfg);

	if (account != NULL && home != NULL && strcmp(account, home) == 0)
		account = NULL;
	if (region != NULL && strcmp(region, r->cfg->region) == 0)
		region = NULL;
	if (account == NULL && region == NULL)
		return SW_OK;
	if (sw_cluster_place(r->db, name, id, account, region) != SW_OK)
		return sw_req_fail(r, SW_EDB,
		    "cannot record where cluster %s "
		    "lives",
		    name);
	return SW_OK;
}

sw_err
h_cluster_create(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "name");
	struct sw_cluster_rec rec;
	char id[SW_CLUSTER_ID_LEN];
	int fresh = 0;
	sw_err e;

	if ((e = sw_cluster_get(r->db, name, &rec)) != SW_OK &&
	    e != SW_ENOTFOUND)
		return sw_req_fail(r, e, "cannot read the record of %s", name);
	if (create_name_free(r, name, &rec) != SW_OK)
		return r->err;
	if (rec.id[0] != '\0' && (e = create_again(r, name)) != SW_ENOTFOUND)
		return e;
	if (create_place(r) != SW_OK)
		return r->err;
	if (cluster_preflight(r) != SW_OK)
		return r->err != SW_OK ? r->err : SW_EINVAL;
	/* Every resource the create makes is tagged with the record's id,
	 * recorded before anything is made. */
	if (rec.id[0] == '\0' && r->dry_run) {
		if (sw_fmt(rec.id, sizeof(rec.id), "swc-planned") != SW_OK)
			return sw_req_fail(r, SW_EINTERNAL,
			    "no room for an "
			    "id");
	} else if (rec.id[0] == '\0') {
		if (sw_cluster_new_id(id) != SW_OK ||
		    sw_cluster_record(r->db, name, id, "created", &rec) !=
			SW_OK)
			return sw_req_fail(r, SW_EDB,
			    "cannot record cluster "
			    "%s",
			    name);
		fresh = strcmp(rec.id, id) == 0;
		if (fresh && record_place(r, name, id) != SW_OK) {
			(void)sw_cluster_unclaim(r->db, name, id);
			return r->err;
		}
	}
	sw_json_add_str(r->args, "cluster_id", rec.id);
	/* Refused (another create of the name started first: 409), the
	 * record made here goes, unless that create took it. */
	if ((e = h_start(r, "cluster.create", name, name)) != SW_OK && fresh)
		(void)sw_cluster_unclaim(r->db, name, rec.id);
	return e;
}

/* A cluster Slipway created is deleted; an imported one is released
 * (forgotten) unless the request says delete_resources. */
sw_err
h_cluster_delete(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "name");
	struct sw_cluster_rec rec;

	if (h_owned(r, name, &rec) != SW_OK)
		return r->err;
	if (strcmp(rec.origin, "imported") == 0 &&
	    !sw_json_get_bool(r->args, "delete_resources", 0))
		return h_start(r, "cluster.release", name, name);
	return h_start(r, "cluster.delete", name, name);
}

/* ---- list / get / import -------------------------------------------- */

/* The account a place names ("" : Slipway's own, NULL when unknown). */
static const char *
place_account(struct sw_req *r, const char *account)
{
	return account[0] != '\0' ? account : sw_config_account(r->cfg);
}

/*
 * The clusters of one account and region ("" : Slipway's own) into
 * items, each naming its account and region; r->aws is set to that
 * place's context first.  SW_OK, else the failure is filled.
 */
static sw_err
list_place(struct sw_req *r, const char *account, const char *region,
    json_object *items)
{
	json_object *eks, *hp, *names, *hpl;
	size_t i, j;

	if (call(r, AWS_SVC_EKS, "ListClusters", NULL, &eks) != SW_OK)
		return r->err;
	if (call(r, AWS_SVC_SAGEMAKER, "ListClusters",
		sw_jo("MaxResults", sw_ji(100), NULL), &hp) != SW_OK) {
		json_object_put(eks);
		return r->err;
	}
	names = sw_json_get(eks, "clusters");
	hpl = sw_json_get(hp, "ClusterSummaries");
	for (i = 0; names && i < json_object_array_length(names); i++) {
		const char *n =
		    json_object_get_string(json_object_array_get_idx(names, i));
		const char *acct = place_account(r, account);
		json_object *hps = NULL, *d;
		struct aws_error err;
		const char *status = NULL;
		struct sw_cluster_rec rec;
		int owned = sw_cluster_get(r->db, n, &rec) == SW_OK &&
		    strcmp(rec.account, account) == 0 &&
		    strcmp(rec.region, region) == 0;

		memset(&err, 0, sizeof(err));
		if (h_call(r, AWS_SVC_EKS, "DescribeCluster",
			sw_jo("name", sw_js(n), NULL), &d, &err) == SW_OK)
			status = sw_json_path_str(d, "cluster.status");
		else
			d = NULL;
		for (j = 0; hpl && j < json_object_array_length(hpl); j++) {
			json_object *c = json_object_array_get_idx(hpl, j);

			if (strcmp(sw_json_get_str(c, "ClusterName"), n) == 0)
				hps = c;
		}
		json_object_array_add(items,
		    sw_jo("name", sw_js(n), "account",
			acct ? sw_js(acct) : NULL, "region",
			sw_js(r->aws->region), "managed", sw_jb(owned),
			"origin", owned ? sw_js(rec.origin) : NULL,
			"eks_status", sw_js(status ? status : "UNKNOWN"),
			"hyperpod_status",
			hps ? sw_js(sw_json_get_str(hps, "ClusterStatus"))
			    : NULL,
			NULL));
		json_object_put(d);
	}
	json_object_put(eks);
	json_object_put(hp);
	return SW_OK;
}

/*
 * Every other account and region holding a cluster Slipway recorded:
 * its clusters into items, or, when it cannot be reached (its role
 * refuses Slipway, AWS answers an error), a line into unreachable.
 */
static void
list_places(struct sw_req *r, json_object *items, json_object *unreachable)
{
	json_object *places = NULL;
	struct aws_error err;
	char role[2049];
	size_t i;

	if (sw_cluster_places(r->db, &places) != SW_OK)
		sw_warn("cannot read the accounts and regions of clusters");
	for (i = 0; places && i < json_object_array_length(places); i++) {
		json_object *p = json_object_array_get_idx(places, i);
		const char *acct = sw_json_get_str(p, "account");
		const char *region = sw_json_get_str(p, "region");
		const char *why = NULL;

		memset(&err, 0, sizeof(err));
		r->aws = NULL;
		if (worker_base(r) == NULL ||
		    aws_member_ctx(worker_base(r), r->cfg, acct, region,
			&r->aws, role, sizeof(role), &err) != SW_OK)
			why = err.code[0] ? err.message : "no AWS client";
		else if (list_place(r, acct, region, items) != SW_OK)
			why = r->detail;
		if (why != NULL)
			json_object_array_add(unreachable,
			    sw_jo("account",
				place_account(r, acct)
				    ? sw_js(place_account(r, acct))
				    : NULL,
				"region",
				sw_js(region[0] ? region : r->cfg->region),
				"message", sw_js(why), NULL));
		r->err = SW_OK;
		r->detail[0] = '\0';
	}
	r->aws = NULL;
	json_object_put(places);
}

sw_err
h_cluster_list(struct sw_req *r)
{
	json_object *items = json_object_new_array(), *unreachable;

	if (list_place(r, "", "", items) != SW_OK) {
		json_object_put(items);
		return r->err;
	}
	unreachable = json_object_new_array();
	list_places(r, items, unreachable);
	if (json_object_array_length(unreachable) == 0) {
		json_object_put(unreachable);
		unreachable = NULL;
	}
	sw_req_reply(r, 200,
	    sw_jo("region", sw_js(r->cfg->region), "items", items,
		"unreachable", unreachable, NULL));
	return SW_OK;
}

sw_err
h_cluster_get(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "name");
	json_object *eks, *hp = NULL, *o, *ops;
	struct sw_cluster_rec rec;
	struct sw_op_filter f;
	struct aws_error err;
	int owned;

	if (call(r, AWS_SVC_EKS, "DescribeCluster",
		sw_jo("name", sw_js(name), NULL), &eks) != SW_OK)
		return r->err;
	if (h_hp_describe(r, name, &hp, &err) != SW_OK)
		hp = NULL;
	memset(&f, 0, sizeof(f));
	f.cluster = name;
	f.limit = 5;
	if (sw_op_list(r->db, &f, &ops) != SW_OK)
		ops = NULL;
	owned = sw_cluster_get(r->db, name, &rec) == SW_OK;
	o = sw_jo("name", sw_js(name), "account",
	    place_account(r, owned ? rec.account : "")
		? sw_js(place_account(r, owned ? rec.account : ""))
		: NULL,
	    "region", sw_js(h_aws(r)->region), "managed", sw_jb(owned),
	    "origin", owned ? sw_js(rec.origin) : NULL, "eks",
	    sw_jo("status", sw_js(sw_json_path_str(eks, "cluster.status")),
		"arn", sw_js(sw_json_path_str(eks, "cluster.arn")), "version",
		sw_js(sw_json_path_str(eks, "cluster.version")), "endpoint",
		sw_json_path_str(eks, "cluster.endpoint")
		    ? sw_js(sw_json_path_str(eks, "cluster.endpoint"))
		    : NULL,
		"vpc_id",
		sw_json_path_str(eks, "cluster.resourcesVpcConfig.vpcId")
		    ? sw_js(sw_json_path_str(
			  eks, "cluster.resourcesVpcConfig.vpcId"))
		    : NULL,
		NULL),
	    "hyperpod",
	    hp ? sw_jo("status", sw_js(sw_json_get_str(hp, "ClusterStatus")),
		     "arn", sw_js(sw_json_get_str(hp, "ClusterArn")),
		     "node_recovery",
		     sw_json_get_str(hp, "NodeRecovery")
			 ? sw_js(sw_json_get_str(hp, "NodeRecovery"))
			 : NULL,
		     "node_provisioning_mode",
		     sw_json_get_str(hp, "NodeProvisioningMode")
			 ? sw_js(sw_json_get_str(hp, "NodeProvisioningMode"))
			 : NULL,
		     "failure_message",
		     sw_json_get_str(hp, "FailureMessage")
			 ? sw_js(sw_json_get_str(hp, "FailureMessage"))
			 : NULL,
		     "instance_groups",
		     json_object_get(sw_json_get(hp, "InstanceGroups")), NULL)
	       : NULL,
	    "recent_operations",
	    ops ? json_object_get(sw_json_get(ops, "items")) : NULL, "cost",
	    h_cluster_cost(r, hp), NULL);
	json_object_put(eks);
	json_object_put(hp);
	json_object_put(ops);
	sw_req_reply(r, 200, o);
	return SW_OK;
}

/*
 * Adopt a cluster made outside Slipway: record it as imported and tag
 * its EKS cluster with the record's id (the only thing of it teardown
 * may then delete, and only when asked to with delete_resources).
 */
sw_err
h_cluster_import(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "name");
	json_object *eks, *hp = NULL, *tags, *o;
	struct sw_cluster_rec rec;
	struct aws_error err;
	char id[SW_CLUSTER_ID_LEN];
	const char *arn;
	sw_err e;

	if ((e = sw_cluster_get(r->db, name, &rec)) != SW_OK &&
	    e != SW_ENOTFOUND)
		return sw_req_fail(r, e, "cannot read the record of %s", name);
	if (call(r, AWS_SVC_EKS, "DescribeCluster",
		sw_jo("name", sw_js(name), NULL), &eks) != SW_OK)
		return r->err;
	arn = sw_json_path_str(eks, "cluster.arn");
	if (h_hp_describe(r, name, &hp, &err) != SW_OK)
		hp = NULL;
	if (rec.id[0] != '\0' || r->dry_run) {
		if (sw_fmt(id, sizeof(id), "%s",
			rec.id[0] != '\0' ? rec.id : "swc-planned") != SW_OK) {
			e = sw_req_fail(r, SW_EINTERNAL, "no room for an id");
			goto out;
		}
	} else if (sw_cluster_new_id(id) != SW_OK) {
		e = sw_req_fail(r, SW_EINTERNAL, "no random id");
		goto out;
	}
	tags = sw_jo(
	    SW_TAG_CLUSTER, sw_js(name), SW_TAG_CLUSTER_ID, sw_js(id), NULL);
	if (strcmp(rec.origin, "created") != 0)
		json_object_object_add(tags, SW_TAG_IMPORTED, sw_js("true"));
	if (r->dry_run) {
		sw_req_reply(r, 200,
		    sw_jo("dry_run", sw_jb(1), "calls",
			sw_ja(sw_jo("service", sw_js("eks"), "operation",
			    sw_js("TagResource"), "input",
			    sw_jo(
				"resourceArn", sw_js(arn), "tags", tags, NULL),
			    NULL)),
			NULL));
		goto out;
	}
	if (call(r, AWS_SVC_EKS, "TagResource",
		sw_jo("resourceArn", sw_js(arn), "tags", tags, NULL),
		&o) != SW_OK) {
		e = r->err;
		goto out;
	}
	json_object_put(o);
	if (rec.id[0] == '\0' &&
	    sw_cluster_record(r->db, name, id, "imported", &rec) != SW_OK) {
		e = sw_req_fail(r, SW_EDB, "cannot record cluster %s", name);
		goto out;
	}
	sw_req_reply(r, 200,
	    sw_jo("name", sw_js(name), "imported", sw_jb(1), "cluster_id",
		sw_js(rec.id), "origin", sw_js(rec.origin), "eks_arn",
		sw_js(arn), "hyperpod_arn",
		hp ? sw_js(sw_json_get_str(hp, "ClusterArn")) : NULL, NULL));
	e = SW_OK;
out:
	json_object_put(eks);
	json_object_put(hp);
	return e;
}
