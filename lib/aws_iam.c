/*
 * aws_iam.c: IAM roles, role policies, managed policies and OIDC
 * providers over the query protocol.  IAM is global: aws_endpoint()
 * sends it to https://iam.amazonaws.com signed for us-east-1 unless an
 * endpoint override says otherwise.  The calls are thin: aws_call()
 * does the work.
 */
#include "lib/aws_api.h"

#define SVC	AWS_SVC_IAM

AWS_THIN_CALL(aws_iam_create_role, SVC, "CreateRole")
AWS_THIN_CALL(aws_iam_get_role, SVC, "GetRole")
AWS_THIN_CALL(aws_iam_delete_role, SVC, "DeleteRole")
AWS_THIN_CALL(aws_iam_update_assume_role_policy, SVC, "UpdateAssumeRolePolicy")
AWS_THIN_CALL(aws_iam_attach_role_policy, SVC, "AttachRolePolicy")
AWS_THIN_CALL(aws_iam_detach_role_policy, SVC, "DetachRolePolicy")
AWS_THIN_CALL(aws_iam_list_attached_role_policies, SVC,
    "ListAttachedRolePolicies")
AWS_THIN_CALL(aws_iam_put_role_policy, SVC, "PutRolePolicy")
AWS_THIN_CALL(aws_iam_delete_role_policy, SVC, "DeleteRolePolicy")
AWS_THIN_CALL(aws_iam_list_role_policies, SVC, "ListRolePolicies")
AWS_THIN_CALL(aws_iam_create_policy, SVC, "CreatePolicy")
AWS_THIN_CALL(aws_iam_get_policy, SVC, "GetPolicy")
AWS_THIN_CALL(aws_iam_delete_policy, SVC, "DeletePolicy")
AWS_THIN_CALL(aws_iam_create_oidc_provider, SVC, "CreateOpenIDConnectProvider")
AWS_THIN_CALL(aws_iam_get_oidc_provider, SVC, "GetOpenIDConnectProvider")
AWS_THIN_CALL(aws_iam_list_oidc_providers, SVC, "ListOpenIDConnectProviders")
AWS_THIN_CALL(aws_iam_delete_oidc_provider, SVC, "DeleteOpenIDConnectProvider")
