/*
 * aws_fsx.c: FSx for Lustre file systems for HyperPod, over json 1.1
 * (X-Amz-Target AWSSimbaAPIService_v20180301.<Op>).  The calls are
 * thin: aws_call() does the work.
 */
#include "lib/aws_api.h"

#define SVC	AWS_SVC_FSX

AWS_THIN_CALL(aws_fsx_create_file_system, SVC, "CreateFileSystem")
AWS_THIN_CALL(aws_fsx_describe_file_systems, SVC, "DescribeFileSystems")
AWS_THIN_CALL(aws_fsx_delete_file_system, SVC, "DeleteFileSystem")
