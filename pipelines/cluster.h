/*
 * cluster.h: the parts of the cluster.create pipeline that live in their
 * own files, for cluster.c (pipelines only; nothing above includes it).
 *
 *   network.c     the network stage and the VPC facts later stages need
 *   components.c  device plugins and the health-monitoring agent
 */
#ifndef SW_PIPELINES_CLUSTER_H
#define SW_PIPELINES_CLUSTER_H

#include "pipelines/pipeline.h"

/* The network stage: VPC, subnets, gateways, route tables, group. */
enum sw_step_rc sw_stage_network(struct sw_step *);
/* The cluster's VPC id, CIDR and private route table into this stage's
 * resources: from the network stage of a create, else looked up. */
enum sw_step_rc sw_ensure_vpc_facts(struct sw_step *);
/* HyperPod's health-monitoring agent, as its chart deploys it. */
enum sw_step_rc sw_apply_health_agent(struct sw_step *);
/* The NVIDIA and EFA device plugins by their Helm installer Jobs, once
 * nodes can run the Jobs' pods; followed to Complete. */
enum sw_step_rc sw_install_device_plugins(struct sw_step *);

#endif
