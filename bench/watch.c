/*
 * watch.c: slipway-bench-watch, passes of the poller's watch
 * (poller/watch.c) over many clusters, in-process.
 *
 *   slipway-bench-watch DIR CLUSTERS NODES JOBS PASSES [still]
 *
 * The program is linked with poller/watch.c and the project libraries
 * but answers the watch's calls to the outside world itself, with the
 * JSON text the sandbox answers parsed as the clients parse it: the AWS
 * call (ListClusterEvents: none new), the Kubernetes connection and its
 * lists (NODES nodes with HyperPod's health label, one self-hosted
 * endpoint's Deployment and pod, one InferenceEndpointConfig the
 * inference operator says DeploymentComplete of, no JumpStartModel,
 * JOBS HyperPodPyTorchJobs, no RayJob).
 * The first pass (every object's first sight, a baseline) is not
 * counted.  On every pass after it, in one cluster in ten one job
 * fails (job.failed) and in the ten per cent that failed on the pass
 * before it runs again (job.recovered); every other job, node and
 * endpoint is as it was, so the pass is what the watch costs when
 * almost nothing changed; with "still", nothing changes at all.
 * A subscription of every kind is set, so the changes write their
 * events and deliveries to a real state store in DIR.
 *
 * Prints one line per pass, less the time this program took to write
 * its answers' text (a real pass spends it receiving them instead):
 *   pass <wall ms> <cpu ms> <rows written>
 * (each cluster's turn, always taken here, is one row of them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/fixture.h"
#include "cloud/aws.h"
#include "cloud/kube.h"
#include "lib/buf.h"
#include "lib/db.h"
#include "lib/json.h"
#include "lib/ledger.h"
#include "lib/log.h"
#include "lib/notify.h"
#include "lib/ops.h"
#include "pipelines/pipeline.h"
#include "poller/watch.h"

static int nodes_per, jobs_per; /* a cluster's */
static int pass_no; /* which pass */
static int still; /* nothing changes */

sw_err
aws_call(struct aws_ctx *aws, enum aws_service svc, const char *op,
    json_object *input, json_object **output, struct aws_error *err)
{
	struct sw_buf b;

	(void)aws;
	(void)svc;
	(void)err;
	*output = NULL;
	if (strcmp(op, "ListClusterEvents") != 0 ||
	    cluster_no(sw_json_get_str(input, "ClusterName")) < 0)
		return SW_ENOTFOUND;
	making(1);
	sw_buf_init(&b, 0);
	(void)sw_buf_puts(&b, "{\"Events\":[]}");
	making(0);
	*output = parsed(&b);
	return SW_OK;
}

static void
kube_nodes(struct sw_buf *b)
{
	int i;

	(void)sw_buf_puts(b, "{\"kind\":\"NodeList\",\"items\":[");
	for (i = 0; i < nodes_per; i++)
		(void)sw_buf_printf(b,
		    "%s{\"metadata\":{\"name\":"
		    "\"hyperpod-i-0%07x%08x\",\"labels\":{"
		    "\"node.kubernetes.io/instance-type\":\"ml.p5.48xlarge\","
		    "\"sagemaker.amazonaws.com/instance-group-name\":"
		    "\"workers\",\"sagemaker.amazonaws.com/"
		    "node-health-status\":\"Schedulable\"},\"annotations\":"
		    "{\"sagemaker.amazonaws.com/instance-id\":"
		    "\"i-0%07x%08x\"}},"
		    "\"status\":{\"capacity\":{\"nvidia.com/gpu\":\"8\"}}}",
		    i ? "," : "", bench_cluster, i, bench_cluster, i);
	(void)sw_buf_puts(b, "]}");
}

/* Job 0 of one cluster in ten fails on this pass. */
static const char *
job_condition(int job)
{
	return !still && job == 0 && pass_no > 0 &&
		bench_cluster % 10 == pass_no % 10
	    ? "Failed"
	    : "Running";
}

static void
kube_jobs(struct sw_buf *b)
{
	int i;

	(void)sw_buf_puts(b,
	    "{\"kind\":\"HyperPodPyTorchJobList\","
	    "\"items\":[");
	for (i = 0; i < jobs_per; i++)
		(void)sw_buf_printf(b,
		    "%s{\"metadata\":{\"name\":\"train-%d\","
		    "\"namespace\":\"hyperpod-ns-team%d\"},\"spec\":{"
		    "\"runPolicy\":{}},\"status\":{\"conditions\":[{\"type\":"
		    "\"Created\",\"status\":\"True\"},{\"type\":\"%s\","
		    "\"status\":\"True\",\"reason\":\"x\","
		    "\"message\":\"y\"}]}}",
		    i ? "," : "", i, i % 8, job_condition(i));
	(void)sw_buf_puts(b, "]}");
}

/* The inference operator's endpoints: one managed, ready; no JumpStart. */
static void
kube_managed(struct sw_buf *b, int jumpstart)
{
	if (jumpstart)
		(void)sw_buf_puts(b,
		    "{\"kind\":\"JumpStartModelList\","
		    "\"items\":[]}");
	else
		(void)sw_buf_puts(b,
		    "{\"kind\":\"InferenceEndpointConfigList\","
		    "\"items\":[{\"metadata\":{\"name\":\"chat\",\"namespace\":"
		    "\"hyperpod-ns-team2\"},\"spec\":{\"replicas\":1},"
		    "\"status\":{\"state\":\"DeploymentComplete\","
		    "\"replicas\":1,\"conditions\":[{\"type\":"
		    "\"DeploymentComplete\",\"status\":\"True\",\"reason\":"
		    "\"DeploymentComplete\",\"message\":\"1 of 1\"}]}}]}");
}

static void
kube_server(struct sw_buf *b, int pods)
{
	if (pods)
		(void)sw_buf_puts(b,
		    "{\"kind\":\"PodList\",\"items\":[{"
		    "\"metadata\":{\"name\":\"llm-1\",\"namespace\":"
		    "\"hyperpod-ns-team1\",\"labels\":{\"slipway.dev/"
		    "inference\":\"llm\"}},\"status\":{\"phase\":\"Running\","
		    "\"containerStatuses\":[{\"state\":{\"running\":{}}}]}}]}");
	else
		(void)sw_buf_puts(b,
		    "{\"kind\":\"DeploymentList\",\"items\":[{"
		    "\"metadata\":{\"name\":\"llm\",\"namespace\":"
		    "\"hyperpod-ns-team1\",\"labels\":{\"slipway.dev/"
		    "inference\":\"llm\"}},\"spec\":{\"replicas\":1},"
		    "\"status\":{\"readyReplicas\":1}}]}");
}

sw_err
k8s_list(struct k8s_client *k, const char *path, const char *selector,
    json_object **out, struct k8s_error *err)
{
	struct sw_buf b;

	(void)k;
	(void)selector;
	(void)err;
	*out = NULL;
	if (strstr(path, "rayjobs") != NULL)
		return SW_ENOTFOUND; /* no KubeRay */
	making(1);
	sw_buf_init(&b, 0);
	if (strcmp(path, "/api/v1/nodes") == 0)
		kube_nodes(&b);
	else if (strstr(path, "hyperpodpytorchjobs") != NULL)
		kube_jobs(&b);
	else if (strstr(path, "inference.sagemaker.aws.amazon.com") != NULL)
		kube_managed(&b, strstr(path, "jumpstartmodels") != NULL);
	else
		kube_server(&b, strcmp(path, "/api/v1/pods") == 0);
	making(0);
	*out = parsed(&b);
	return *out ? SW_OK : SW_EINTERNAL;
}

static int
seed(struct sw_db *db, int clusters)
{
	struct sw_sub_new n = {
		.name = "bench",
		.target = "webhook",
		.address = "http://127.0.0.1:9/",
		.secret = "0123456789abcdef",
		.format = "slipway",
		.created_by = "bench",
		.kinds = "job.failed,job.recovered,endpoint.failed,"
			 "node.unhealthy,cluster.event",
	};
	struct sw_cluster_rec rec;
	char name[32], id[SW_CLUSTER_ID_LEN];
	int c;

	for (c = 0; c < clusters; c++) {
		sw_fmt_text(name, sizeof(name), "bench-%04d", c);
		if (sw_cluster_new_id(id) != SW_OK ||
		    sw_cluster_record(db, name, id, "created", &rec) != SW_OK)
			return 1;
	}
	return sw_sub_create(db, &n) == SW_OK ? 0 : 1;
}

int
main(int argc, char *argv[])
{
	struct sw_db *db = NULL;
	struct aws_ctx aws;
	char path[4096];
	int clusters, passes;
	double w0, c0;
	int64_t before;

	if (argc != 6 && !(argc == 7 && strcmp(argv[6], "still") == 0)) {
		fprintf(stderr,
		    "usage: slipway-bench-watch DIR CLUSTERS "
		    "NODES JOBS PASSES [still]\n");
		return 2;
	}
	still = argc == 7;
	sw_log_init("slipway-bench-watch");
	clusters = (int)strtol(argv[2], NULL, 10);
	nodes_per = (int)strtol(argv[3], NULL, 10);
	jobs_per = (int)strtol(argv[4], NULL, 10);
	passes = (int)strtol(argv[5], NULL, 10);
	if (clusters < 1 || nodes_per < 1 || jobs_per < 1 || passes < 1)
		return 2;
	sw_fmt_text(path, sizeof(path), "%s/state.db", argv[1]);
	if (sw_db_open(path, &db) != SW_OK || seed(db, clusters) != 0) {
		fprintf(stderr, "cannot set up %s\n", path);
		return 1;
	}
	memset(&aws, 0, sizeof(aws));
	for (pass_no = 0; pass_no <= passes; pass_no++) {
		before = sw_db_total_changes(db);
		made_wall = made_cpu = 0;
		w0 = ms(CLOCK_MONOTONIC);
		c0 = ms(CLOCK_PROCESS_CPUTIME_ID);
		(void)sw_watch_tick(db, &aws, NULL, 0, 0, 0);
		if (pass_no > 0)
			printf("pass %.3f %.3f %lld\n",
			    ms(CLOCK_MONOTONIC) - w0 - made_wall,
			    ms(CLOCK_PROCESS_CPUTIME_ID) - c0 - made_cpu,
			    (long long)(sw_db_total_changes(db) - before));
		fflush(stdout);
	}
	sw_db_close(db);
	return 0;
}
