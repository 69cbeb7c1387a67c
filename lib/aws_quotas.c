/*
 * aws_quotas.c: Service Quotas GetServiceQuota for the pre-flight
 * checks (json 1.1, X-Amz-Target ServiceQuotasV20190624.<Op>, signing
 * name servicequotas).  The call is thin: aws_call() does the work.
 */
#include "lib/aws_api.h"

#define SVC	AWS_SVC_QUOTAS

AWS_THIN_CALL(aws_quotas_get_service_quota, SVC, "GetServiceQuota")
