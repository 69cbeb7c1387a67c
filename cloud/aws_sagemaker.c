/*
 * aws_sagemaker.c: the SageMaker HyperPod calls used in more than one
 * place, typed: the input built from C values and the "no such cluster"
 * answer decided here, so handlers and stages branch on SW_ENOTFOUND
 * instead of comparing error codes.
 */
#include <string.h>

#include "cloud/aws_api.h"
#include "lib/json.h"

sw_err
aws_hp_describe(struct aws_ctx *ctx, const char *name, json_object **out,
    struct aws_error *err)
{
	json_object *in;
	sw_err e;

	*out = NULL;
	in = sw_jo("ClusterName", sw_js(name), NULL);
	e = aws_call(ctx, AWS_SVC_SAGEMAKER, "DescribeCluster", in, out, err);
	json_object_put(in);
	if (e != SW_OK && strcmp(err->code, "ResourceNotFound") == 0)
		e = SW_ENOTFOUND;
	return e;
}
