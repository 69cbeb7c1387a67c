/*
 * ledger.c: slipway-bench-ledger, one pass of the usage ledger's sample
 * (poller/ledger.c, lib/ledger.c) over many clusters, in-process.
 *
 *   slipway-bench-ledger DIR CLUSTERS NODES PASSES
 *
 * The program is linked with poller/ledger.c and the project libraries,
 * but answers the ledger's four calls to the outside world itself: the
 * AWS call (ListClusterNodes, the JSON text the sandbox answers, parsed
 * here as the AWS client parses it), the Kubernetes connection and its
 * two lists (nodes, running pods), and the price lookup (a cached
 * price).  So a pass is the ledger's own work: the matching of nodes
 * and pods, the spans, every row written to a real state store in DIR.
 * Each cluster has NODES p5 nodes of 8 GPUs; three pods in four hold a
 * node's 8 GPUs, in one of 8 teams.  The AWS clock moves 60 s between
 * passes.  The first pass (a cluster's first sample) is not counted.
 *
 * The reference, in the same run: the same number of rows, in the same
 * number of transactions (one per cluster), inserted by one prepared
 * INSERT into a plain table of a second state store opened the same
 * way (WAL, synchronous NORMAL).
 *
 * Prints one line per pass (less the time this program took to write
 * its answers' text, which a real pass spends receiving them instead):
 *   pass <wall ms> <cpu ms> <rows>
 *   ref <wall ms> <cpu ms> <rows>
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
#include "lib/log.h"
#include "lib/ops.h"
#include "pipelines/pipeline.h"
#include "pipelines/prices.h"
#include "poller/ledger.h"

#define GPUS 8
#define TEAMS 8
#define LAUNCH 1764892800 /* 2025-12-05T00:00:00Z */
#define PRICE_US 98320000 /* illustrative, micro-USD an hour */

static int nodes_per; /* nodes a cluster */
static int64_t aws_now = LAUNCH + 3600;
static int64_t rows; /* rows a pass writes */

/* ListClusterNodes of cluster c, one page, as the sandbox answers. */
static json_object *
node_page(int c)
{
	struct sw_buf b;
	int i;

	making(1);
	sw_buf_init(&b, 0);
	(void)sw_buf_puts(&b, "{\"ClusterNodeSummaries\":[");
	for (i = 0; i < nodes_per; i++)
		(void)sw_buf_printf(&b,
		    "%s{\"InstanceGroupName\":\"workers\","
		    "\"InstanceId\":\"i-0%07x%08x\",\"InstanceStatus\":"
		    "{\"Status\":\"Running\"},\"InstanceType\":"
		    "\"ml.p5.48xlarge\",\"LaunchTime\":%d.25}",
		    i ? "," : "", c, i, LAUNCH);
	(void)sw_buf_puts(&b, "]}");
	making(0);
	return parsed(&b);
}

sw_err
aws_call(struct aws_ctx *aws, enum aws_service svc, const char *op,
    json_object *input, json_object **output, struct aws_error *err)
{
	int c = cluster_no(sw_json_get_str(input, "ClusterName"));

	(void)svc;
	(void)err;
	*output = NULL;
	if (strcmp(op, "ListClusterNodes") != 0 || c < 0)
		return SW_ENOTFOUND;
	aws->server_time = (time_t)aws_now;
	*output = node_page(c);
	return *output ? SW_OK : SW_EINTERNAL;
}

static void
kube_nodes(struct sw_buf *b)
{
	int i;

	(void)sw_buf_puts(b, "{\"kind\":\"NodeList\",\"items\":[");
	for (i = 0; i < nodes_per; i++)
		(void)sw_buf_printf(b,
		    "%s{\"metadata\":{\"name\":"
		    "\"hyperpod-i-0%07x%08x\",\"labels\":{\"node.kubernetes.io/"
		    "instance-type\":\"ml.p5.48xlarge\"}},\"status\":{"
		    "\"capacity\":{\"cpu\":\"192\",\"nvidia.com/gpu\":\"%d\"},"
		    "\"allocatable\":{\"nvidia.com/gpu\":\"%d\"}}}",
		    i ? "," : "", bench_cluster, i, GPUS, GPUS);
	(void)sw_buf_puts(b, "]}");
}

static void
kube_pods(struct sw_buf *b)
{
	int i, n = 0;

	(void)sw_buf_puts(b, "{\"kind\":\"PodList\",\"items\":[");
	for (i = 0; i < nodes_per; i++) {
		if (i % 4 == 3)
			continue; /* a node no pod holds: idle */
		(void)sw_buf_printf(b,
		    "%s{\"metadata\":{\"name\":"
		    "\"train-%d-%d\",\"namespace\":\"hyperpod-ns-team%d\","
		    "\"labels\":{\"batch.kubernetes.io/job-name\":\"train-%d\"}"
		    "},\"spec\":{\"nodeName\":\"hyperpod-i-0%07x%08x\","
		    "\"containers\":[{\"name\":\"main\",\"resources\":{"
		    "\"requests\":{\"nvidia.com/gpu\":\"%d\"}}}]},\"status\":"
		    "{\"phase\":\"Running\",\"startTime\":"
		    "\"2025-12-05T00:10:00Z\"}}",
		    n++ ? "," : "", bench_cluster, i,
		    (bench_cluster + i) % TEAMS, bench_cluster, bench_cluster,
		    i, GPUS);
	}
	(void)sw_buf_puts(b, "]}");
}

sw_err
k8s_list(struct k8s_client *k, const char *path, const char *selector,
    json_object **out, struct k8s_error *err)
{
	struct sw_buf b;

	(void)k;
	(void)selector;
	(void)err;
	making(1);
	sw_buf_init(&b, 0);
	if (strncmp(path, "/api/v1/nodes", 13) == 0)
		kube_nodes(&b);
	else
		kube_pods(&b);
	making(0);
	*out = parsed(&b);
	return *out ? SW_OK : SW_EINTERNAL;
}

void
sw_price_hour(struct sw_db *db, struct aws_ctx *aws, const char *itype,
    struct sw_price *p, const char **why)
{
	(void)db;
	(void)aws;
	(void)itype;
	memset(p, 0, sizeof(*p));
	p->known = 1;
	p->usd_micro = PRICE_US;
	*why = NULL;
}

static int64_t
changes(struct sw_db *db)
{
	return sw_db_total_changes(db);
}

/* The reference: n rows into a plain table, in `clusters` transactions. */
static int
reference(struct sw_db *db, int clusters, int64_t n)
{
	struct sw_st *st;
	double w0, c0;
	int64_t i, per = n / clusters;
	int c, rc = 0;

	if (sw_db_prepare(db,
		"INSERT INTO plain (day,"
		" cluster, grp, type, team, job, kind, seconds, usd_us) VALUES"
		" ('2025-12-05', ?1, 'workers', 'ml.p5.48xlarge', 'team1',"
		" 'train', 'gpu', ?2, ?3)",
		&st) != SW_OK)
		return 1;
	w0 = ms(CLOCK_MONOTONIC);
	c0 = ms(CLOCK_PROCESS_CPUTIME_ID);
	for (c = 0; c < clusters && rc == 0; c++) {
		char name[32];

		sw_fmt_text(name, sizeof(name), "bench-%04d", c);
		if (sw_db_begin(db) != SW_OK)
			return 1;
		for (i = 0; i < per + (c < n % clusters) && rc == 0; i++) {
			sw_bind_text(st, 1, name);
			sw_bind_int64(st, 2, 60);
			sw_bind_int64(st, 3, 60 * (int64_t)PRICE_US);
			rc = sw_db_step(st) == SW_DB_DONE ? 0 : 1;
			sw_reset(st);
		}
		if (rc != 0 || sw_db_commit(db) != SW_OK)
			rc = 1;
	}
	printf("ref %.3f %.3f %lld\n", ms(CLOCK_MONOTONIC) - w0,
	    ms(CLOCK_PROCESS_CPUTIME_ID) - c0, (long long)n);
	sw_st_free(st);
	return rc;
}

static struct sw_db *
open_db(const char *dir, const char *name)
{
	struct sw_db *db = NULL;
	char path[4096];

	sw_fmt_text(path, sizeof(path), "%s/%s", dir, name);
	if (sw_db_open(path, &db) != SW_OK) {
		fprintf(stderr, "cannot open %s\n", path);
		return NULL;
	}
	return db;
}

static int
seed(struct sw_db *db, struct sw_db *ref, int clusters)
{
	struct sw_cluster_rec rec;
	char name[32], id[SW_CLUSTER_ID_LEN];
	int c;

	for (c = 0; c < clusters; c++) {
		sw_fmt_text(name, sizeof(name), "bench-%04d", c);
		if (sw_cluster_new_id(id) != SW_OK ||
		    sw_cluster_record(db, name, id, "created", &rec) != SW_OK)
			return 1;
	}
	return sw_db_exec_sql(ref,
		   "CREATE TABLE plain (day TEXT,"
		   " cluster TEXT, grp TEXT, type TEXT, team TEXT, job TEXT,"
		   " kind TEXT, seconds INTEGER, usd_us INTEGER)") == SW_OK
	    ? 0
	    : 1;
}

int
main(int argc, char *argv[])
{
	struct sw_db *db, *ref;
	struct aws_ctx aws;
	int clusters, passes, p, rc = 0;
	double w0, c0;
	int64_t before;

	if (argc != 5) {
		fprintf(stderr,
		    "usage: slipway-bench-ledger DIR CLUSTERS "
		    "NODES PASSES\n");
		return 2;
	}
	sw_log_init("slipway-bench-ledger");
	clusters = (int)strtol(argv[2], NULL, 10);
	nodes_per = (int)strtol(argv[3], NULL, 10);
	passes = (int)strtol(argv[4], NULL, 10);
	if (clusters < 1 || nodes_per < 1 || passes < 1)
		return 2;
	if ((db = open_db(argv[1], "state.db")) == NULL ||
	    (ref = open_db(argv[1], "plain.db")) == NULL)
		return 1;
	memset(&aws, 0, sizeof(aws));
	if (seed(db, ref, clusters) != 0)
		return 1;
	for (p = 0; p <= passes && rc == 0; p++) {
		before = changes(db);
		made_wall = made_cpu = 0;
		w0 = ms(CLOCK_MONOTONIC);
		c0 = ms(CLOCK_PROCESS_CPUTIME_ID);
		(void)sw_ledger_tick(db, &aws, NULL, 0, 0, 0);
		rows = changes(db) - before;
		if (p > 0)
			printf("pass %.3f %.3f %lld\n",
			    ms(CLOCK_MONOTONIC) - w0 - made_wall,
			    ms(CLOCK_PROCESS_CPUTIME_ID) - c0 - made_cpu,
			    (long long)rows);
		aws_now += 60;
		if (p > 0)
			rc = reference(ref, clusters, rows);
		fflush(stdout);
	}
	sw_db_close(ref);
	sw_db_close(db);
	return rc;
}
