/*
 * pending.c: why a job that is not running yet waits, in plain words
 * with a next step: the "pending" member of training_job_get and
 * training_job_list (handlers/jobs.c).
 *
 * A job labelled kueue.x-k8s.io/queue-name is held by Kueue (HyperPod
 * task governance) until its Workload is admitted: the Workload's
 * QuotaReserved, Evicted and Preempted conditions say why it waits, its
 * position is counted among the queue's other waiting Workloads
 * (higher priority first, then older), and the team's ClusterQueue
 * (its usage, nominal quota and borrowing limit, and who in the cohort
 * borrows) says whose quota is in the way.  Once admitted, or without
 * a queue, the pods say it: the scheduler's "0/4 nodes are available:
 * 4 Insufficient nvidia.com/gpu", an image that will not pull, a crash
 * loop.  Every answer keeps Kueue's or Kubernetes' own words beside
 * ours.  An endpoint short of ready replicas says why from its pods
 * (wl_endpoint_pending, for inference_get): with task governance each
 * of its pods is a Workload of Kueue's pod integration, held by a
 * scheduling gate until admitted, and the first one waiting answers as
 * a job would.
 *
 * An elastic HyperPodPyTorchJob also says how many nodes it runs on and
 * why (wl_job_elastic): Kueue admits it partially, shrinks it in steps
 * for a preemptor and grows it back, and its Workload's admission holds
 * the count the training operator follows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/workloads.h"
#include "lib/buf.h"
#include "lib/json.h"

#define QUEUE_LABEL "kueue.x-k8s.io/queue-name"
#define WHY_MAX 512

struct why {
	const char *reason;
	char message[WHY_MAX];
	char next[WHY_MAX];
	const char *source; /* Kueue's or the scheduler's words */
};

static int
is(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/* The condition of type in o's status, or NULL. */
static json_object *
cond(json_object *o, const char *type)
{
	json_object *conds = sw_json_path(o, "status.conditions");
	size_t i;

	for (i = 0; conds && i < json_object_array_length(conds); i++)
		if (is(sw_json_get_str(
			   json_object_array_get_idx(conds, i), "type"),
			type))
			return json_object_array_get_idx(conds, i);
	return NULL;
}

static int
cond_true(json_object *o, const char *type)
{
	return is(sw_json_get_str(cond(o, type), "status"), "True");
}

/* The Workload Kueue made for job (owner uid), or NULL.  Borrowed. */
static json_object *
workload_of(json_object *wls, json_object *job)
{
	const char *uid = sw_json_path_str(job, "metadata.uid");
	size_t i, j;

	for (i = 0; uid && wls && i < json_object_array_length(wls); i++) {
		json_object *w = json_object_array_get_idx(wls, i);
		json_object *refs = sw_json_path(w, "metadata.ownerReferences");

		for (j = 0; refs && j < json_object_array_length(refs); j++)
			if (is(sw_json_get_str(
				   json_object_array_get_idx(refs, j), "uid"),
				uid))
				return w;
	}
	return NULL;
}

static int
waiting(json_object *w)
{
	return !cond_true(w, "Admitted") && !cond_true(w, "Finished") &&
	    sw_json_get_bool(sw_json_get(w, "spec"), "active", 1);
}

/* Does a wait ahead of b in their queue (priority, then age, name)? */
static int
ahead(json_object *a, json_object *b)
{
	long long pa = sw_json_get_int(sw_json_get(a, "spec"), "priority", 0);
	long long pb = sw_json_get_int(sw_json_get(b, "spec"), "priority", 0);
	int c;

	if (pa != pb)
		return pa > pb;
	c = strcmp(sw_json_path_str(a, "metadata.creationTimestamp") ?: "",
	    sw_json_path_str(b, "metadata.creationTimestamp") ?: "");
	if (c != 0)
		return c < 0;
	return strcmp(sw_json_path_str(a, "metadata.name") ?: "",
		   sw_json_path_str(b, "metadata.name") ?: "") < 0;
}

/* 1 + the waiting Workloads of the same queue ahead of w. */
static int
position(json_object *wls, json_object *w)
{
	const char *q = sw_json_path_str(w, "spec.queueName");
	const char *ns = sw_json_path_str(w, "metadata.namespace");
	size_t i;
	int n = 1;

	for (i = 0; i < json_object_array_length(wls); i++) {
		json_object *o = json_object_array_get_idx(wls, i);

		if (o != w && waiting(o) &&
		    is(sw_json_path_str(o, "spec.queueName"), q) &&
		    is(sw_json_path_str(o, "metadata.namespace"), ns) &&
		    ahead(o, w))
			n++;
	}
	return n;
}

double
wl_qty(json_object *v)
{
	const char *s;
	char *end;
	double d;

	if (v == NULL)
		return 0;
	if (!json_object_is_type(v, json_type_string))
		return json_object_get_double(v);
	s = json_object_get_string(v);
	d = strtod(s, &end);
	if (strcmp(end, "m") == 0)
		d /= 1000;
	else if (strcmp(end, "Gi") == 0)
		d *= 1024.0 * 1024 * 1024;
	else if (strcmp(end, "Mi") == 0)
		d *= 1024.0 * 1024;
	return d;
}

/* The resource entry res of flavor in list (spec flavors or status
 * flavorsUsage). */
static json_object *
flavor_res(json_object *flavors, const char *flavor, const char *res)
{
	size_t i, j;

	for (i = 0; flavors && i < json_object_array_length(flavors); i++) {
		json_object *f = json_object_array_get_idx(flavors, i);
		json_object *rs = sw_json_get(f, "resources");

		if (!is(sw_json_get_str(f, "name"), flavor))
			continue;
		for (j = 0; rs && j < json_object_array_length(rs); j++)
			if (is(sw_json_get_str(
				   json_object_array_get_idx(rs, j), "name"),
				res))
				return json_object_array_get_idx(rs, j);
	}
	return NULL;
}

static json_object *
cq_named(json_object *cqs, const char *name)
{
	size_t i;

	for (i = 0; name && cqs && i < json_object_array_length(cqs); i++)
		if (is(sw_json_path_str(
			   json_object_array_get_idx(cqs, i), "metadata.name"),
			name))
			return json_object_array_get_idx(cqs, i);
	return NULL;
}

/* The other ClusterQueues of cq's cohort borrowing res in flavor, as
 * "hyperpod-ns-b-clusterqueue (1)" words into sb. */
static void
borrowers(struct sw_buf *sb, json_object *cqs, json_object *cq,
    const char *flavor, const char *res)
{
	const char *cohort = sw_json_path_str(cq, "spec.cohortName");
	size_t i;

	for (i = 0; cohort && i < json_object_array_length(cqs); i++) {
		json_object *o = json_object_array_get_idx(cqs, i);
		double b = wl_qty(sw_json_get(
		    flavor_res(
			sw_json_path(o, "status.flavorsUsage"), flavor, res),
		    "borrowed"));

		if (o == cq ||
		    !is(sw_json_path_str(o, "spec.cohortName"), cohort) ||
		    b <= 0)
			continue;
		sw_buf_printf(sb, "%s%s (%g)", sw_buf_str(sb)[0] ? ", " : "",
		    sw_json_path_str(o, "metadata.name"), b);
	}
}

/*
 * Kueue's "insufficient unused quota for R in flavor F, N more needed":
 * R and F into res and flavor.  0 when the message is another one.
 */
static int
short_of(const char *msg, char *res, size_t rsz, char *flavor, size_t fsz)
{
	const char *p = msg ? strstr(msg, "insufficient unused quota for ")
			    : NULL,
		   *f, *e;

	if (p == NULL)
		return 0;
	p += strlen("insufficient unused quota for ");
	if ((f = strstr(p, " in flavor ")) == NULL ||
	    (e = strchr(f + 11, ',')) == NULL || (size_t)(f - p) >= rsz ||
	    (size_t)(e - f - 11) >= fsz)
		return 0;
	memcpy(res, p, f - p);
	res[f - p] = '\0';
	memcpy(flavor, f + 11, e - f - 11);
	flavor[e - f - 11] = '\0';
	return 1;
}

/* Quota in use: how much, the borrowing limit, who borrows. */
static void
why_quota(struct why *y, json_object *cqs, const char *cq_name, const char *msg,
    int pos)
{
	json_object *cq = cq_named(cqs, cq_name), *spec, *used;
	char res[128], flavor[128], lim[64] = "";
	double nominal, limit, total;
	int has_limit;
	struct sw_buf who;

	y->reason = "QuotaInUse";
	sw_fmt_text(y->next, sizeof(y->next),
	    "It starts when work ahead of "
	    "it in the queue finishes. To start sooner: ask for less, give "
	    "it a higher priority class, or raise the team's quota "
	    "(compute_quota_update).");
	if (cq == NULL ||
	    !short_of(msg, res, sizeof(res), flavor, sizeof(flavor))) {
		sw_fmt_text(y->message, sizeof(y->message),
		    "The team's "
		    "queue has no room for it now (position %d).",
		    pos);
		return;
	}
	spec = flavor_res(
	    sw_json_path(sw_json_path(cq, "spec.resourceGroups[0]"), "flavors"),
	    flavor, res);
	used = flavor_res(sw_json_path(cq, "status.flavorsUsage"), flavor, res);
	nominal = wl_qty(sw_json_get(spec, "nominalQuota"));
	has_limit = sw_json_get(spec, "borrowingLimit") != NULL;
	limit = wl_qty(sw_json_get(spec, "borrowingLimit"));
	total = wl_qty(sw_json_get(used, "total"));
	sw_buf_init(&who, 512);
	borrowers(&who, cqs, cq, flavor, res);
	if (has_limit && total >= nominal + limit && limit > 0)
		y->reason = "BorrowingLimitReached";
	else if (pos > 1)
		y->reason = "WaitingForHigherPriority";
	if (has_limit)
		sw_fmt_text(lim, sizeof(lim), ", may borrow up to %g", limit);
	sw_fmt_text(y->message, sizeof(y->message),
	    "Queue %s has %g %s of "
	    "its own on %s and uses %g (%g borrowed%s); %s%s%s.",
	    cq_name, nominal, res, flavor, total,
	    total > nominal ? total - nominal : 0, lim,
	    pos > 1 ? "other jobs wait ahead of it"
		    : "nothing is free to "
		      "borrow",
	    sw_buf_str(&who)[0] ? "; borrowing from the cohort: " : "",
	    sw_buf_str(&who));
	sw_buf_free(&who);
}

/* Why a Workload not admitted waits.  Kueue's words in y->source. */
static void
why_queued(struct why *y, json_object *w, json_object *cqs, const char *cq_name,
    int pos)
{
	json_object *qr = cond(w, "QuotaReserved"), *pre = cond(w, "Preempted");
	const char *kr = sw_json_get_str(qr, "reason");
	const char *km = sw_json_get_str(qr, "message");

	y->source = km;
	if (is(kr, "ExceedsMaxQuota")) {
		y->reason = "NeverFits";
		sw_fmt_text(y->message, sizeof(y->message),
		    "It asks for more "
		    "than its team's quota plus all the team may borrow: it "
		    "can never start as it is.");
		sw_fmt_text(y->next, sizeof(y->next),
		    "Ask for fewer GPUs or "
		    "nodes, or raise the team's quota (compute_quota_update).");
	} else if (is(kr, "Misconfigured")) {
		y->reason = "NoSuchQueue";
		sw_fmt_text(y->message, sizeof(y->message),
		    "Its queue does "
		    "not exist, so Kueue will never admit it.");
		sw_fmt_text(y->next, sizeof(y->next),
		    "Delete it and submit "
		    "again with queue hyperpod-ns-<team>-localqueue of a team "
		    "that has a compute quota (compute_quota_list).");
	} else if (km && strstr(km, "Pending the preemption of")) {
		y->reason = "PreemptingOthers";
		sw_fmt_text(y->message, sizeof(y->message),
		    "Kueue is stopping "
		    "lower-priority or borrowing work to make room for it.");
		sw_fmt_text(y->next, sizeof(y->next),
		    "Nothing to do: it "
		    "starts once they have stopped.");
	} else if (is(sw_json_get_str(pre, "status"), "True")) {
		y->reason = "Preempted";
		y->source = sw_json_get_str(pre, "message");
		sw_fmt_text(y->message, sizeof(y->message), "%s",
		    is(sw_json_get_str(pre, "reason"), "InCohortReclamation")
			? "It was stopped because the team it borrowed from took "
			  "its quota back."
			: "It was stopped to make room for a "
			  "higher-priority job of its team.");
		sw_fmt_text(y->next, sizeof(y->next),
		    "It starts again by "
		    "itself when quota frees up; a higher priority class or "
		    "more quota keeps it running.");
	} else
		why_quota(y, cqs, cq_name, km, pos);
}

/* Plain words for the scheduler's "0/N nodes are available: ...". */
static void
why_unschedulable(struct why *y, const char *pod, const char *msg)
{
	y->reason = "NoNodeFits";
	y->source = msg;
	sw_fmt_text(y->message, sizeof(y->message),
	    "No node can take pod %s "
	    "now.",
	    pod);
	if (strstr(msg, "Insufficient nvidia.com/gpu") ||
	    strstr(msg, "Insufficient vpc.amazonaws.com/efa") ||
	    strstr(msg, "Insufficient cpu") ||
	    strstr(msg, "Insufficient memory"))
		sw_fmt_text(y->next, sizeof(y->next),
		    "Ask for fewer GPUs, EFA "
		    "interfaces or less memory per node, pick an instance_type "
		    "that has them, or add nodes (instance_group_scale).");
	else if (strstr(msg, "untolerated taint"))
		sw_fmt_text(y->next, sizeof(y->next),
		    "The nodes carry a taint "
		    "the pods do not tolerate (HyperPod taints nodes that fail "
		    "health checks); see node_list.");
	else if (strstr(msg, "node affinity/selector"))
		sw_fmt_text(y->next, sizeof(y->next),
		    "No node has the labels "
		    "asked for (instance_type, or a passed health check); "
		    "see node_list.");
	else
		sw_fmt_text(y->next, sizeof(y->next),
		    "See the pod's events "
		    "(training_job_get) and node_list.");
}

/* Why the pods are not running: unschedulable, image, crash loop. */
static void
why_pods(struct why *y, json_object *pods)
{
	size_t i;

	for (i = 0; pods && i < json_object_array_length(pods); i++) {
		json_object *p = json_object_array_get_idx(pods, i);
		json_object *sc = cond(p, "PodScheduled");
		const char *wr = sw_json_path_str(
		    p, "status.containerStatuses[0].state.waiting.reason");
		const char *name = sw_json_path_str(p, "metadata.name");

		if (is(sw_json_get_str(sc, "reason"), "SchedulingGated"))
			continue; /* Kueue holds it: see its Workload */
		if (is(sw_json_get_str(sc, "status"), "False") &&
		    sw_json_get_str(sc, "message")) {
			why_unschedulable(
			    y, name, sw_json_get_str(sc, "message"));
			return;
		}
		if (is(wr, "ErrImagePull") || is(wr, "ImagePullBackOff") ||
		    is(wr, "InvalidImageName")) {
			y->reason = "ImagePull";
			y->source = sw_json_path_str(p,
			    "status.containerStatuses"
			    "[0].state.waiting.message");
			sw_fmt_text(y->message, sizeof(y->message),
			    "The image "
			    "of pod %s cannot be pulled.",
			    name);
			sw_fmt_text(y->next, sizeof(y->next),
			    "Check the image "
			    "name and tag, and that the nodes may pull it.");
			return;
		}
		if (is(wr, "CrashLoopBackOff")) {
			y->reason = "CrashLoop";
			sw_fmt_text(y->message, sizeof(y->message),
			    "Pod %s "
			    "starts and exits again and again.",
			    name);
			sw_fmt_text(y->next, sizeof(y->next),
			    "Read its log "
			    "before the restart (training_job_logs).");
			return;
		}
	}
	y->reason = "Starting";
	sw_fmt_text(y->message, sizeof(y->message), "%s",
	    pods && json_object_array_length(pods) > 0
		? "Its pods are "
		  "being placed and started."
		: "Its pods are not made yet.");
	sw_fmt_text(y->next, sizeof(y->next),
	    "Wait, then read "
	    "training_job_get again.");
}

json_object *
wl_pods_pending(json_object *pods)
{
	struct why y;

	memset(&y, 0, sizeof(y));
	why_pods(&y, pods);
	return sw_jo("reason", sw_js(y.reason), "message", sw_js(y.message),
	    "next_step", sw_js(y.next), "detail",
	    y.source ? sw_js(y.source) : NULL, NULL);
}

json_object *
wl_job_pending(json_object *job, const char *state, json_object *pods,
    json_object *wls, json_object *lqs, json_object *cqs)
{
	const char *queue =
	    sw_json_get_str(sw_json_path(job, "metadata.labels"), QUEUE_LABEL);
	json_object *w = NULL, *adm;
	const char *cq_name = NULL;
	struct why y;
	size_t i;
	int pos = 0, admitted = 0;

	if (!is(state, "Pending"))
		return NULL;
	memset(&y, 0, sizeof(y));
	if (queue != NULL && (w = workload_of(wls, job)) != NULL) {
		admitted = cond_true(w, "Admitted");
		adm = sw_json_path(w, "status.admission");
		cq_name = sw_json_get_str(adm, "clusterQueue");
		for (i = 0;
		     !cq_name && lqs && i < json_object_array_length(lqs); i++)
			if (is(sw_json_path_str(
				   json_object_array_get_idx(lqs, i),
				   "metadata.name"),
				queue))
				cq_name = sw_json_path_str(
				    json_object_array_get_idx(lqs, i),
				    "spec.clusterQueue");
		if (!admitted) {
			pos = position(wls, w);
			why_queued(&y, w, cqs, cq_name, pos);
		}
	} else if (queue != NULL) {
		y.reason = "NotQueuedYet";
		sw_fmt_text(y.message, sizeof(y.message),
		    "It names queue %s "
		    "but Kueue has not taken it in yet.",
		    queue);
		sw_fmt_text(y.next, sizeof(y.next),
		    "Wait a few seconds; if "
		    "it stays, check that task_governance is on "
		    "(feature_list).");
	}
	if (y.reason == NULL)
		why_pods(&y, pods);
	return sw_jo("queue", queue ? sw_js(queue) : NULL, "cluster_queue",
	    cq_name ? sw_js(cq_name) : NULL, "position",
	    pos > 0 ? sw_ji(pos) : NULL, "admitted",
	    queue ? sw_jb(admitted) : NULL, "reason", sw_js(y.reason),
	    "message", sw_js(y.message), "next_step", sw_js(y.next), "detail",
	    y.source ? sw_js(y.source) : NULL, NULL);
}

/* The newest ScaledDown or ScaledUp event of Workload w in events (the
 * namespace's, may be NULL): its message, or NULL.  Newest is the
 * highest resourceVersion (timestamps tie within a second). */
static const char *
resize_event(json_object *events, json_object *w)
{
	const char *name = sw_json_path_str(w, "metadata.name"), *msg = NULL;
	const char *why, *rv;
	long long best = -1, v;
	size_t i;

	for (i = 0; events && i < json_object_array_length(events); i++) {
		json_object *e = json_object_array_get_idx(events, i);

		why = sw_json_get_str(e, "reason");
		rv = sw_json_path_str(e, "metadata.resourceVersion");
		v = rv ? strtoll(rv, NULL, 10) : 0;
		if (!is(sw_json_path_str(e, "involvedObject.kind"),
			"Workload") ||
		    !is(sw_json_path_str(e, "involvedObject.name"), name) ||
		    !(is(why, "ScaledDown") || is(why, "ScaledUp")) || v < best)
			continue;
		best = v;
		msg = sw_json_get_str(e, "message");
	}
	return msg;
}

/* Pods of the job in phase Running. */
static int
running_pods(json_object *pods)
{
	size_t i;
	int n = 0;

	for (i = 0; pods && i < json_object_array_length(pods); i++)
		n += is(sw_json_path_str(
			    json_object_array_get_idx(pods, i), "status.phase"),
		    "Running");
	return n;
}

/* Why an admitted elastic job runs below its most, into y. */
static void
why_shrunk(struct why *y, json_object *w, json_object *cqs, int now, int hi)
{
	const char *cq_name =
	    sw_json_path_str(w, "status.admission.clusterQueue");
	const char *flavor = sw_json_get_str(
	    sw_json_path(w, "status.admission.podSetAssignments[0].flavors"),
	    "nvidia.com/gpu");
	struct sw_buf who;

	sw_buf_init(&who, 512);
	if (flavor != NULL)
		borrowers(&who, cqs, cq_named(cqs, cq_name), flavor,
		    "nvidia.com/gpu");
	y->reason = "Shrunk";
	sw_fmt_text(y->message, sizeof(y->message),
	    "It runs on %d of at most "
	    "%d nodes: the quota for the rest is held by other work in queue "
	    "%s or its cohort%s%s.",
	    now, hi, cq_name ? cq_name : "?",
	    sw_buf_str(&who)[0] ? "; borrowing from the cohort: " : "",
	    sw_buf_str(&who));
	sw_fmt_text(y->next, sizeof(y->next),
	    "Nothing to do: it grows back "
	    "by itself, a step at a time, when quota frees up and nothing in "
	    "its cohort waits. A higher priority class keeps its nodes.");
	sw_buf_free(&who);
}

json_object *
wl_job_elastic(json_object *job, json_object *pods, json_object *wls,
    json_object *cqs, json_object *events)
{
	json_object *ep = sw_json_path(job, "spec.elasticPolicy");
	json_object *w, *targets;
	int lo, hi, want = -1, run, admitted;
	struct why y;

	if (ep == NULL)
		return NULL;
	memset(&y, 0, sizeof(y));
	lo = (int)sw_json_get_int(ep, "minReplicas", 1);
	hi = (int)sw_json_get_int(ep, "maxReplicas", lo);
	w = workload_of(wls, job);
	if (w != NULL && cond_true(w, "Finished"))
		return NULL;
	admitted = w != NULL && cond_true(w, "Admitted");
	if (admitted)
		want = (int)sw_json_get_int(sw_json_path(w,
						"status.admission."
						"podSetAssignments[0]"),
		    "count", 1);
	else if (w == NULL &&
	    (targets = sw_json_path(
		 job, "status.elasticScalingStatus.targetReplicas")) != NULL) {
		json_object_object_foreach(targets, k, v)
		{
			(void)k;
			want = json_object_get_int(v);
		}
	}
	if (want < 0 && w == NULL)
		want = (int)sw_json_get_int(
		    sw_json_path(job, "spec.replicaSpecs[0]"), "replicas", lo);
	run = running_pods(pods);
	if (w != NULL && !admitted) {
		y.reason = "NotAdmitted";
		sw_fmt_text(y.message, sizeof(y.message),
		    "Kueue has not "
		    "admitted it: it runs on no nodes (see pending).");
		sw_fmt_text(y.next, sizeof(y.next),
		    "See pending for why it "
		    "waits.");
	} else if (run != want) {
		y.reason = "Scaling";
		sw_fmt_text(y.message, sizeof(y.message),
		    "It is scaling from "
		    "%d to %d running nodes.",
		    run, want);
		sw_fmt_text(y.next, sizeof(y.next),
		    "Wait: the training "
		    "operator restarts it at the new size.");
	} else if (want < hi && w != NULL)
		why_shrunk(&y, w, cqs, want, hi);
	else {
		y.reason = "AtMax";
		sw_fmt_text(y.message, sizeof(y.message),
		    "It runs on %d nodes, "
		    "%s.",
		    want, want >= hi ? "its most" : "as asked");
		sw_fmt_text(y.next, sizeof(y.next), "Nothing to do.");
	}
	y.source = w != NULL ? resize_event(events, w) : NULL;
	return sw_jo("min_nodes", sw_ji(lo), "max_nodes", sw_ji(hi),
	    "increment_step",
	    sw_ji(sw_json_get_int(ep, "replicaIncrementStep", 1)), "nodes",
	    sw_ji(want > 0 ? want : 0), "running", sw_ji(run), "admitted",
	    w != NULL ? sw_jb(admitted) : NULL, "reason", sw_js(y.reason),
	    "message", sw_js(y.message), "next_step", sw_js(y.next), "detail",
	    y.source ? sw_js(y.source) : NULL, NULL);
}

json_object *
wl_endpoint_pending(
    json_object *pods, json_object *wls, json_object *lqs, json_object *cqs)
{
	json_object *p, *w;
	size_t i;

	for (i = 0; pods && i < json_object_array_length(pods); i++) {
		p = json_object_array_get_idx(pods, i);
		if (sw_json_get_str(sw_json_path(p, "metadata.labels"),
			QUEUE_LABEL) == NULL)
			continue;
		w = workload_of(wls, p);
		if (w == NULL || !cond_true(w, "Admitted"))
			return wl_job_pending(
			    p, "Pending", pods, wls, lqs, cqs);
	}
	return wl_pods_pending(pods);
}
