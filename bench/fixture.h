/*
 * fixture.h: what the in-process benches (bench/ledger.c, bench/watch.c)
 * share.  They stand in for the AWS and Kubernetes clients, writing the
 * answers' text as the sandbox would; the time spent writing it is not
 * the pass's, so making() brackets it and made_wall/made_cpu add it up
 * to be taken off.
 */
#ifndef SW_BENCH_FIXTURE_H
#define SW_BENCH_FIXTURE_H

#include <time.h>

#include <json-c/json.h>

#include "lib/buf.h"

/* Milliseconds on clock clk. */
double ms(clockid_t clk);
/* making(1) before writing an answer, making(0) after it. */
void making(int start);
extern double made_wall, made_cpu;
/* n of a cluster named bench-<n>, else -1. */
int cluster_no(const char *name);
/* b's text parsed (NULL when it is not JSON); b is freed. */
json_object *parsed(struct sw_buf *b);
/* The n of the cluster sw_kube_connect last connected to.  The
 * fixture's sw_kube_connect, sw_kube_close and sw_cluster_aws stand in
 * for the product's: every bench cluster is in Slipway's own account. */
extern int bench_cluster;

#endif
