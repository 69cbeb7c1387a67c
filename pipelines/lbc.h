/*
 * lbc.h: the AWS Load Balancer Controller (pipelines/lbc.c) for a
 * caller that runs no operation.  inference_deploy needs the controller
 * before it applies a LoadBalancer Service but answers in one request,
 * so it asks here instead of building a pipeline step of its own; a
 * pipeline stage calls sw_lbc_ensure() (pipelines/helm.h) with its own
 * step.
 */
#ifndef SW_LBC_H
#define SW_LBC_H

#include <stddef.h>

#include "cloud/aws.h"
#include "lib/conf.h"
#include "lib/err.h"
#include "cloud/kube.h"

/*
 * One pass of sw_lbc_ensure() for cluster in a step of its own, kept
 * for no longer than the call: each call reads AWS and Helm's release
 * record afresh and takes the next step (role, policy, pod identity
 * association, then the chart's Helm installer Job).  SW_OK with *ready
 * 1 once the release is deployed, 0 while it is being installed;
 * SW_EUPSTREAM when AWS or helm refused.  msg (msgsz bytes, cut to
 * fit) gets the step's message, helm's or AWS's own words on a
 * refusal, empty when there is none.  aws, cfg and kb are borrowed.
 */
sw_err sw_lbc_status_or_ensure(struct aws_ctx *aws, const struct sw_config *cfg,
    struct sw_kube *kb, const char *cluster, char *msg, size_t msgsz,
    int *ready);

#endif
