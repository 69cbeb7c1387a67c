/*
 * ownership.c: the one rule every operation that changes a cluster goes
 * through (h_start calls it; cluster_delete calls it first to choose
 * between deleting and releasing).  Slipway changes only a cluster it
 * owns, and it owns one only by a fact it recorded (lib/ops.h,
 * sw_cluster_record): it created the cluster, and every resource it
 * made carries the cluster's id tag, or the user adopted it with
 * cluster_import.  Names prove nothing: a cluster made with the aws CLI,
 * even one tagged by hand, is refused until it is imported.
 */
#include <stdio.h>
#include <string.h>

#include "handlers/handlers.h"
#include "cloud/aws_api.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "lib/ops.h"
#include "pipelines/pipelines.h"

/* Whether AWS has a cluster of that name, from the answer (e, err) to
 * its DescribeCluster (out, stolen): 1 yes, 0 no, -1 could not tell
 * (the problem is filled). */
static int
aws_has(struct sw_req *r, enum aws_service svc, sw_err e,
    const struct aws_error *err, json_object *out)
{
	json_object_put(out);
	if (e == SW_OK)
		return 1;
	if (e == SW_ENOTFOUND)
		return 0;
	/* Could not tell: 429/503/504 as aws_error_sw said, else 503. */
	sw_req_fail(r, sw_err_transient(e) ? e : SW_EUNAVAIL,
	    "%s "
	    "DescribeCluster: %s %s",
	    aws_service(svc)->id, err->code, err->message);
	return -1;
}

/* 409 naming what in AWS is not Slipway's and how to adopt it, or 404
 * when AWS has nothing of that name. */
static sw_err
not_ours(struct sw_req *r, const char *cluster)
{
	struct aws_error err;
	json_object *out;
	int eks, hp;
	char what[160];
	sw_err e;

	memset(&err, 0, sizeof(err));
	e = h_call(r, AWS_SVC_EKS, "DescribeCluster",
	    sw_jo("name", sw_js(cluster), NULL), &out, &err);
	if ((eks = aws_has(r, AWS_SVC_EKS, e, &err, out)) < 0)
		return r->err;
	e = h_hp_describe(r, cluster, &out, &err);
	if ((hp = aws_has(r, AWS_SVC_SAGEMAKER, e, &err, out)) < 0)
		return r->err;
	if (!eks && !hp)
		return sw_req_fail(r, SW_ENOTFOUND, "no cluster %s", cluster);
	sw_fmt_text(what, sizeof(what), "%s%s%s", eks ? "the EKS cluster" : "",
	    eks && hp ? " and " : "", hp ? "the HyperPod cluster" : "");
	sw_ferr_add(&r->ferrs, "name", "owned",
	    "%s %s was not created by "
	    "Slipway; adopt it with cluster_import (POST /api/v1/clusters/"
	    "%s:import) to manage it",
	    what, cluster, cluster);
	return sw_req_fail(r, SW_ECONFLICT,
	    "%s %s was not created by Slipway "
	    "and is not imported, so Slipway changes nothing of it; adopt it "
	    "first with cluster_import (POST /api/v1/clusters/%s:import)",
	    what, cluster, cluster);
}

sw_err
h_owned(struct sw_req *r, const char *cluster, struct sw_cluster_rec *rec)
{
	sw_err e;

	if ((e = sw_cluster_get(r->db, cluster, rec)) == SW_ENOTFOUND)
		return not_ours(r, cluster);
	if (e != SW_OK)
		return sw_req_fail(r, e,
		    "cannot read the record of cluster "
		    "%s",
		    cluster);
	/* The pipeline tags what it makes, and finds what it deletes,
	 * by this id. */
	sw_json_add_str(r->args, "cluster_id", rec->id);
	sw_json_add_str(r->args, "cluster_origin", rec->origin);
	return SW_OK;
}
