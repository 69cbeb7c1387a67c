#!/usr/bin/python3
"""kubectl against a sandbox EKS cluster with HyperPod nodes: static token and
`aws eks get-token` exec auth, get nodes/pods/hyperpodpytorchjobs, apply a job,
logs -f, and rejection of a tampered token or a principal without an access entry."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "lib"))
from tap import T  # noqa: E402
from sandbox_fixture import Sandbox, find_aws, find_kubectl, run  # noqa: E402

t = T()
KUBECTL = find_kubectl()
if not KUBECTL:
    t.skip_all("no kubectl.1.NN binary found on PATH or beside kubectl")
t.diag("using %s" % KUBECTL)

sb = Sandbox(speed=600)
net = sb.network()
eks = sb.eks_cluster("kc", net)
sb.hyperpod("kc-hp", eks["arn"], net, [("gpu", "ml.p5.48xlarge", 2)])
sb.ok_rest("eks", "POST", "/clusters/kc/addons", {"addonName": "amazon-sagemaker-hyperpod-training-operator"})
from sandbox_fixture import wait_for  # noqa: E402
wait_for(lambda: sb.ok_rest("eks", "GET", "/clusters/kc/addons/amazon-sagemaker-hyperpod-training-operator")
         ["addon"]["status"] == "ACTIVE", timeout=5)

tok = sb.kube_token("kc")["token"]
cfg = sb.kubeconfig("kc", token=tok)
cache = os.path.join(sb.tmp, "kcache")


def kubectl(*args, config=cfg, timeout=300):
    return run([KUBECTL, "--kubeconfig", config, "--cache-dir", cache, "--request-timeout=240s"] + list(args),
               timeout=timeout)


rc, out, err = kubectl("get", "nodes")
lines = out.strip().splitlines()
t.ok(rc == 0 and lines[0].split()[:2] == ["NAME", "STATUS"] and len(lines) == 3, "kubectl get nodes (Table columns)")
t.ok(all(" Ready " in line for line in lines[1:]), "both HyperPod nodes Ready")
rc, out, err = kubectl("get", "nodes", "-o", "json")
items = json.loads(out)["items"] if rc == 0 else []
labels = items[0]["metadata"]["labels"] if items else {}
t.eq((labels.get("node.kubernetes.io/instance-type"), labels.get("sagemaker.amazonaws.com/instance-group-name"),
      labels.get("sagemaker.amazonaws.com/node-health-status"), labels.get("sagemaker.amazonaws.com/compute-type")),
     ("ml.p5.48xlarge", "gpu", "Schedulable", "hyperpod"), "nodes carry HyperPod labels")
t.eq(items[0]["status"]["capacity"].get("nvidia.com/gpu") if items else "no node", None,
     "no GPUs advertised before a device plugin runs")
plugin = os.path.join(sb.tmp, "nvidia-device-plugin.yaml")
with open(plugin, "w") as f:
    f.write("""apiVersion: apps/v1
kind: DaemonSet
metadata: {name: nvidia-device-plugin-daemonset, namespace: kube-system}
spec:
  selector: {matchLabels: {name: nvidia-device-plugin-ds}}
  template:
    metadata: {labels: {name: nvidia-device-plugin-ds}}
    spec:
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers:
        - name: nvidia-device-plugin-ctr
          image: nvcr.io/nvidia/k8s-device-plugin:v0.16.1
          volumeMounts: [{name: device-plugin, mountPath: /var/lib/kubelet/device-plugins}]
      volumes: [{name: device-plugin, hostPath: {path: /var/lib/kubelet/device-plugins}}]
""")
rc, out, err = kubectl("apply", "-f", plugin)
t.ok(rc == 0 and "created" in out, "kubectl apply the NVIDIA device plugin: " + (out + err).strip()[:200])


def gpus_advertised():
    rc, out, err = kubectl("get", "nodes", "-o", "json")
    its = json.loads(out)["items"] if rc == 0 else []
    return [n["status"]["capacity"].get("nvidia.com/gpu") for n in its]


wait_for(lambda: gpus_advertised() == ["8", "8"], timeout=10)
t.eq(gpus_advertised(), ["8", "8"], "p5 nodes advertise 8 GPUs once the plugin runs")
rc, out, err = kubectl("get", "pods", "-A")
t.ok(rc == 0 and "aws-hyperpod" in out and "hp-training-operator" in out, "kubectl get pods -A shows the operator")
rc, out, err = kubectl("get", "hyperpodpytorchjobs")
t.ok(rc == 0 and "No resources found" in err, "kubectl get hyperpodpytorchjobs (CRD installed by the add-on)")

job = os.path.join(sb.tmp, "job.yaml")
with open(job, "w") as f:
    f.write("""apiVersion: sagemaker.amazonaws.com/v1
kind: HyperPodPyTorchJob
metadata:
  name: llama
spec:
  nprocPerNode: "8"
  replicaSpecs:
    - name: pods
      replicas: 2
      template:
        spec:
          containers:
            - name: pytorch
              image: example.com/train:1
              env: [{name: MAX_STEPS, value: "300"}, {name: STEP_SECONDS, value: "3"}]
              resources: {limits: {nvidia.com/gpu: 8}, requests: {nvidia.com/gpu: 8}}
""")
rc, out, err = kubectl("apply", "-f", job)
t.ok(rc == 0 and "created" in out, "kubectl apply -f job.yaml: " + (out + err).strip()[:200])
rc, out, err = kubectl("apply", "-f", job)
t.ok(rc == 0 and "unchanged" in out, "second apply is unchanged: " + (out + err).strip()[:200])
rc, out, err = kubectl("get", "hyperpodpytorchjobs")
t.ok(rc == 0 and "llama" in out and "STATUS" in out, "kubectl get hyperpodpytorchjobs lists the job")
wait_for(lambda: "Running" in kubectl("get", "pods")[1] or "Completed" in kubectl("get", "pods")[1], timeout=10)
rc, out, err = kubectl("logs", "-f", "llama-pods-0", timeout=60)
t.ok(rc == 0 and "step 300/300" in out and "training complete" in out, "kubectl logs -f streams to the end")
t.ok("tokens/s=" in out, "training log has throughput lines")
state = wait_for(lambda: kubectl("get", "hyperpodpytorchjob", "llama", "-o",
                                 "jsonpath={.status.conditions[-1:].type}")[1].strip() == "Completed", timeout=5)
t.ok(state, "job ends Completed")
rc, out, err = kubectl("delete", "-f", job)
t.eq(rc, 0, "kubectl delete -f job.yaml")
# The garbage collector removes the job's pods after the delete answers,
# as a real cluster's does.
t.ok(wait_for(lambda: "llama-pods" not in kubectl("get", "pods", "-o",
                                                  "name")[1], timeout=30),
     "job pods were garbage-collected")

AWS = find_aws()
if AWS:
    ak, sk = sb.creds
    env = {"AWS_ACCESS_KEY_ID": ak, "AWS_SECRET_ACCESS_KEY": sk, "AWS_EC2_METADATA_DISABLED": "true",
           "AWS_CONFIG_FILE": os.path.join(sb.tmp, "none"), "AWS_SHARED_CREDENTIALS_FILE": os.path.join(sb.tmp, "none")}
    cmd = [AWS, "eks", "get-token", "--cluster-name", "kc", "--region", sb.region]
    execcfg = sb.kubeconfig("kc", exec_cmd=cmd, exec_env=env, name="exec.kubeconfig")
    rc, out, err = kubectl("get", "nodes", config=execcfg)
    t.ok(rc == 0 and "hyperpod-i-" in out, "exec: aws eks get-token is accepted (creator's access entry)")
    rc, out, err = kubectl("auth", "whoami", "-o", "json", config=execcfg)
    who = json.loads(out)["status"]["userInfo"]["username"] if rc == 0 else err
    t.eq(who, "arn:aws:iam::123456789012:user/slipway-sandbox", "kubectl auth whoami shows the IAM principal")
    badcfg = sb.kubeconfig("kc", exec_cmd=cmd, exec_env=dict(env, AWS_SECRET_ACCESS_KEY=sk[:-3] + "abc"),
                           name="bad.kubeconfig")
    rc, out, err = kubectl("get", "nodes", config=badcfg)
    t.ok(rc != 0 and "Unauthorized" in err, "tampered token signature -> Unauthorized")
    st, user = sb.control("POST", "/users", {"user": "outsider"})
    othercfg = sb.kubeconfig("kc", exec_cmd=cmd, exec_env=dict(env, AWS_ACCESS_KEY_ID=user["access_key_id"],
                                                                 AWS_SECRET_ACCESS_KEY=user["secret_access_key"]),
                             name="other.kubeconfig")
    rc, out, err = kubectl("get", "nodes", config=othercfg)
    t.ok(rc != 0 and "Unauthorized" in err, "valid IAM principal without an access entry -> Unauthorized")
    sb.ok_rest("eks", "POST", "/clusters/kc/access-entries", {"principalArn": user["arn"]})
    sb.ok_rest("eks", "POST", "/clusters/kc/access-entries/%s/access-policies" % user["arn"].replace("/", "%2F").replace(":", "%3A"),
               {"policyArn": "arn:aws:eks::aws:cluster-access-policy/AmazonEKSViewPolicy",
                "accessScope": {"type": "cluster"}})
    rc, out, err = kubectl("get", "nodes", config=othercfg)
    t.eq(rc, 0, "after CreateAccessEntry + AssociateAccessPolicy(View) the principal can list nodes")
    rc, out, err = kubectl("create", "namespace", "x", config=othercfg)
    t.ok(rc != 0 and "forbidden" in err, "view policy cannot create namespaces (403 Forbidden)")
else:
    t.skip("aws CLI not on PATH for exec auth", 7)

t.eq(sb.stop(), 0, "sandbox stops cleanly")
t.done()
