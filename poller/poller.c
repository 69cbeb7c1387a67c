/*
 * poller.c: slipway-poller, the only process that runs operations.
 *
 *   options and configuration -> state store -> AWS context -> loop:
 *   send the notifications due (poller/notify.c), sample the ledger,
 *   watch the clusters and record the fleet document's drift
 *   (poller/watch.c, poller/drift.c),
 *   check budgets and training plans' ends (poller/plans.c), claim a due
 *   operation (under a lease), advance it until a stage waits or it
 *   ends (pipelines/pipeline.c), release it with its next due time.  Idle, it looks for due work 20 times a second, so
 *   its cost grows with active operations only.  Killed at any moment,
 *   it loses nothing: leases expire and stages resume from what they
 *   recorded.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cloud/aws.h"
#include "cloud/kube.h"
#include "lib/buf.h"
#include "lib/conf.h"
#include "lib/daemon.h"
#include "lib/db.h"
#include "lib/json.h"
#include "lib/limits.h"
#include "lib/log.h"
#include "lib/notify.h"
#include "lib/ops.h"
#include "pipelines/pipeline.h"
#include "poller/budgets.h"
#include "poller/drift.h"
#include "poller/ledger.h"
#include "poller/notify.h"
#include "poller/watch.h"
#include "poller/plans.h"
#include "poller/poller.h"

/* The longest one pass of the watch runs before the poller turns to its
 * operations and the take-over of a dead poller's, coming back to the
 * clusters left as soon. */
#define WATCH_BUDGET_MS 1000

static volatile sig_atomic_t stop;

static void
on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/*
 * Leases are "poller-<pid>@<host>": on this host, a pid that no longer
 * runs is dead.  Another host's owner (another replica's) cannot be
 * asked; its leases run out instead (SW_OP_LEASE).
 */
static int
owner_alive(const char *owner, void *arg)
{
	const char *host = arg;
	long pid;
	char *end;

	if (strncmp(owner, "poller-", 7) != 0)
		return 1;
	pid = strtol(owner + 7, &end, 10);
	if (pid <= 0)
		return 1;
	if (*end == '@' && strcmp(end + 1, host) != 0)
		return 1;
	if (*end != '\0' && *end != '@')
		return 1;
	return pid == (long)getpid() || kill((pid_t)pid, 0) == 0;
}

/* The store of cloud/kube.c: a cluster's API server kept with its
 * record, for every poller of every replica. */
static sw_err
access_get(
    void *db, const char *cluster, char **endpoint, char **pem, size_t *pemlen)
{
	return sw_cluster_access_get(db, cluster, endpoint, pem, pemlen);
}

static sw_err
access_put(void *db, const char *cluster, const char *endpoint, const char *pem)
{
	return sw_cluster_access_set(db, cluster, endpoint, pem);
}

static struct sw_kube_store kube_store = { access_get, access_put, NULL };

/* Take over the operations and notifications of stopped pollers. */
static void
take_over(struct sw_db *db, char *host)
{
	char mine[48];
	int n;

	/* Only this host's pollers can be asked whether they run. */
	if (sw_fmt(mine, sizeof(mine), "@%s", host) != SW_OK)
		return;
	if ((n = sw_op_release_dead(db, mine, owner_alive, host)) > 0)
		sw_info("took over the operations of %d stopped poller(s)", n);
	if ((n = sw_delivery_release_dead(db, mine, owner_alive, host)) > 0)
		sw_info(
		    "took over the notifications of %d stopped poller(s)", n);
}

int
sw_poller_main(int argc, char *argv[])
{
	/*
	 * Idle, look for due work every 50 ms: a stage that waits 100 ms
	 * (the shortest sw_poll_ms gives) resumed up to 200 ms late with a
	 * 200 ms nap; a claim that finds nothing is one indexed read.
	 */
	struct timespec idle = { 0, 50 * 1000 * 1000 };
	char owner[64], host[40];
	struct sw_lease lease;
	struct sw_config cfg;
	struct sw_db *db = NULL;
	struct aws_ctx aws;
	struct sw_notifier notifier;
	const char *v;
	int64_t ledger_ms = 60000, ledger_due = 0;
	int64_t watch_ms = 15000, watch_due = 0, dead_due = 0;
	int calls, mine, more, rc = 1, watch_rate = SW_WATCH_RATE;
	sw_err e;

	(void)argc;
	(void)argv;
	memset(&aws, 0, sizeof(aws));
	memset(&notifier, 0, sizeof(notifier));
	if (sw_daemon_start("slipway-poller", &cfg, &db) != 0)
		return 1;
	if (sw_aws_setup(&aws, &cfg) != SW_OK) {
		sw_error("cannot set up the AWS client");
		goto out;
	}
	sw_daemon_signals(on_term);
	/* a cluster's API server where any poller saw it last */
	kube_store.arg = db;
	sw_kube_set_store(&kube_store);
	if (gethostname(host, sizeof(host)) != 0)
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	if (sw_fmt(owner, sizeof(owner), "poller-%ld@%s", (long)getpid(),
		host) != SW_OK) {
		sw_error("cannot name the poller");
		goto out;
	}
	if (sw_notifier_init(&notifier, owner) != SW_OK) {
		sw_error("cannot set up the notification sender");
		goto out;
	}
	/* the usage ledger's sample interval (slipway.conf ledger_interval) */
	if ((v = getenv("SLIPWAY_LEDGER_INTERVAL")) != NULL &&
	    strtol(v, NULL, 10) > 0)
		ledger_ms = strtol(v, NULL, 10) * 1000;
	/* how often jobs, endpoints, nodes and cluster events are read
	 * (slipway.conf watch_interval) */
	if ((v = getenv("SLIPWAY_WATCH_INTERVAL")) != NULL &&
	    strtol(v, NULL, 10) > 0)
		watch_ms = strtol(v, NULL, 10) * 1000;
	/* clusters of one account read a second (slipway.conf watch_rate) */
	if ((v = getenv("SLIPWAY_WATCH_RATE")) != NULL &&
	    strtol(v, NULL, 10) > 0 && strtol(v, NULL, 10) <= 1000)
		watch_rate = (int)strtol(v, NULL, 10);
	sw_info("running (%s)",
	    sw_json_get(cfg.root, "sandbox_info") ? "sandbox" : "aws");
	while (!stop) {
		/* Each pass starts on a fresh snapshot: nothing of the last
		 * one is left mid-step. */
		(void)sw_db_idle(db);
		/* The usage ledger's samples (a turn per cluster, paced per
		 * account like the watch), then budgets and training plans
		 * (one turn): one poller of all replicas takes each turn,
		 * asked four times an interval so a turn is not missed by
		 * long. */
		if (sw_now_ms() >= ledger_due) {
			more = sw_ledger_tick(db, &aws, &cfg, ledger_ms,
			    WATCH_BUDGET_MS, watch_rate);
			if (sw_turn_take(db, "ledger", ledger_ms, &mine) ==
				SW_OK &&
			    mine) {
				sw_budget_tick(db);
				sw_plan_tick(db, &aws);
			}
			ledger_due = sw_now_ms() +
			    (more ? WATCH_BUDGET_MS : ledger_ms / 4);
		}
		if (sw_now_ms() >= watch_due) {
			more = sw_watch_tick(db, &aws, &cfg, watch_ms,
			    WATCH_BUDGET_MS, watch_rate);
			sw_drift_tick(db, &aws, &cfg, watch_ms);
			watch_due =
			    sw_now_ms() + (more ? WATCH_BUDGET_MS : watch_ms);
		}
		/* Another poller of this host (a replica's) may have died
		 * since: its work is taken over within a second. */
		if (sw_now_ms() >= dead_due) {
			take_over(db, host);
			dead_due = sw_now_ms() + 1000;
		}
		(void)sw_notify_tick(&notifier, db, &aws);
		(void)sw_db_idle(db);
		memset(&lease, 0, sizeof(lease));
		memcpy(lease.owner, owner, sizeof(lease.owner));
		lease.ms = (int64_t)SW_OP_LEASE * 1000;
		e = sw_op_claim_lease(db, &lease);
		if (e == SW_ENOTFOUND) {
			nanosleep(&idle, NULL);
			continue;
		}
		if (e != SW_OK) {
			sw_warn("claim failed; retrying");
			nanosleep(&idle, NULL);
			continue;
		}
		sw_log_context(NULL, lease.id);
		e = sw_pipeline_advance(db, &aws, &cfg, &lease, 2000, &calls);
		if (lease.lost)
			sw_warn("operation %s: its lease (token %lld) moved to "
				"another poller; %d write(s) rejected, nothing "
				"more sent",
			    lease.id, (long long)lease.token, lease.rejected);
		else if (e != SW_OK)
			sw_warn("operation %s: advance failed", lease.id);
		sw_log_context(NULL, NULL);
	}
	sw_info("stopping");
	rc = 0;
out:
	sw_notifier_free(&notifier);
	aws_ctx_free(&aws);
	sw_db_close(db);
	sw_config_free(&cfg);
	return rc;
}
