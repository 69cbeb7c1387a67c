"""Model servers behind a Service, as the API server's service proxy reaches them.

A real cluster's `/api/v1/namespaces/<ns>/services/<svc>[:<port>]/proxy/<path>`
picks a Ready endpoint of the Service (a pod its selector matches, on the
Service port's targetPort) and forwards the request to the program listening
there.  The sandbox runs no program, so this module answers as that program
would: vLLM and SGLang (and the vLLM-based containers the HyperPod inference
operator runs) serve an OpenAI-compatible `/v1/chat/completions`, `/v1/models`
and `/health`; the reply is small and deterministic and names the served
model, so a test can tell which endpoint answered.  A pod whose container
does not listen on the port, or a Service with no Ready pod, gets the proxy's
own 503 "no endpoints available for service".
"""
import datetime
import hashlib
import json

ROLES = ("system", "user", "assistant", "tool", "developer")


class ProxyError(Exception):
    """An answer from the API server itself (a Status), not from the pod."""

    def __init__(self, code, reason, message):
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.message = message


def _flag(argv, name):
    for i, w in enumerate(argv):
        if w == name and i + 1 < len(argv):
            return argv[i + 1]
        if w.startswith(name + "="):
            return w.split("=", 1)[1]
    return None


def served_model(container):
    """The model name the server in container answers to, from its argv as the
    engine parses it: --served-model-name, else the model path or id."""
    argv = list(container.get("command") or []) + list(container.get("args") or [])
    for flag in ("--served-model-name",):
        v = _flag(argv, flag)
        if v:
            return v
    for flag in ("--model", "--model-path"):
        v = _flag(argv, flag)
        if v:
            return v
    if "serve" in argv:
        i = argv.index("serve")
        if i + 1 < len(argv) and not argv[i + 1].startswith("-"):
            return argv[i + 1]
    for e in container.get("env") or []:
        if e.get("name") in ("SERVED_MODEL_NAME", "MODEL_ID", "HF_MODEL_ID") and e.get("value"):
            return e["value"]
    return "model"


def engine_of(container):
    text = " ".join([container.get("image") or ""] + list(container.get("command") or []) +
                    list(container.get("args") or [])).lower()
    if "sglang" in text:
        return "sglang"
    return "vllm"


def _container_port(pod, target):
    """(container, port number) listening on a Service targetPort (number or name)."""
    for c in (pod.get("spec") or {}).get("containers") or []:
        for p in c.get("ports") or []:
            if isinstance(target, int) and p.get("containerPort") == target:
                return c, target
            if isinstance(target, str) and p.get("name") == target:
                return c, p.get("containerPort")
    return None, None


def _ready(pod):
    if (pod.get("metadata") or {}).get("deletionTimestamp"):
        return False
    for c in (pod.get("status") or {}).get("conditions") or []:
        if c.get("type") == "Ready":
            return c.get("status") == "True"
    return False


def _selects(selector, labels):
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def pick_endpoint(svc, pods, port_ref):
    """The Ready pod (and its container) a proxy request to svc would reach.  port_ref
    is the port part of "<svc>:<port>" (name or number, None for the only port).
    Raises ProxyError 503 when there is none, as kube-apiserver does."""
    name = svc["metadata"]["name"]
    spec = svc.get("spec") or {}
    ports = spec.get("ports") or []
    port = None
    if port_ref in (None, ""):
        port = ports[0] if len(ports) == 1 else None
    else:
        for p in ports:
            if p.get("name") == port_ref or str(p.get("port")) == port_ref:
                port = p
    shown = name if port_ref in (None, "") else "%s:%s" % (name, port_ref)
    unavailable = ProxyError(503, "ServiceUnavailable", 'no endpoints available for service "%s"' % shown)
    if port is None:
        raise unavailable
    target = port.get("targetPort", port.get("port"))
    if isinstance(target, str) and target.isdigit():
        target = int(target)
    cands = []
    for p in pods:
        if not _selects(spec.get("selector") or {}, (p.get("metadata") or {}).get("labels") or {}):
            continue
        if not _ready(p) or not (p.get("status") or {}).get("podIP"):
            continue
        c, num = _container_port(p, target)
        if c is not None:
            cands.append((p["metadata"]["name"], p, c, num))
    if not cands:
        raise unavailable
    cands.sort(key=lambda x: x[0])
    return cands[0][1], cands[0][2]


def _error(code, message, etype="BadRequestError"):
    return code, {"object": "error", "message": message, "type": etype, "param": None, "code": code}


def _chat(container, pod, body):
    model = served_model(container)
    try:
        req = json.loads(body or b"{}")
    except ValueError:
        return _error(400, "Expecting value: request body is not JSON")
    if not isinstance(req, dict):
        return _error(400, "Input should be a valid dictionary")
    if req.get("model") not in (None, model):
        return _error(404, "The model `%s` does not exist." % req.get("model"), "NotFoundError")
    msgs = req.get("messages")
    if not isinstance(msgs, list) or not msgs:
        return _error(400, "messages: Field required" if msgs is None else "messages: must be a non-empty list")
    for i, m in enumerate(msgs):
        if not isinstance(m, dict) or m.get("role") not in ROLES or not isinstance(m.get("content"), str):
            return _error(400, "messages.%d: each message needs a role and a string content" % i)
    if req.get("stream"):
        return _error(400, "the sandbox's model servers do not stream")
    max_tokens = req.get("max_tokens", 16)
    if not isinstance(max_tokens, int) or max_tokens < 1:
        return _error(400, "max_tokens must be at least 1")
    last = next((m["content"] for m in reversed(msgs) if m["role"] == "user"), "")
    words = ("%s heard: %s" % (model, last)).split()
    out = words[:max_tokens]
    prompt_tokens = sum(len(m["content"].split()) + 4 for m in msgs)
    digest = hashlib.sha256(json.dumps([model, msgs, max_tokens], sort_keys=True).encode()).hexdigest()
    return 200, {
        "id": "chatcmpl-" + digest[:24], "object": "chat.completion", "created": 1767225600,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": " ".join(out)},
                     "logprobs": None, "finish_reason": "length" if len(out) < len(words) else "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(out),
                  "total_tokens": prompt_tokens + len(out)},
        "system_fingerprint": "%s:%s" % (engine_of(container), pod["metadata"]["name"]),
    }


def serve(pod, container, method, path, body):
    """(status, JSON document) the model server in container of pod answers to
    method path (the part after /proxy)."""
    path = "/" + path.lstrip("/")
    if path in ("/health", "/ping", "/health_generate"):
        return 200, {}
    if path == "/v1/models" and method == "GET":
        return 200, {"object": "list", "data": [{"id": served_model(container), "object": "model",
                                                 "owned_by": engine_of(container)}]}
    if path in ("/v1/chat/completions", "/invocations"):
        if method != "POST":
            return 405, {"detail": "Method Not Allowed"}
        return _chat(container, pod, body)
    return 404, {"detail": "Not Found"}


# --- the HyperPod inference operator ------------------------------------------------------
#
# What the operator does with an InferenceEndpointConfig or a JumpStartModel (the schema
# check happened on write): a Deployment of model-server pods named after the model, a
# ClusterIP Service in front of them (both owned by the custom resource, so deleting it
# removes them), a KEDA ScaledObject when autoScalingSpec is given, and the status the
# real operator writes (state, replicas and selector for the scale subresource,
# deploymentStatus, conditions, tlsCertificate).  The TLS certificate goes to the bucket
# of tlsCertificateOutputS3Uri: a bucket that does not exist fails the deployment, as a
# PutObject to it would.  A change of the resource's worker or server rolls the
# Deployment to the new pod spec.  A rollout that has not completed within
# spec.maxDeployTimeInSeconds (the CRD's default, 3600) while a pod of it fails (its
# container cannot start, crash-loops or cannot pull its image) is DeploymentFailed,
# naming the pod and its failure; pods available again make it DeploymentComplete.
GROUP = "inference.sagemaker.aws.amazon.com"
KINDS = (("InferenceEndpointConfig", "inferenceendpointconfigs"), ("JumpStartModel", "jumpstartmodels"))
JUMPSTART_IMAGE = "763104351884.dkr.ecr.%s.amazonaws.com/djl-inference:0.33.0-lmi15.0.0-cu128"
ENDPOINT_LABEL = GROUP + "/endpoint"
MANAGER = "hyperpod-inference-operator"
SPEC_HASH = "sandbox.slipway.dev/pod-spec-hash"
MAX_DEPLOY_TIME = 3600
FAILING = ("CrashLoopBackOff", "ImagePullBackOff", "ErrImagePull", "CreateContainerError",
           "RunContainerError", "StartError")


def _model_name(kind, ie):
    spec = ie.get("spec") or {}
    if kind == "InferenceEndpointConfig":
        return spec.get("modelName") or ie["metadata"]["name"]
    return ie["metadata"]["name"]


def _pod_spec(ctrl, kind, ie, name):
    spec = ie.get("spec") or {}
    if kind == "InferenceEndpointConfig":
        w = spec.get("worker") or {}
        port = (w.get("modelInvocationPort") or {}).get("containerPort", 8080)
        vm = w.get("modelVolumeMount") or {}
        c = {"name": "model", "image": w.get("image"),
             "ports": [{"name": "http", "containerPort": port}],
             "resources": w.get("resources") or {},
             "env": list(w.get("environmentVariables") or []),
             "volumeMounts": [{"name": vm.get("name", "model-weights"),
                               "mountPath": vm.get("mountPath", "/opt/ml/model")}],
             "readinessProbe": {"httpGet": {"path": "/health", "port": port}}}
        for k in ("command", "args", "workingDir"):
            if w.get(k):
                c[k] = w[k]
        itype = spec.get("instanceType")
        volumes = [{"name": vm.get("name", "model-weights"), "emptyDir": {}}]
    else:
        model = spec.get("model") or {}
        port = 8080
        c = {"name": "model", "image": JUMPSTART_IMAGE % ctrl.kc.world.region,
             "ports": [{"name": "http", "containerPort": port}],
             "env": [{"name": "SERVED_MODEL_NAME", "value": model.get("modelId", name)}] +
                    list(spec.get("environmentVariables") or []),
             "resources": {"limits": {"nvidia.com/gpu": 1}, "requests": {"nvidia.com/gpu": 1}},
             "readinessProbe": {"httpGet": {"path": "/ping", "port": port}}}
        itype = (spec.get("server") or {}).get("instanceType")
        volumes = []
    ps = {"containers": [c], "volumes": volumes,
          "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}
    if itype:
        ps["nodeSelector"] = {"node.kubernetes.io/instance-type": itype}
    return ps, port


def _tls_bucket(ie):
    uri = ((ie.get("spec") or {}).get("tlsConfig") or {}).get("tlsCertificateOutputS3Uri") or ""
    if not uri.startswith("s3://"):
        return None
    return uri[len("s3://"):].split("/", 1)[0]


def _spec_hash(pod_spec):
    return hashlib.sha256(json.dumps(pod_spec, sort_keys=True).encode()).hexdigest()[:16]


def _pod_failure(pod):
    """"<pod>: <reason>: <message>" when a container of pod cannot run, else None."""
    st = pod.get("status") or {}
    name = pod["metadata"]["name"]
    if st.get("phase") == "Failed":
        return "%s: %s" % (name, st.get("reason") or "Failed")
    for cs in st.get("containerStatuses") or []:
        w = (cs.get("state") or {}).get("waiting") or {}
        if w.get("reason") in FAILING:
            return "%s: %s: %s" % (name, w["reason"], w.get("message", ""))
    return None


def _rollout_failure(ctrl, ie, d):
    """Why the Deployment d's current rollout failed, or None: past maxDeployTimeInSeconds
    since its ReplicaSet was made, with a pod of it failing."""
    from .controllers import owned_by, template_hash
    st = ctrl.st
    ns = d["metadata"]["namespace"]
    rs_name = ("%s-%s" % (d["metadata"]["name"], template_hash(d["spec"].get("template"))))[:63]
    rs = st.get("apps", "replicasets", ns, rs_name)
    if rs is None:
        return None
    limit = (ie.get("spec") or {}).get("maxDeployTimeInSeconds", MAX_DEPLOY_TIME)
    made = datetime.datetime.strptime(rs["metadata"]["creationTimestamp"], "%Y-%m-%dT%H:%M:%SZ")
    made = made.replace(tzinfo=datetime.timezone.utc).timestamp()
    clock = ctrl.kc.world.clock
    if clock.now() < clock.due(limit, made):
        return None
    for p in st.list("", "pods", ns):
        if owned_by(p, rs["metadata"]["uid"]) and not p["metadata"].get("deletionTimestamp"):
            why = _pod_failure(p)
            if why:
                return "the deployment did not complete within maxDeployTimeInSeconds (%d): %s" % (
                    limit, why)
    return None


def _cond(type_, status, reason, message, now_text, gen):
    return {"type": type_, "status": status, "reason": reason, "message": message,
            "lastTransitionTime": now_text, "observedGeneration": gen}


def reconcile(ctrl, now):
    from .controllers import owned_by, owner_ref
    kc = ctrl.kc
    st = ctrl.st
    reg = kc.registry()
    for kind, plural in KINDS:
        if reg.by_kind(GROUP, kind) is None:
            continue
        for ie in st.list(GROUP, plural):
            if ie["metadata"].get("deletionTimestamp"):
                continue
            spec = ie.get("spec") or {}
            ns = ie["metadata"]["namespace"]
            uid = ie["metadata"]["uid"]
            gen = ie["metadata"].get("generation", 1)
            name = _model_name(kind, ie)
            labels = {"app": name, ENDPOINT_LABEL: ie["metadata"]["name"]}
            nt = ctrl.now_text()
            status = copy_status = dict(ie.get("status") or {})
            bucket = _tls_bucket(ie)
            if bucket is not None and kc.world.store.get("s3:buckets", bucket) is None:
                msg = ("failed to upload the TLS certificate to s3://%s: NoSuchBucket: The specified "
                       "bucket does not exist" % bucket)
                new = {"state": "DeploymentFailed", "observedGeneration": gen,
                       "conditions": [_cond("DeploymentFailed", "True", "TLSCertificateUploadFailed", msg, nt, gen)]}
                if {k: copy_status.get(k) for k in ("state", "observedGeneration")} != \
                        {"state": "DeploymentFailed", "observedGeneration": gen}:
                    ctrl._set_status(GROUP, plural, ie, new)
                continue
            pod_spec, port = _pod_spec(ctrl, kind, ie, name)
            auto = spec.get("autoScalingSpec") or ((spec.get("intelligentRoutingSpec") or {})
                                                   .get("autoScalingSpec"))
            replicas = int(spec.get("replicas", 1) or 1)
            deps = [d for d in st.list("apps", "deployments", ns) if owned_by(d, uid)]
            if not deps:
                dep = {"apiVersion": "apps/v1", "kind": "Deployment",
                       "metadata": {"name": name, "namespace": ns, "labels": dict(labels),
                                    "annotations": {SPEC_HASH: _spec_hash(pod_spec)},
                                    "ownerReferences": [owner_ref(ie, ie["apiVersion"], kind)]},
                       "spec": {"replicas": replicas, "selector": {"matchLabels": dict(labels)},
                                "template": {"metadata": {"labels": dict(labels), "annotations": {
                                    "sandbox.slipway.dev/workload": "inference"}},
                                    "spec": pod_spec}}}
                kc.create_object("apps", "deployments", dep, manager=MANAGER)
                deps = [d for d in st.list("apps", "deployments", ns) if owned_by(d, uid)]
            d = deps[0]
            ann = d["metadata"].setdefault("annotations", {})
            if not auto and d["spec"].get("replicas") != replicas or ann.get(SPEC_HASH) != _spec_hash(pod_spec):
                if ann.get(SPEC_HASH) != _spec_hash(pod_spec):
                    ann[SPEC_HASH] = _spec_hash(pod_spec)
                    d["spec"]["template"]["spec"] = pod_spec
                if not auto:
                    d["spec"]["replicas"] = replicas
                st.update("apps", "deployments", d, bump_generation=True)
            svcs = [s for s in st.list("", "services", ns) if owned_by(s, uid)]
            if not svcs:
                svc = {"apiVersion": "v1", "kind": "Service",
                       "metadata": {"name": "%s-service" % name[:55], "namespace": ns, "labels": dict(labels),
                                    "ownerReferences": [owner_ref(ie, ie["apiVersion"], kind)]},
                       "spec": {"type": "ClusterIP", "selector": dict(labels),
                                "ports": [{"name": "http", "port": 80, "targetPort": port, "protocol": "TCP"}]}}
                kc.create_object("", "services", svc, manager=MANAGER)
            sos = [o for o in st.list("keda.sh", "scaledobjects", ns) if owned_by(o, uid)] \
                if reg.by_kind("keda.sh", "ScaledObject") else []
            if auto and not sos and reg.by_kind("keda.sh", "ScaledObject"):
                trig = auto.get("prometheusTrigger") or {}
                so = {"apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject",
                      "metadata": {"name": "%s-scaled-object" % name[:48], "namespace": ns, "labels": dict(labels),
                                   "ownerReferences": [owner_ref(ie, ie["apiVersion"], kind)]},
                      "spec": {"scaleTargetRef": {"name": name},
                               "minReplicaCount": auto.get("minReplicaCount", 1),
                               "maxReplicaCount": auto.get("maxReplicaCount", 5),
                               "pollingInterval": auto.get("pollingInterval", 30),
                               "cooldownPeriod": auto.get("cooldownPeriod", 300),
                               "triggers": [{"type": "prometheus", "metadata": {
                                   "serverAddress": trig.get("serverAddress", ""),
                                   "query": trig.get("query", ""),
                                   "threshold": str(trig.get("targetValue", 1))}}]}}
                kc.create_object("keda.sh", "scaledobjects", so, manager=MANAGER)
            elif not auto:
                for o in sos:
                    kc.delete_object("keda.sh", "scaledobjects", ns, o["metadata"]["name"])
            dst = d.get("status") or {}
            avail = dst.get("availableReplicas", 0)
            want = d["spec"].get("replicas", replicas)
            done = avail >= want and want > 0 and dst.get("updatedReplicas", 0) >= want
            state = "DeploymentComplete" if done else "DeploymentInProgress"
            failure = None if done else _rollout_failure(ctrl, ie, d)
            if failure:
                new = {"state": "DeploymentFailed", "replicas": avail, "selector": "app=%s" % name,
                       "observedGeneration": gen,
                       "deploymentStatus": {"name": name, "deploymentObjectOverallState": "DeploymentFailed",
                                            "lastUpdated": nt},
                       "conditions": [_cond("DeploymentFailed", "True", "DeploymentTimeout", failure, nt, gen)]}
                if {k: status.get(k) for k in ("state", "replicas", "observedGeneration")} != \
                        {k: new.get(k) for k in ("state", "replicas", "observedGeneration")}:
                    ctrl._set_status(GROUP, plural, ie, new)
                continue
            new = {"state": state, "replicas": avail, "selector": "app=%s" % name, "observedGeneration": gen,
                   "deploymentStatus": {"name": name, "deploymentObjectOverallState": state,
                                        "lastUpdated": nt,
                                        "status": {"replicas": dst.get("replicas", 0),
                                                   "readyReplicas": dst.get("readyReplicas", 0),
                                                   "availableReplicas": avail}},
                   "conditions": [_cond(state, "True", state,
                                        "%d of %d replicas available" % (avail, want), nt, gen)]}
            if bucket is not None:
                new["tlsCertificate"] = {"tlsCertificateOutputS3Bucket": bucket,
                                         "tlsCertificateS3Keys": ["%s/%s/tls.crt" % (ns, ie["metadata"]["name"])],
                                         "certificateHealth": "Valid",
                                         "certificateDomainNames": ["%s-service.%s.svc" % (name[:55], ns)]}
            old = status
            if {k: old.get(k) for k in ("state", "replicas", "observedGeneration")} != \
                    {k: new.get(k) for k in ("state", "replicas", "observedGeneration")}:
                ctrl._set_status(GROUP, plural, ie, new)
