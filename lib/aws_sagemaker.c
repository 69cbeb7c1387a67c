/*
 * aws_sagemaker.c: SageMaker HyperPod clusters, nodes, software updates
 * and training plans over json 1.1 (X-Amz-Target SageMaker.<Op>).  The
 * calls are thin: aws_call() does the work.
 */
#include "lib/aws_api.h"

#define SVC	AWS_SVC_SAGEMAKER

AWS_THIN_CALL(aws_sagemaker_create_cluster, SVC, "CreateCluster")
AWS_THIN_CALL(aws_sagemaker_describe_cluster, SVC, "DescribeCluster")
AWS_THIN_CALL(aws_sagemaker_list_clusters, SVC, "ListClusters")
AWS_THIN_CALL(aws_sagemaker_delete_cluster, SVC, "DeleteCluster")
AWS_THIN_CALL(aws_sagemaker_update_cluster, SVC, "UpdateCluster")
AWS_THIN_CALL(aws_sagemaker_list_cluster_nodes, SVC, "ListClusterNodes")
AWS_THIN_CALL(aws_sagemaker_describe_cluster_node, SVC, "DescribeClusterNode")
AWS_THIN_CALL(aws_sagemaker_batch_reboot_cluster_nodes, SVC,
    "BatchRebootClusterNodes")
AWS_THIN_CALL(aws_sagemaker_batch_replace_cluster_nodes, SVC,
    "BatchReplaceClusterNodes")
AWS_THIN_CALL(aws_sagemaker_batch_delete_cluster_nodes, SVC,
    "BatchDeleteClusterNodes")
AWS_THIN_CALL(aws_sagemaker_update_cluster_software, SVC,
    "UpdateClusterSoftware")
AWS_THIN_CALL(aws_sagemaker_describe_training_plan, SVC, "DescribeTrainingPlan")
AWS_THIN_CALL(aws_sagemaker_list_training_plans, SVC, "ListTrainingPlans")
