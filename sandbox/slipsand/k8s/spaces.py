"""HyperPod Spaces in the sandbox: the jupyter-k8s operator as the add-on runs it.

The EKS add-on `amazon-sagemaker-spaces` serves the jupyter-k8s kinds
(`workspace.jupyter.org/v1alpha1` Workspace, WorkspaceTemplate,
WorkspaceAccessStrategy: the upstream CRDs, crdbundle 'jupyter-k8s-v0.2.0')
and runs the operator `jupyter-k8s-system/jupyter-k8s-controller-manager`.
It brings the system templates `sagemaker-jupyter-template` and
`sagemaker-code-editor-template` and the access strategy
`hyperpod-access-strategy` (names from the HyperPod CLI's Spaces walkthrough
and the aws-hyperpod chart).

The operator (`reconcile`, run by the controllers) gives each Workspace
what jupyter-k8s gives it:

- desiredStatus Running (the default): a PVC `workspace-<name>-pvc` for its
  storage (the template's primaryStorage default size), a Deployment
  `workspace-<name>` of one pod running the template's image (the
  Workspace's own image, resources, node selector and tolerations win), and
  a Service `workspace-<name>-service` on port 8888.  Kueue's labels on the
  Workspace (`kueue.x-k8s.io/queue-name`, `.../priority-class`) go onto the
  pod, so task governance admits or holds it like any queued pod.
- status: deploymentName, serviceName, accessURL (from the access
  strategy's accessURLTemplate, once the pod is ready), and the conditions
  Available, Progressing, Degraded and Stopped.
- idle shutdown: with `spec.idleShutdown.enabled`, a Workspace that has been
  available with no activity for `idleTimeoutInMinutes` gets desiredStatus
  Stopped, as the operator's idle checker sets it.  Activity is the
  annotation `workspace.jupyter.org/last-activity` (RFC 3339) when present,
  else the time it became available (the sandbox runs no Jupyter server to
  ask); the timeout is in sandbox time, so `--speed` shortens it like every
  other duration.
- desiredStatus Stopped: the Deployment and Service are deleted, the PVC
  stays, and Stopped is True; setting Running again starts it anew.

Every status the operator writes passes the CRD's schema first.
"""
import copy
import time

from . import schema
from .admission import Invalid

GROUP = "workspace.jupyter.org"
VERSION = "v1alpha1"
API = GROUP + "/" + VERSION
ADDON = "amazon-sagemaker-spaces"
SYSTEM_NS = "jupyter-k8s-system"
MANAGER = "jupyter-k8s-controller-manager"
ACCESS_STRATEGY = "hyperpod-access-strategy"
NAME_LABEL = "workspace.jupyter.org/workspace-name"
ACTIVITY = "workspace.jupyter.org/last-activity"
KUEUE_LABELS = ("kueue.x-k8s.io/queue-name", "kueue.x-k8s.io/priority-class")
PORT = 8888
SMD = "public.ecr.aws/sagemaker/sagemaker-distribution"


def _template(name, display, app, entry):
    return {"apiVersion": API, "kind": "WorkspaceTemplate",
            "metadata": {"name": name, "namespace": SYSTEM_NS},
            "spec": {"displayName": display, "appType": app,
                     "description": "System template for %s, managed by the add-on" % display,
                     "defaultImage": SMD + ":latest-cpu",
                     "allowedImages": [SMD + ":latest-cpu", SMD + ":latest-gpu"],
                     "allowCustomImages": True,
                     "defaultResources": {"requests": {"cpu": "1", "memory": "4Gi"},
                                          "limits": {"cpu": "4", "memory": "16Gi"}},
                     "primaryStorage": {"defaultSize": "10Gi", "minSize": "5Gi", "maxSize": "100Gi",
                                        "defaultMountPath": "/home/sagemaker-user"},
                     "defaultContainerConfig": {"command": [entry]},
                     "defaultOwnershipType": "Public",
                     "defaultAccessStrategy": {"name": ACCESS_STRATEGY, "namespace": SYSTEM_NS}}}


def addon_objects():
    """What the add-on adds beside its CRDs and operator: the system templates and access strategy."""
    return [
        _template("sagemaker-jupyter-template", "JupyterLab", "jupyterlab",
                  "/opt/amazon/sagemaker/workspace/bin/entrypoint-workspace-jupyterlab"),
        _template("sagemaker-code-editor-template", "Code Editor", "code-editor",
                  "/opt/amazon/sagemaker/workspace/bin/entrypoint-workspace-code-editor"),
        {"apiVersion": API, "kind": "WorkspaceAccessStrategy",
         "metadata": {"name": ACCESS_STRATEGY, "namespace": SYSTEM_NS},
         "spec": {"displayName": "HyperPod access strategy",
                  "accessURLTemplate": "https://{{ .Domain }}/workspaces/{{ .Workspace.Namespace }}/"
                                       "{{ .Workspace.Name }}/",
                  "accessResourceTemplates": [{"kind": "Service", "apiVersion": "v1",
                                               "namePrefix": "workspace-access",
                                               "template": "{}"}]}},
    ]


def domain(cluster):
    """The web UI domain of the cluster's Spaces (the add-on's clusterWebUI domain)."""
    return "%s.spaces.sandbox.slipway.dev" % cluster


def _parse(text):
    try:
        return time.mktime(time.strptime(text, "%Y-%m-%dT%H:%M:%SZ")) - time.timezone
    except (TypeError, ValueError):
        return None


def _schema(kc, plural):
    crd = kc.store.get("apiextensions.k8s.io", "customresourcedefinitions", None, "%s.%s" % (plural, GROUP))
    for v in ((crd or {}).get("spec") or {}).get("versions") or []:
        if v.get("name") == VERSION:
            return (v.get("schema") or {}).get("openAPIV3Schema")
    return None


def _write(kc, ws, old):
    """Store ws (status or spec changed) once it passes the CRD's schema and CEL rules."""
    r = schema.check_custom(_schema(kc, "workspaces"), ws, old)
    if r.causes or r.unknown:
        causes = list(r.causes) + [(p, "field not declared in schema", None) for p, _ in r.unknown]
        raise Invalid("Workspace", ws["metadata"]["name"], causes, GROUP)
    return kc.store.update(GROUP, "workspaces", ws)


def _cond(old_conds, type_, status, reason, message, now_text):
    prev = next((c for c in old_conds if c.get("type") == type_), None)
    when = prev["lastTransitionTime"] if prev and prev.get("status") == status else now_text
    return {"type": type_, "status": status, "reason": reason, "message": message,
            "lastTransitionTime": when}


class Operator:
    def __init__(self, ctrl):
        self.ctrl = ctrl
        self.kc = ctrl.kc
        self.st = ctrl.kc.store

    def reconcile(self, now):
        if self.kc.registry().find(GROUP, VERSION, "workspaces") is None:
            return
        for ws in self.st.list(GROUP, "workspaces"):
            if ws["metadata"].get("deletionTimestamp"):
                continue
            try:
                self.one(ws, now)
            except Invalid as e:
                self.kc.record_event(ws, "ReconcileError", e.message[:1024], "Warning", MANAGER)

    def _template_of(self, ws):
        ref = (ws.get("spec") or {}).get("templateRef")
        if not ref:
            return {}, None
        ns = ref.get("namespace") or ws["metadata"]["namespace"]
        tmpl = self.st.get(GROUP, "workspacetemplates", ns, ref["name"])
        if tmpl is None:
            return None, "WorkspaceTemplate %s/%s not found" % (ns, ref["name"])
        return tmpl.get("spec") or {}, None

    def one(self, ws, now):
        spec = ws.get("spec") or {}
        tmpl, err = self._template_of(ws)
        old = copy.deepcopy(ws)
        conds = (ws.get("status") or {}).get("conditions") or []
        nt = self.ctrl.now_text()
        if err:
            self._status(ws, old, {"conditions": [
                _cond(conds, "Degraded", "True", "TemplateNotFound", err, nt),
                _cond(conds, "Available", "False", "TemplateNotFound", err, nt)]})
            return
        if spec.get("desiredStatus", "Running") == "Running" and self._idle(ws, now):
            ws["spec"]["desiredStatus"] = "Stopped"
            _write(self.kc, ws, old)
            self.kc.record_event(ws, "IdleShutdown", "Workspace idle for %d minutes: stopping" %
                                 spec["idleShutdown"]["idleTimeoutInMinutes"], "Normal", MANAGER)
            old = copy.deepcopy(ws)
            spec = ws["spec"]
        name = ws["metadata"]["name"]
        ns = ws["metadata"]["namespace"]
        dep_name, svc_name = "workspace-%s" % name, "workspace-%s-service" % name
        if spec.get("desiredStatus", "Running") == "Stopped":
            for g, p, n in (("apps", "deployments", dep_name), ("", "services", svc_name)):
                if self.st.get(g, p, ns, n) is not None:
                    self.kc.delete_object(g, p, ns, n)
            pods = self._pods(ws)
            msg = "Workspace is stopped" if not pods else "Workspace is stopping"
            self._status(ws, old, {"conditions": [
                _cond(conds, "Available", "False", "DesiredStateStopped", msg, nt),
                _cond(conds, "Progressing", "True" if pods else "False",
                      "Stopping" if pods else "DesiredStateStopped", msg, nt),
                _cond(conds, "Degraded", "False", "NoError", "No errors", nt),
                _cond(conds, "Stopped", "False" if pods else "True",
                      "Stopping" if pods else "DesiredStateStopped", msg, nt)]})
            return
        self._ensure_objects(ws, tmpl, dep_name, svc_name)
        pods = self._pods(ws)
        ready = [p for p in pods if p["status"].get("phase") == "Running"]
        st = {"deploymentName": dep_name, "serviceName": svc_name}
        if ready:
            st["accessURL"] = self._url(ws)
            st["accessStartupProbeSucceeded"] = True
            msg = "Workspace is available"
            st["conditions"] = [_cond(conds, "Available", "True", "ResourcesReady", msg, nt),
                                _cond(conds, "Progressing", "False", "ResourcesReady", msg, nt)]
        else:
            why = self._waiting(pods)
            st["conditions"] = [_cond(conds, "Available", "False", "ResourcesNotReady", why, nt),
                                _cond(conds, "Progressing", "True", "ResourcesNotReady", why, nt)]
        st["conditions"] += [_cond(conds, "Degraded", "False", "NoError", "No errors", nt),
                             _cond(conds, "Stopped", "False", "DesiredStateRunning", "Workspace is running", nt)]
        self._status(ws, old, st)

    def _status(self, ws, old, st):
        if ws.get("status") != st:
            ws["status"] = st
            _write(self.kc, ws, old)

    def _idle(self, ws, now):
        idle = (ws.get("spec") or {}).get("idleShutdown") or {}
        if not idle.get("enabled"):
            return False
        conds = (ws.get("status") or {}).get("conditions") or []
        avail = next((c for c in conds if c.get("type") == "Available" and c.get("status") == "True"), None)
        if avail is None:
            return False
        last = _parse((ws["metadata"].get("annotations") or {}).get(ACTIVITY)) or 0
        last = max(last, _parse(avail.get("lastTransitionTime")) or 0)
        clock = self.kc.world.clock
        return clock.now() >= clock.due(60 * int(idle.get("idleTimeoutInMinutes") or 0), last)

    def _pods(self, ws):
        sel = ws["metadata"]["name"]
        return [p for p in self.st.list("", "pods", ws["metadata"]["namespace"])
                if (p["metadata"].get("labels") or {}).get(NAME_LABEL) == sel
                and not p["metadata"].get("deletionTimestamp")]

    @staticmethod
    def _waiting(pods):
        if not pods:
            return "Waiting for the workspace pod"
        p = pods[0]
        for c in p["status"].get("conditions") or []:
            if c.get("type") == "PodScheduled" and c.get("status") == "False":
                return "Pod %s not scheduled: %s" % (p["metadata"]["name"], c.get("message") or c.get("reason"))
        return "Pod %s is %s" % (p["metadata"]["name"], p["status"].get("phase", "Pending"))

    def _url(self, ws):
        ref = (ws.get("spec") or {}).get("accessStrategy") or {}
        strat = self.st.get(GROUP, "workspaceaccessstrategies", ref.get("namespace") or SYSTEM_NS,
                            ref.get("name") or ACCESS_STRATEGY)
        tmpl = ((strat or {}).get("spec") or {}).get("accessURLTemplate") or ""
        return (tmpl.replace("{{ .Domain }}", domain(self.kc.name))
                .replace("{{ .Workspace.Namespace }}", ws["metadata"]["namespace"])
                .replace("{{ .Workspace.Name }}", ws["metadata"]["name"]))

    def _pod_template(self, ws, tmpl, pvc):
        spec = ws.get("spec") or {}
        md = ws["metadata"]
        labels = {NAME_LABEL: md["name"], "app.kubernetes.io/managed-by": MANAGER}
        for k in KUEUE_LABELS:
            v = (md.get("labels") or {}).get(k)
            if v:
                labels[k] = v
        container = {"name": "workspace", "image": spec.get("image") or tmpl.get("defaultImage") or SMD + ":latest-cpu",
                     "ports": [{"name": "http", "containerPort": PORT, "protocol": "TCP"}],
                     "resources": copy.deepcopy(spec.get("resources") or tmpl.get("defaultResources") or {})}
        cmd = (tmpl.get("defaultContainerConfig") or {}).get("command")
        if cmd:
            container["command"] = list(cmd)
        mount = ((spec.get("storage") or {}).get("mountPath")
                 or (tmpl.get("primaryStorage") or {}).get("defaultMountPath") or "/home/jovyan")
        pod = {"containers": [container], "restartPolicy": "Always"}
        if pvc:
            container["volumeMounts"] = [{"name": "workspace-storage", "mountPath": mount}]
            pod["volumes"] = [{"name": "workspace-storage", "persistentVolumeClaim": {"claimName": pvc}}]
        for k, tk in (("nodeSelector", "defaultNodeSelector"), ("tolerations", "defaultTolerations")):
            v = spec.get(k) or tmpl.get(tk)
            if v:
                pod[k] = copy.deepcopy(v)
        return {"metadata": {"labels": labels, "annotations": {"sandbox.slipway.dev/workload": "space"}},
                "spec": pod}

    def _ensure_objects(self, ws, tmpl, dep_name, svc_name):
        from .controllers import owner_ref
        md = ws["metadata"]
        ns = md["namespace"]
        own = [owner_ref(ws, ws["apiVersion"], "Workspace")]
        labels = {NAME_LABEL: md["name"]}
        size = ((ws.get("spec") or {}).get("storage") or {}).get("size") or \
            (tmpl.get("primaryStorage") or {}).get("defaultSize")
        pvc = "workspace-%s-pvc" % md["name"] if size else None
        if pvc and self.st.get("", "persistentvolumeclaims", ns, pvc) is None:
            claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                     "metadata": {"name": pvc, "namespace": ns, "labels": dict(labels), "ownerReferences": own},
                     "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": str(size)}}}}
            sc = ((ws.get("spec") or {}).get("storage") or {}).get("storageClassName") or \
                (tmpl.get("primaryStorage") or {}).get("defaultStorageClassName")
            if sc:
                claim["spec"]["storageClassName"] = sc
            self.kc.create_object("", "persistentvolumeclaims", claim, manager=MANAGER)
        if self.st.get("apps", "deployments", ns, dep_name) is None:
            dep = {"apiVersion": "apps/v1", "kind": "Deployment",
                   "metadata": {"name": dep_name, "namespace": ns, "labels": dict(labels), "ownerReferences": own},
                   "spec": {"replicas": 1, "strategy": {"type": "Recreate"},
                            "selector": {"matchLabels": dict(labels)},
                            "template": self._pod_template(ws, tmpl, pvc)}}
            self.kc.create_object("apps", "deployments", dep, manager=MANAGER)
        if self.st.get("", "services", ns, svc_name) is None:
            svc = {"apiVersion": "v1", "kind": "Service",
                   "metadata": {"name": svc_name, "namespace": ns, "labels": dict(labels), "ownerReferences": own},
                   "spec": {"type": "ClusterIP", "selector": dict(labels),
                            "ports": [{"name": "http", "port": PORT, "targetPort": PORT, "protocol": "TCP"}]}}
            self.kc.create_object("", "services", svc, manager=MANAGER)


def reconcile(ctrl, now):
    Operator(ctrl).reconcile(now)
