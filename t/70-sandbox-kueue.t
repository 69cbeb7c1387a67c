#!/usr/bin/python3
"""70-sandbox-kueue.t: HyperPod task governance as Kueue in the sandbox.
Kueue's kinds are not served before the task governance add-on, and are
after it (both versions, v1beta2 stored); the scheduler config becomes
WorkloadPriorityClasses and each compute quota its team's namespace,
ClusterQueue (in the cluster's cohort, with borrowing limits and preemption
from the quota) and LocalQueue.  Then two teams in one cohort: a queued job
gets a Workload and stays suspended until admitted; a team borrows the
other's idle GPU; the lender's job reclaims it, evicting the borrower
(InCohortReclamation); a higher-priority job preempts a lower one of its own
team (InClusterQueue); a job bigger than the cohort can ever lend is
ExceedsMaxQuota at once; a queue that does not exist says so; a RayJob
waits suspended with a pod set per Ray group and no RayCluster.  Conditions,
reasons, messages and events are Kueue's, and every Kueue object read back
is valid against the upstream schema including its CEL rules."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T  # noqa: E402
from sandbox_fixture import Sandbox, wait_for  # noqa: E402

SRC = os.environ.get("SW_SRCDIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(SRC, "sandbox"))
from slipsand.k8s import crdbundle, schema  # noqa: E402

t = T()
if not crdbundle.available():
    t.skip_all("no ../shared/testdata/crds beside the project")
sb = Sandbox(speed=600)
net = sb.network()
eks = sb.eks_cluster("kq", net)
hp = sb.hyperpod("kq-hp", eks["arn"], net, [("gpu", "ml.g5.xlarge", 2)])
t.eq(hp["ClusterStatus"], "InService", "HyperPod cluster InService")
k = sb.kube("kq", sb.kube_token("kq")["token"])
KQ = "/apis/kueue.x-k8s.io/v1beta2"
GPU = "nvidia.com/gpu"

t.eq(k.req("GET", KQ + "/clusterqueues").status, 404, "ClusterQueue is not served before the add-on")
sb.ok_rest("eks", "POST", "/clusters/kq/addons", {"addonName": "amazon-sagemaker-hyperpod-taskgovernance"})
t.ok(wait_for(lambda: sb.ok_rest("eks", "GET", "/clusters/kq/addons/amazon-sagemaker-hyperpod-taskgovernance")
              ["addon"]["status"] == "ACTIVE", timeout=60), "task governance add-on ACTIVE")
t.ok(wait_for(lambda: k.req("GET", KQ + "/clusterqueues").status == 200, timeout=60), "ClusterQueue served")
crd = k.req("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/workloads.kueue.x-k8s.io").json()
t.eq([(v["name"], v["storage"]) for v in crd["spec"]["versions"]], [("v1beta2", True), ("v1beta1", False)],
     "Workload CRD serves v1beta2 (stored) and v1beta1")
t.eq(crd["spec"]["names"].get("shortNames"), ["kwl", "kueueworkload"], "upstream short names")


def sm(op, params):
    return sb.ok_json("sagemaker", op, params)


def created(op, key, rid):
    return wait_for(lambda: sm(op, {key: rid})["Status"] == "Created", timeout=60)


s = sm("CreateClusterSchedulerConfig", {"Name": "policy", "ClusterArn": hp["ClusterArn"], "SchedulerConfig": {
    "PriorityClasses": [{"Name": "inference", "Weight": 100}, {"Name": "training", "Weight": 50}],
    "FairShare": "Enabled"}})
t.ok(created("DescribeClusterSchedulerConfig", "ClusterSchedulerConfigId", s["ClusterSchedulerConfigId"]),
     "scheduler config Created")
t.ok(wait_for(lambda: k.req("GET", KQ + "/workloadpriorityclasses/inference-priority").status == 200, timeout=60),
     "WorkloadPriorityClass inference-priority exists")
t.eq(k.req("GET", KQ + "/workloadpriorityclasses/training-priority").json().get("value"), 50,
     "training-priority has the class's weight as its value")


def quota(team, preempt):
    q = sm("CreateComputeQuota", {
        "Name": team + "-quota", "ClusterArn": hp["ClusterArn"],
        "ComputeQuotaConfig": {"ComputeQuotaResources": [{"InstanceType": "ml.g5.xlarge", "Count": 1}],
                               "ResourceSharingConfig": {"Strategy": "LendAndBorrow", "BorrowLimit": 100},
                               "PreemptTeamTasks": preempt},
        "ComputeQuotaTarget": {"TeamName": team}})
    return created("DescribeComputeQuota", "ComputeQuotaId", q["ComputeQuotaId"])


t.ok(quota("team-a", "LowerPriority") and quota("team-b", "Never"), "two compute quotas Created")
CQA = KQ + "/clusterqueues/hyperpod-ns-team-a-clusterqueue"
t.ok(wait_for(lambda: k.req("GET", CQA).status == 200 and k.req(
    "GET", KQ + "/clusterqueues/hyperpod-ns-team-b-clusterqueue").status == 200, timeout=60),
    "each team has its ClusterQueue")
cq = k.req("GET", CQA).json()
flavor = cq["spec"]["resourceGroups"][0]["flavors"][0]
gpu = next(r for r in flavor["resources"] if r["name"] == GPU)
t.eq((cq["spec"].get("cohortName") is not None, flavor["name"], gpu["nominalQuota"], gpu.get("borrowingLimit")),
     (True, "ml.g5.xlarge", 1, 1), "ClusterQueue: in a cohort, flavor per instance type, 1 GPU nominal, borrow 1")
t.eq((cq["spec"]["preemption"]["withinClusterQueue"], cq["spec"]["preemption"]["reclaimWithinCohort"],
      cq["spec"]["queueingStrategy"]), ("LowerPriority", "Any", "BestEffortFIFO"),
     "PreemptTeamTasks LowerPriority is withinClusterQueue LowerPriority; lent quota is reclaimed")
lq = k.req("GET", KQ + "/namespaces/hyperpod-ns-team-a/localqueues/hyperpod-ns-team-a-localqueue")
t.eq((lq.status, lq.json().get("spec", {}).get("clusterQueue")), (200, "hyperpod-ns-team-a-clusterqueue"),
     "LocalQueue hyperpod-ns-team-a-localqueue in hyperpod-ns-team-a points at the team's ClusterQueue")
rf = k.req("GET", KQ + "/resourceflavors/ml.g5.xlarge").json()
t.eq(rf.get("spec", {}).get("nodeLabels"), {"node.kubernetes.io/instance-type": "ml.g5.xlarge"},
     "ResourceFlavor selects the instance type's nodes")


def job(team, name, prio, gpus=1, queue=None):
    ns = "hyperpod-ns-" + team
    body = {"apiVersion": "batch/v1", "kind": "Job",
            "metadata": {"name": name, "namespace": ns, "labels": {
                "kueue.x-k8s.io/queue-name": queue or ns + "-localqueue",
                "kueue.x-k8s.io/priority-class": prio + "-priority"}},
            "spec": {"backoffLimit": 0, "template": {"spec": {
                "restartPolicy": "Never",
                "containers": [{"name": "train", "image": "docker.io/library/busybox:1.36",
                                "command": ["sleep", "3600"], "env": [{"name": "MAX_STEPS", "value": "100000"}],
                                "resources": {"limits": {GPU: str(gpus)}}}]}}}}
    r = k.req("POST", "/apis/batch/v1/namespaces/%s/jobs" % ns, body)
    assert r.status == 201, r.text
    return ns, name


def workload(ns, name):
    for w in k.req("GET", KQ + "/namespaces/%s/workloads" % ns).json().get("items") or []:
        if any(o.get("name") == name and o.get("kind") == "Job" for o in w["metadata"].get("ownerReferences") or []):
            return w
    return None


def cond(w, ctype):
    return next((c for c in (w or {}).get("status", {}).get("conditions") or [] if c["type"] == ctype), {})


def admitted(ns, name):
    return cond(workload(ns, name), "Admitted").get("status") == "True"


def suspended(ns, name):
    return k.req("GET", "/apis/batch/v1/namespaces/%s/jobs/%s" % (ns, name)).json()["spec"].get("suspend")


def events(ns, name):
    return [(e["reason"], e["message"]) for e in k.req("GET", "/api/v1/namespaces/%s/events" % ns).json()["items"]
            if e["involvedObject"].get("name") == name]


# team-a's first job: a Workload, admitted within its own quota, and the job runs.
a1 = job("team-a", "a1", "training")
t.ok(wait_for(lambda: admitted(*a1), timeout=60), "a1: Workload admitted")
w = workload(*a1)
t.ok(w["metadata"]["name"].startswith("job-a1-") and len(w["metadata"]["name"]) == len("job-a1-") + 5,
     "Workload named job-<name>-<hash> (%s)" % w["metadata"]["name"])
t.eq((w["spec"]["queueName"], w["spec"].get("priority"), w["spec"].get("priorityClassRef", {}).get("name")),
     ("hyperpod-ns-team-a-localqueue", 50, "training-priority"), "Workload: queue, priority from the class")
t.eq((cond(w, "QuotaReserved").get("reason"), cond(w, "QuotaReserved").get("message")),
     ("QuotaReserved", "Quota reserved in ClusterQueue hyperpod-ns-team-a-clusterqueue"),
     "QuotaReserved worded as Kueue words it")
t.eq(w["status"]["admission"]["podSetAssignments"][0]["flavors"].get(GPU), "ml.g5.xlarge", "GPU from the flavor")
t.ok(wait_for(lambda: not suspended(*a1), timeout=60), "a1 unsuspended once admitted")
ev = events(*a1)
t.ok(any(r == "CreatedWorkload" and m.startswith("Created Workload: hyperpod-ns-team-a/job-a1-") for r, m in ev),
     "job event CreatedWorkload")
t.ok(any(r == "Started" and m == "Admitted by clusterQueue hyperpod-ns-team-a-clusterqueue" for r, m in ev),
     "job event Started")
wev = events("hyperpod-ns-team-a", w["metadata"]["name"])
t.ok(any(r == "QuotaReserved" and "Quota reserved in ClusterQueue hyperpod-ns-team-a-clusterqueue, wait time "
         "since queued was" in m for r, m in wev) and any(r == "Admitted" for r, _ in wev), "Workload events")

# a2 borrows team-b's idle GPU.
a2 = job("team-a", "a2", "training")
t.ok(wait_for(lambda: admitted(*a2), timeout=60), "a2 admitted by borrowing from the cohort")
t.ok(wait_for(lambda: next((r.get("borrowed") for f in k.req("GET", CQA).json().get("status", {}).get(
    "flavorsUsage") or [] for r in f["resources"] if r["name"] == GPU), None) == 1, timeout=60),
    "team-a's ClusterQueue shows 1 GPU borrowed")

# a3 has nothing left to borrow: pending, suspended, Kueue's message.
a3 = job("team-a", "a3", "training")
t.ok(wait_for(lambda: cond(workload(*a3), "QuotaReserved").get("reason") == "Pending", timeout=60), "a3 pending")
msg = cond(workload(*a3), "QuotaReserved").get("message")
t.eq(msg, "couldn't assign flavors to pod set main: insufficient unused quota for nvidia.com/gpu in flavor "
     "ml.g5.xlarge, 1 more needed", "pending message as Kueue words it")
t.ok(suspended(*a3), "a3 stays suspended")
t.ok(not k.req("GET", "/api/v1/namespaces/hyperpod-ns-team-a/pods?labelSelector=job-name%3Da3").json()["items"],
     "a3 has no pods")

# team-b wants its GPU back: the newest borrower is evicted.
b1 = job("team-b", "b1", "training")
t.ok(wait_for(lambda: cond(workload(*a2), "Preempted").get("status") == "True", timeout=60),
     "a2 preempted to give team-b its quota back")
w2 = workload(*a2)
t.eq((cond(w2, "Evicted").get("reason"), cond(w2, "Preempted").get("reason")), ("Preempted", "InCohortReclamation"),
     "Evicted/Preempted reasons")
t.ok("due to reclamation within the cohort" in cond(w2, "Preempted").get("message", "") and
     "preemptee path: /" in cond(w2, "Preempted").get("message", ""), "preemption message")
t.ok(wait_for(lambda: admitted(*b1), timeout=60), "b1 admitted after the reclaim")
t.ok(wait_for(lambda: suspended(*a2), timeout=60), "a2 suspended again")
t.ok(any(r == "EvictedDueToPreempted" for r, _ in events("hyperpod-ns-team-a", w2["metadata"]["name"])),
     "Workload event EvictedDueToPreempted")
t.ok(admitted(*a1) and not admitted(*a3), "a1 keeps its nominal quota; a3 still waits")

# A higher-priority job of team-a preempts its lower-priority a1.
a4 = job("team-a", "a4", "inference")
t.ok(wait_for(lambda: cond(workload(*a1), "Preempted").get("reason") == "InClusterQueue", timeout=60),
     "inference job preempts training job a1 in the same ClusterQueue")
t.ok("due to prioritization in the ClusterQueue" in cond(workload(*a1), "Preempted").get("message", ""),
     "InClusterQueue message")
t.ok(wait_for(lambda: admitted(*a4), timeout=60), "a4 admitted")

# Never fits: more than the team plus everything it may borrow.
a5 = job("team-a", "a5", "training", gpus=4)
t.ok(wait_for(lambda: cond(workload(*a5), "QuotaReserved").get("reason") == "ExceedsMaxQuota", timeout=60),
     "4 GPUs can never fit: ExceedsMaxQuota")
t.ok("> maximum capacity (2)" in cond(workload(*a5), "QuotaReserved").get("message", ""),
     "message names the maximum capacity: %s" % cond(workload(*a5), "QuotaReserved").get("message"))

# A queue that does not exist.
x = job("team-b", "x1", "training", queue="no-such-queue")
t.ok(wait_for(lambda: cond(workload(*x), "QuotaReserved").get("message") == "LocalQueue no-such-queue doesn't exist",
              timeout=60), "unknown LocalQueue: Kueue's message")

# A RayJob in a full queue: its Workload has a pod set per Ray group, and KubeRay makes no cluster.
for crd in crdbundle.crds("kuberay-v1.4.2"):
    k.req("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
t.ok(wait_for(lambda: k.req("GET", "/apis/ray.io/v1/rayjobs").status == 200, timeout=60), "RayJob served")
ray_tmpl = {"spec": {"containers": [{"name": "ray", "image": "rayproject/ray:2.52.0",
                                     "resources": {"limits": {GPU: "1"}}}]}}
r = k.req("POST", "/apis/ray.io/v1/namespaces/hyperpod-ns-team-b/rayjobs", {
    "apiVersion": "ray.io/v1", "kind": "RayJob",
    "metadata": {"name": "rj", "namespace": "hyperpod-ns-team-b",
                 "labels": {"kueue.x-k8s.io/queue-name": "hyperpod-ns-team-b-localqueue"}},
    "spec": {"entrypoint": "python3 train.py", "rayClusterSpec": {
        "headGroupSpec": {"rayStartParams": {}, "template": {"spec": {"containers": [
            {"name": "head", "image": "rayproject/ray:2.52.0"}]}}},
        "workerGroupSpecs": [{"groupName": "gpu", "replicas": 1, "minReplicas": 1, "maxReplicas": 1,
                              "rayStartParams": {}, "template": ray_tmpl}]}}})
t.eq(r.status, 201, "RayJob created in team-b's queue")


def ray_workload():
    items = k.req("GET", KQ + "/namespaces/hyperpod-ns-team-b/workloads").json().get("items") or []
    return next((w for w in items if w["metadata"]["name"].startswith("rayjob-rj-")), None)


t.ok(wait_for(lambda: cond(ray_workload(), "QuotaReserved").get("reason") == "Pending", timeout=60),
     "the RayJob's Workload waits for quota")
t.eq([(p["name"], p["count"]) for p in ray_workload()["spec"]["podSets"]], [("head", 1), ("gpu", 1)],
     "pod sets: the head and each worker group")
rj = k.req("GET", "/apis/ray.io/v1/namespaces/hyperpod-ns-team-b/rayjobs/rj").json()
t.ok(rj["spec"].get("suspend") and not k.req("GET", "/apis/ray.io/v1/namespaces/hyperpod-ns-team-b/rayclusters")
     .json().get("items"), "suspended: no RayCluster")

# Every Kueue object the sandbox wrote is valid against the upstream schema, CEL included.
bundle = crdbundle.load("kueue-v0.19.2")
bad = []
count = 0
for kind, plural in (("ClusterQueue", "clusterqueues"), ("LocalQueue", "localqueues"),
                     ("ResourceFlavor", "resourceflavors"), ("WorkloadPriorityClass", "workloadpriorityclasses"),
                     ("Workload", "workloads")):
    for o in k.req("GET", KQ + "/" + plural).json().get("items") or []:
        count += 1
        r = schema.check_custom(bundle["kinds"]["kueue.x-k8s.io/v1beta2/" + kind], o)
        if r.causes or r.unknown:
            bad.append((kind, o["metadata"]["name"], r.causes[:2], r.unknown[:2]))
t.ok(count >= 12 and not bad, "%d Kueue objects valid against the schema and CEL: %s" % (count, bad[:3]))
sb.stop()
t.done()
