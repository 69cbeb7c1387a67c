/*
 * aws.h: the AWS client context and the generic call.
 *
 *	struct aws_ctx ctx;
 *	json_object *in = json_object_new_object(), *out = NULL;
 *	struct aws_error err;
 *
 *	aws_ctx_init(&ctx, "us-west-2");
 *	aws_ctx_set_endpoint_all(&ctx, "http://127.0.0.1:4566"); (sandbox)
 *	json_object_object_add(in, "ClusterName",
 *	    json_object_new_string("hp1"));
 *	if (aws_call(&ctx, AWS_SVC_SAGEMAKER, "DescribeCluster", in, &out,
 *	    &err) != SW_OK)
 *		... err.code, err.message, err.http_status ...
 *	json_object_put(in); json_object_put(out); aws_ctx_free(&ctx);
 *
 * Endpoints default to https://<prefix>.<region>.amazonaws.com (IAM:
 * https://iam.amazonaws.com signed for us-east-1) and can be replaced
 * per service or all at once; the signing name and region stay per
 * service, so one shared sandbox URL still routes by credential scope.
 * aws_ctx_init also reads AWS_ENDPOINT_URL and AWS_ENDPOINT_URL_<SVC>.
 */
#ifndef SW_AWS_H
#define SW_AWS_H

#include <time.h>

#include <json-c/json.h>

#include "cloud/awsproto.h"
#include "cloud/creds.h"
#include "lib/conf.h"
#include "lib/err.h"
#include "cloud/http.h"
#include "cloud/retry.h"

enum aws_service {
	AWS_SVC_STS,
	AWS_SVC_EC2,
	AWS_SVC_IAM,
	AWS_SVC_EKS,
	AWS_SVC_SAGEMAKER,
	AWS_SVC_S3,
	AWS_SVC_FSX,
	AWS_SVC_QUOTAS,
	AWS_SVC_PRICING,
	AWS_SVC_SNS,
	AWS_SVC_EVENTS,
	AWS_SVC__MAX
};

/* Static facts about a service (from its model's metadata). */
struct aws_service_info {
	const char *id; /* "sagemaker" */
	const char *env; /* AWS_ENDPOINT_URL_ suffix */
	const char *prefix; /* endpoint prefix */
	const char *signing_name;
	enum aws_protocol proto;
	const char *api_version;
	const char *target_prefix; /* json protocol only */
	const char *global_url; /* IAM: one global endpoint */
	const char *global_region; /* ...and its signing region */
};

/* Where a member of a rest-json input goes. */
enum aws_loc { AWS_LOC_URI, AWS_LOC_QUERY, AWS_LOC_HEADER };

struct aws_binding {
	const char *member; /* model name: "clusterName" */
	enum aws_loc loc;
	const char *wire; /* label, query key or header name */
};

/* A rest-json operation: method, URI template, non-body members. */
struct aws_rest_op {
	const char *name;
	const char *method;
	const char *uri; /* "/clusters/{name}/addons" */
	struct aws_binding bind[8];
};

/* Tables kept next to the typed calls (cloud/aws_eks.c, cloud/aws_ec2.c). */
extern const struct aws_rest_op aws_eks_ops[];
extern const struct aws_rename aws_ec2_renames[];

struct aws_ctx {
	char region[SW_AWS_MAX_NAME];
	char *endpoint[AWS_SVC__MAX]; /* owned or NULL */
	int s3_path_style; /* bucket in the path */
	struct creds_provider creds;
	struct retry_policy retry;
	struct http_client http;
	time_t (*clock)(void); /* signing time */
	time_t server_time; /* Date of the last answer
						 * (AWS's clock), 0: none */
	char account[16]; /* its credentials' account,
						 * "" until known */
};

/* Borrowed pointer into a static table; NULL for a bad value. */
const struct aws_service_info *aws_service(enum aws_service);

/*
 * Set up a context for region (NULL: AWS_REGION, AWS_DEFAULT_REGION,
 * the config file's region, else us-east-1), with the standard
 * credential chain, standard retries and endpoint overrides from the
 * environment.  Free with aws_ctx_free() even when this fails.
 */
sw_err aws_ctx_init(struct aws_ctx *, const char *region);
void aws_ctx_free(struct aws_ctx *);
/*
 * Replace a service's endpoint by url (copied): "https://host[:port]"
 * or, for a local sandbox, "http://127.0.0.1:PORT" / "http://localhost:
 * PORT".  Plain http elsewhere is refused with SW_EINVAL.
 */
sw_err aws_ctx_set_endpoint(
    struct aws_ctx *, enum aws_service, const char *url);
sw_err aws_ctx_set_endpoint_all(struct aws_ctx *, const char *url);
/*
 * A context for the product from its configuration: the region, short
 * in-process retries, and with a sandbox (sandbox_info) its endpoint for
 * every service and its keys, given to the context (the environment is
 * left alone, so threads may call this).  Free with aws_ctx_free() even
 * on failure.
 */
sw_err sw_aws_setup(struct aws_ctx *, const struct sw_config *);
/*
 * Resolve a service's base URL (no trailing slash) and signing region
 * into the caller's buffers.
 */
sw_err aws_endpoint(const struct aws_ctx *, enum aws_service, char *url,
    size_t urlsz, char *region, size_t regionsz);

/*
 * Serialise op's input (borrowed; NULL = no members) into *req for the
 * service's protocol, against the resolved endpoint.  The caller frees
 * req with http_request_free().  SW_EINVAL for an unknown rest-json
 * operation or a missing URI label.
 */
sw_err aws_build_request(const struct aws_ctx *, enum aws_service,
    const char *op, json_object *input, struct http_request *req);
/*
 * Sign and send req with retries; resp (initialised by the caller)
 * holds the last response.  SW_OK only for a 2xx status; otherwise err
 * says why and the return value is aws_error_sw(err).
 */
sw_err aws_send(struct aws_ctx *, enum aws_service, struct http_request *,
    struct http_response *, struct aws_error *);
/*
 * The generic call: build, send, parse.  On SW_OK *output is a new
 * reference (an empty object when the response had no body); on
 * failure *output is NULL and err is filled.  Not for S3 (rest-xml):
 * use the aws_s3_* calls.
 */
sw_err aws_call(struct aws_ctx *, enum aws_service, const char *op,
    json_object *input, json_object **output, struct aws_error *err);
/*
 * Does the operation change state (Create..., Update..., Batch...)?  Such
 * a call is retried here only after a throttling answer: after no answer
 * or a 5xx it may have been applied, and a second send would repeat it.
 */
int aws_op_mutates(const char *op);

#endif
