/*
 * aws_api.h: typed AWS calls for the pipelines.  Most are thin: input
 * is a json-c object with the model's member names (borrowed), output
 * a new reference the caller puts, exactly as aws_call() (see aws.h
 * for errors and ownership).  A few helpers return plain C values.
 */
#ifndef SW_AWS_API_H
#define SW_AWS_API_H

#include <stddef.h>

#include <json-c/json.h>

#include "lib/buf.h"
#include "lib/aws.h"

/* Signature shared by every thin call below. */
#define AWS_API_ARGS	struct aws_ctx *, json_object *in, \
	json_object **out, struct aws_error *

/* --- STS (query) --- */
/* GetCallerIdentity: account (12 digits) and ARN into the buffers. */
sw_err	 aws_sts_get_caller_identity(struct aws_ctx *, char *account,
	    size_t accountsz, char *arn, size_t arnsz, struct aws_error *);
sw_err	 aws_sts_assume_role(AWS_API_ARGS);

/* --- EC2 (ec2 protocol; output keys are wire names) --- */
sw_err	 aws_ec2_create_vpc(AWS_API_ARGS);
sw_err	 aws_ec2_describe_vpcs(AWS_API_ARGS);
sw_err	 aws_ec2_delete_vpc(AWS_API_ARGS);
sw_err	 aws_ec2_modify_vpc_attribute(AWS_API_ARGS);
sw_err	 aws_ec2_create_subnet(AWS_API_ARGS);
sw_err	 aws_ec2_describe_subnets(AWS_API_ARGS);
sw_err	 aws_ec2_delete_subnet(AWS_API_ARGS);
sw_err	 aws_ec2_modify_subnet_attribute(AWS_API_ARGS);
sw_err	 aws_ec2_create_internet_gateway(AWS_API_ARGS);
sw_err	 aws_ec2_attach_internet_gateway(AWS_API_ARGS);
sw_err	 aws_ec2_detach_internet_gateway(AWS_API_ARGS);
sw_err	 aws_ec2_delete_internet_gateway(AWS_API_ARGS);
sw_err	 aws_ec2_describe_internet_gateways(AWS_API_ARGS);
sw_err	 aws_ec2_allocate_address(AWS_API_ARGS);
sw_err	 aws_ec2_release_address(AWS_API_ARGS);
sw_err	 aws_ec2_describe_addresses(AWS_API_ARGS);
sw_err	 aws_ec2_create_nat_gateway(AWS_API_ARGS);
sw_err	 aws_ec2_describe_nat_gateways(AWS_API_ARGS);
sw_err	 aws_ec2_delete_nat_gateway(AWS_API_ARGS);
sw_err	 aws_ec2_create_route_table(AWS_API_ARGS);
sw_err	 aws_ec2_describe_route_tables(AWS_API_ARGS);
sw_err	 aws_ec2_delete_route_table(AWS_API_ARGS);
sw_err	 aws_ec2_create_route(AWS_API_ARGS);
sw_err	 aws_ec2_delete_route(AWS_API_ARGS);
sw_err	 aws_ec2_associate_route_table(AWS_API_ARGS);
sw_err	 aws_ec2_disassociate_route_table(AWS_API_ARGS);
sw_err	 aws_ec2_create_security_group(AWS_API_ARGS);
sw_err	 aws_ec2_describe_security_groups(AWS_API_ARGS);
sw_err	 aws_ec2_delete_security_group(AWS_API_ARGS);
sw_err	 aws_ec2_authorize_security_group_ingress(AWS_API_ARGS);
sw_err	 aws_ec2_authorize_security_group_egress(AWS_API_ARGS);
sw_err	 aws_ec2_revoke_security_group_ingress(AWS_API_ARGS);
sw_err	 aws_ec2_revoke_security_group_egress(AWS_API_ARGS);
sw_err	 aws_ec2_create_tags(AWS_API_ARGS);
sw_err	 aws_ec2_delete_tags(AWS_API_ARGS);
sw_err	 aws_ec2_describe_availability_zones(AWS_API_ARGS);
sw_err	 aws_ec2_describe_instance_type_offerings(AWS_API_ARGS);
sw_err	 aws_ec2_describe_instance_types(AWS_API_ARGS);
sw_err	 aws_ec2_create_vpc_endpoint(AWS_API_ARGS);
sw_err	 aws_ec2_delete_vpc_endpoints(AWS_API_ARGS);

/* --- IAM (query, global endpoint) --- */
sw_err	 aws_iam_create_role(AWS_API_ARGS);
sw_err	 aws_iam_get_role(AWS_API_ARGS);
sw_err	 aws_iam_delete_role(AWS_API_ARGS);
sw_err	 aws_iam_update_assume_role_policy(AWS_API_ARGS);
sw_err	 aws_iam_attach_role_policy(AWS_API_ARGS);
sw_err	 aws_iam_detach_role_policy(AWS_API_ARGS);
sw_err	 aws_iam_list_attached_role_policies(AWS_API_ARGS);
sw_err	 aws_iam_put_role_policy(AWS_API_ARGS);
sw_err	 aws_iam_delete_role_policy(AWS_API_ARGS);
sw_err	 aws_iam_list_role_policies(AWS_API_ARGS);
sw_err	 aws_iam_create_policy(AWS_API_ARGS);
sw_err	 aws_iam_get_policy(AWS_API_ARGS);
sw_err	 aws_iam_delete_policy(AWS_API_ARGS);
sw_err	 aws_iam_create_oidc_provider(AWS_API_ARGS);
sw_err	 aws_iam_get_oidc_provider(AWS_API_ARGS);
sw_err	 aws_iam_list_oidc_providers(AWS_API_ARGS);
sw_err	 aws_iam_delete_oidc_provider(AWS_API_ARGS);

/* --- EKS (rest-json) --- */
sw_err	 aws_eks_create_cluster(AWS_API_ARGS);
sw_err	 aws_eks_describe_cluster(AWS_API_ARGS);
sw_err	 aws_eks_list_clusters(AWS_API_ARGS);
sw_err	 aws_eks_delete_cluster(AWS_API_ARGS);
sw_err	 aws_eks_update_cluster_config(AWS_API_ARGS);
sw_err	 aws_eks_describe_update(AWS_API_ARGS);
sw_err	 aws_eks_create_addon(AWS_API_ARGS);
sw_err	 aws_eks_describe_addon(AWS_API_ARGS);
sw_err	 aws_eks_list_addons(AWS_API_ARGS);
sw_err	 aws_eks_update_addon(AWS_API_ARGS);
sw_err	 aws_eks_delete_addon(AWS_API_ARGS);
sw_err	 aws_eks_describe_addon_versions(AWS_API_ARGS);
sw_err	 aws_eks_create_access_entry(AWS_API_ARGS);
sw_err	 aws_eks_describe_access_entry(AWS_API_ARGS);
sw_err	 aws_eks_list_access_entries(AWS_API_ARGS);
sw_err	 aws_eks_delete_access_entry(AWS_API_ARGS);
sw_err	 aws_eks_associate_access_policy(AWS_API_ARGS);
sw_err	 aws_eks_disassociate_access_policy(AWS_API_ARGS);
sw_err	 aws_eks_create_pod_identity_association(AWS_API_ARGS);
sw_err	 aws_eks_describe_pod_identity_association(AWS_API_ARGS);
sw_err	 aws_eks_list_pod_identity_associations(AWS_API_ARGS);
sw_err	 aws_eks_delete_pod_identity_association(AWS_API_ARGS);
/*
 * DescribeCluster, then the API server URL and the decoded cluster CA
 * (PEM) for lib/k8s.c.  Both strings are newly allocated: free them.
 */
sw_err	 aws_eks_cluster_access(struct aws_ctx *, const char *cluster,
	    char **endpoint, char **ca_pem, size_t *ca_len,
	    struct aws_error *);

/* --- SageMaker HyperPod (json 1.1) --- */
sw_err	 aws_sagemaker_create_cluster(AWS_API_ARGS);
sw_err	 aws_sagemaker_describe_cluster(AWS_API_ARGS);
sw_err	 aws_sagemaker_list_clusters(AWS_API_ARGS);
sw_err	 aws_sagemaker_delete_cluster(AWS_API_ARGS);
sw_err	 aws_sagemaker_update_cluster(AWS_API_ARGS);
sw_err	 aws_sagemaker_list_cluster_nodes(AWS_API_ARGS);
sw_err	 aws_sagemaker_describe_cluster_node(AWS_API_ARGS);
sw_err	 aws_sagemaker_batch_reboot_cluster_nodes(AWS_API_ARGS);
sw_err	 aws_sagemaker_batch_replace_cluster_nodes(AWS_API_ARGS);
sw_err	 aws_sagemaker_batch_delete_cluster_nodes(AWS_API_ARGS);
sw_err	 aws_sagemaker_update_cluster_software(AWS_API_ARGS);
sw_err	 aws_sagemaker_describe_training_plan(AWS_API_ARGS);
sw_err	 aws_sagemaker_list_training_plans(AWS_API_ARGS);

/* --- FSx (json 1.1) --- */
sw_err	 aws_fsx_create_file_system(AWS_API_ARGS);
sw_err	 aws_fsx_describe_file_systems(AWS_API_ARGS);
sw_err	 aws_fsx_delete_file_system(AWS_API_ARGS);

/* --- Service Quotas (json 1.1) --- */
sw_err	 aws_quotas_get_service_quota(AWS_API_ARGS);

/* --- S3 (rest-xml; path style with an endpoint override) --- */
sw_err	 aws_s3_create_bucket(struct aws_ctx *, const char *bucket,
	    struct aws_error *);
/* HeadBucket; region (may be NULL) gets x-amz-bucket-region. */
sw_err	 aws_s3_head_bucket(struct aws_ctx *, const char *bucket,
	    char *region, size_t regionsz, struct aws_error *);
/* PutObject of len bytes (borrowed); content_type may be NULL. */
sw_err	 aws_s3_put_object(struct aws_ctx *, const char *bucket,
	    const char *key, const void *data, size_t len,
	    const char *content_type, struct aws_error *);
/* GetObject into out (initialised by the caller, capped by its max). */
sw_err	 aws_s3_get_object(struct aws_ctx *, const char *bucket,
	    const char *key, struct sw_buf *out, struct aws_error *);
/*
 * ListObjectsV2: prefix and token may be NULL.  *out (new reference)
 * is the ListBucketResult as JSON with "Contents" always an array.
 */
sw_err	 aws_s3_list_objects_v2(struct aws_ctx *, const char *bucket,
	    const char *prefix, const char *token, json_object **out,
	    struct aws_error *);
sw_err	 aws_s3_delete_object(struct aws_ctx *, const char *bucket,
	    const char *key, struct aws_error *);
sw_err	 aws_s3_delete_bucket(struct aws_ctx *, const char *bucket,
	    struct aws_error *);

#endif
