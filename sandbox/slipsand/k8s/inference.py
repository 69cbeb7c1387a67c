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
