/*
 * aws_api.h: the AWS calls that do more than aws_call(): those that
 * return plain C values (the caller identity, the EKS endpoint and CA)
 * and S3, whose rest-xml protocol aws_call() does not speak.  Every other
 * call is aws_call(ctx, service, "Operation", input, &output, &err) with
 * the model's member names (see aws.h for errors and ownership).
 */
#ifndef SW_AWS_API_H
#define SW_AWS_API_H

#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "lib/buf.h"
#include "cloud/aws.h"

/*
 * aws_call of a read whose answer holds for a while (what a region
 * offers, an account's quotas): kept in the database (aws_facts,
 * sw_fact_get) for every worker, poller and replica, keyed by account,
 * region, operation and input.  in is not taken.
 */
struct aws_keep {
	int64_t ms; /* how long the answer is kept */
	int fresh; /* ask AWS whatever is kept, and keep its answer */
	/* The account of a context that has yet to learn its own
	 * (Slipway's, when configured), so that one account has one key
	 * before and after: NULL for none. */
	const char *home;
};
struct sw_db;
sw_err aws_call_kept(struct aws_ctx *, struct sw_db *, enum aws_service,
    const char *op, json_object *in, json_object **out, struct aws_error *,
    const struct aws_keep *);

/* --- STS (query) --- */
/* GetCallerIdentity: account (12 digits) and ARN into the buffers. */
sw_err aws_sts_get_caller_identity(struct aws_ctx *, char *account,
    size_t accountsz, char *arn, size_t arnsz, struct aws_error *);
/*
 * AssumeRole of role_arn as session_name, with source_identity (NULL:
 * none) set on the session, for duration_s seconds: the session's
 * credentials and their expiration into *out.
 */
sw_err aws_sts_assume_role(struct aws_ctx *, const char *role_arn,
    const char *session_name, const char *source_identity, int duration_s,
    struct aws_creds *out, struct aws_error *);
/* The same with external_id (NULL: none) sent as ExternalId. */
sw_err aws_sts_assume_role_ext(struct aws_ctx *, const char *role_arn,
    const char *session_name, const char *source_identity,
    const char *external_id, int duration_s, struct aws_creds *out,
    struct aws_error *);

/* --- EC2 (ec2 protocol; output keys are wire names) --- */

/* --- IAM (query, global endpoint) --- */

/* --- EKS (rest-json) --- */
/*
 * DescribeCluster, then the API server URL and the decoded cluster CA
 * (PEM) for cloud/k8s.c.  Both strings are newly allocated: free them.
 */
sw_err aws_eks_cluster_access(struct aws_ctx *, const char *cluster,
    char **endpoint, char **ca_pem, size_t *ca_len, struct aws_error *);
/*
 * The same two strings from a DescribeCluster answer already read (doc
 * is borrowed): err's code is ClusterNotReady while it has no endpoint
 * or CA.  Both strings are newly allocated: free them.
 */
sw_err aws_cluster_access_of(json_object *doc, const char *cluster,
    char **endpoint, char **ca_pem, size_t *ca_len, struct aws_error *);

/* --- SageMaker HyperPod (json 1.1) --- */
/*
 * DescribeCluster of the HyperPod cluster name: on SW_OK *out is a new
 * reference to the description; SW_ENOTFOUND when SageMaker has no
 * cluster of that name; otherwise as aws_call (err says why).
 */
sw_err aws_hp_describe(
    struct aws_ctx *, const char *name, json_object **out, struct aws_error *);

/* --- FSx (json 1.1) --- */

/* --- Service Quotas (json 1.1) --- */

/* --- Price List (json 1.1, us-east-1) --- */
/*
 * The on-demand price per hour AWS lists for one instance type in
 * region: service "AmazonSageMaker" with a HyperPod type ("ml.p5.48xlarge",
 * usage type "<prefix>-Cluster:ml.<type>"), or "AmazonEC2" (Linux,
 * shared tenancy).  out->known is 0 when AWS lists the product without
 * an on-demand price, or no product at all: a price is never guessed.
 */
struct aws_price {
	int known;
	int64_t usd_micro; /* millionths of a US dollar per hour */
	char sku[32];
	char published[32]; /* the catalogue's publicationDate */
};
sw_err aws_price_hourly(struct aws_ctx *, const char *service,
    const char *region, const char *instance_type, struct aws_price *out,
    struct aws_error *);
/* "12.3456789" -> 12345679 (millionths, rounded half up); -1 if not a
 * non-negative decimal. */
int aws_price_micro(const char *decimal, int64_t *out);

/* --- S3 (rest-xml; path style with an endpoint override) --- */
sw_err aws_s3_create_bucket(
    struct aws_ctx *, const char *bucket, struct aws_error *);
/* HeadBucket; region (may be NULL) gets x-amz-bucket-region. */
sw_err aws_s3_head_bucket(struct aws_ctx *, const char *bucket, char *region,
    size_t regionsz, struct aws_error *);
/* PutObject of len bytes (borrowed); content_type may be NULL. */
sw_err aws_s3_put_object(struct aws_ctx *, const char *bucket, const char *key,
    const void *data, size_t len, const char *content_type, struct aws_error *);
/* GetObject into out (initialised by the caller, capped by its max). */
sw_err aws_s3_get_object(struct aws_ctx *, const char *bucket, const char *key,
    struct sw_buf *out, struct aws_error *);
/*
 * ListObjectsV2: prefix and token may be NULL.  *out (new reference)
 * is the ListBucketResult as JSON with "Contents" always an array.
 */
sw_err aws_s3_list_objects_v2(struct aws_ctx *, const char *bucket,
    const char *prefix, const char *token, json_object **out,
    struct aws_error *);
sw_err aws_s3_delete_object(
    struct aws_ctx *, const char *bucket, const char *key, struct aws_error *);
sw_err aws_s3_delete_bucket(
    struct aws_ctx *, const char *bucket, struct aws_error *);
/*
 * DeleteObjects of keys (borrowed array of strings, 1 to
 * SW_S3_DELETE_MAX).  *out (new) is the DeleteResult as JSON with
 * "Deleted" and "Error" always arrays: S3 answers 200 and lists the
 * keys it could not delete under Error.
 */
#define SW_S3_DELETE_MAX 1000
sw_err aws_s3_delete_objects(struct aws_ctx *, const char *bucket,
    json_object *keys, json_object **out, struct aws_error *);

#endif
