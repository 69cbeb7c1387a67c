"""What well-known container images contain, for the sandbox kubelet.

A real kubelet asks containerd to start a container; runc then execs the
container's command[0] (or the image's ENTRYPOINT when the pod gives only
args) inside the image.  When that file is not in the image the container
never starts: the status says StartError with runc's message, and the pod
goes to CrashLoopBackOff (restartPolicy Always/OnFailure) or Failed (Never).

This module is the sandbox's stand-in for the image filesystem: a small
catalogue of the images Slipway and the add-ons it installs use, each with
the executables on its PATH and the Python modules it can run with
`python3 -m`.  References are parsed the way the kubelet's reference
parser does (docker.io default registry, library/ for one-word names,
latest as default tag, digests ignored).  An image that is not in the
catalogue runs anything: the sandbox only refuses what it knows.

check(container) returns None when the container can start, or a dict
describing how the real runtime fails it (see failure_status()).  A
`sh -c` script is followed segment by segment: a command that is not on
PATH makes the shell exit 127, and `python3 -m pip install <package>`
puts what the package provides (PIP_PROVIDES) on PATH for what follows,
so the elastic-agent install line is judged like the real thing.
"""
import fnmatch
import posixpath
import re
import shlex

DEFAULT_PATH = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")
CONDA_PATH = ("/opt/conda/bin",) + DEFAULT_PATH
PY_BINS = {"sh", "bash", "python", "python3", "pip", "pip3", "env", "cat", "ls", "sleep"}
TORCH_BINS = PY_BINS | {"torchrun"}


def _row(repo, source, bins=(), modules=(), entrypoint=None, path=DEFAULT_PATH, tags="*"):
    return {"repo": repo, "source": source, "bins": set(bins), "modules": set(modules),
            "entrypoint": list(entrypoint) if entrypoint else None, "path": path, "tags": tags,
            "releases": RELEASES.get(repo)}


# Where the known tags of a repository come from.  A repository listed
# here is checked at pull time: a tag that matches none of its release
# patterns was never published, and the kubelet's pull fails
# (ErrImagePull, then ImagePullBackOff), so a typo in a default image
# cannot pass.  Each entry is (regular expression over the whole tag,
# provenance).  A repository not listed here pulls any tag.  A new
# upstream release is added here when Slipway adopts it.
_PY = r"(-py3(9|10|11|12))?"
_RAY_HW = r"(-(cpu|gpu|cu11[78]|cu12[1-9]))?(-aarch64)?"
RELEASES = {
    "docker.io/vllm/vllm-openai": [
        (r"v0\.(2\.[0-7]|3\.[0-3]|4\.(0|0\.post1|1|2|3)|5\.(0|0\.post1|1|2|3|3\.post1|4|5)"
         r"|6\.(0|1|1\.post1|1\.post2|2|3|3\.post1|4|4\.post1|5|6|6\.post1)|7\.[0-3]|8\.([0-5]|5\.post1)"
         r"|9\.(0|0\.1|1|2)|10\.(0|1|1\.1|2)|11\.0)",
         "vLLM GitHub release of that version, image pushed to Docker Hub vllm/vllm-openai by the vLLM "
         "release pipeline"),
        (r"latest|nightly", "vLLM project, Docker Hub vllm/vllm-openai (moving tag)")],
    "docker.io/rayproject/ray": [
        (r"2\.([0-9]\.[0-3]|1[0-2]\.[0-1]|2[0-4]\.0|3[0-5]\.0|36\.[01]|3[7-9]\.0|4[0-1]\.0|42\.[01]|43\.0"
         r"|44\.[01]|45\.0|46\.0|47\.[01]|48\.0|49\.[0-2]|50\.[01]|51\.[01]|52\.0)" + _PY + _RAY_HW,
         "Ray GitHub release of that version, image pushed to Docker Hub rayproject/ray by the Ray release "
         "pipeline (python and CUDA variants as suffixes)"),
        (r"(latest|nightly)" + _PY + _RAY_HW, "Ray project, Docker Hub rayproject/ray (moving tag)")],
    "docker.io/rayproject/ray-ml": [
        (r"2\.([0-9]\.[0-3]|1[0-2]\.[0-1]|2[0-4]\.0|3[0-5]\.0|36\.[01]|3[7-9]\.0|4[0-1]\.0|42\.[01]|43\.0"
         r"|44\.[01]|45\.0|46\.0|47\.[01]|48\.0|49\.[0-2]|50\.[01]|51\.[01]|52\.0)" + _PY + _RAY_HW,
         "Ray GitHub release of that version, Docker Hub rayproject/ray-ml"),
        (r"(latest|nightly)" + _PY + _RAY_HW, "Ray project, Docker Hub rayproject/ray-ml (moving tag)")],
    "docker.io/pytorch/pytorch": [
        (r"2\.7\.[01]-cuda(11\.8|12\.6|12\.8)-cudnn9-(runtime|devel)"
         r"|2\.8\.0-cuda(12\.6|12\.8|12\.9)-cudnn9-(runtime|devel)"
         r"|2\.9\.[01]-cuda(12\.6|12\.8|13\.0)-cudnn9-(runtime|devel)"
         r"|2\.6\.0-cuda(11\.8|12\.4|12\.6)-cudnn9-(runtime|devel)"
         r"|2\.5\.[01]-cuda(11\.8|12\.1|12\.4)-cudnn9-(runtime|devel)"
         r"|2\.4\.[01]-cuda(11\.8|12\.1|12\.4)-cudnn9-(runtime|devel)"
         r"|2\.[0-3]\.[0-1]-cuda(11\.7|11\.8|12\.1)-cudnn8-(runtime|devel)",
         "PyTorch release of that version, image pushed to Docker Hub pytorch/pytorch by the PyTorch "
         "release workflow (one tag per CUDA and cuDNN build, runtime or devel; no bare version tags)"),
        (r"latest", "PyTorch project, Docker Hub pytorch/pytorch (moving tag)")],
}


# One row per image repository.  "repo" is the normalised name (registry
# included) and may hold fnmatch wildcards for per-region ECR registries.
CATALOGUE = [
    # training
    _row("docker.io/pytorch/pytorch", "PyTorch project (conda, torch, torchrun)",
         TORCH_BINS | {"conda"}, {"torch", "pip"}, path=CONDA_PATH),
    _row("docker.io/hiyouga/llamafactory", "LLaMA-Factory project",
         TORCH_BINS | {"llamafactory-cli"}, {"torch", "pip", "llamafactory"}),
    _row("docker.io/modelscope/ms-swift", "ModelScope MS-Swift project",
         TORCH_BINS | {"swift"}, {"torch", "pip", "swift"}),
    _row("docker.io/verlai/verl", "verl project (Ray, vLLM, Megatron)",
         TORCH_BINS | {"ray", "vllm"}, {"torch", "pip", "verl", "ray", "vllm"}),
    _row("docker.io/rayproject/ray", "Ray project (ray CLI, no PyTorch)",
         PY_BINS | {"ray", "conda"}, {"pip", "ray"}, path=("/home/ray/anaconda3/bin",) + DEFAULT_PATH),
    _row("docker.io/rayproject/ray-ml", "Ray project, ML libraries (torch)",
         TORCH_BINS | {"ray", "conda"}, {"pip", "ray", "torch"}, path=("/home/ray/anaconda3/bin",) + DEFAULT_PATH),
    _row("763104351884.dkr.ecr.*.amazonaws.com/pytorch-training", "AWS Deep Learning Containers",
         TORCH_BINS | {"conda"}, {"torch", "pip"}, path=CONDA_PATH),
    # inference
    _row("docker.io/vllm/vllm-openai", "vLLM project",
         PY_BINS | {"vllm"}, {"pip", "vllm", "torch"},
         entrypoint=["python3", "-m", "vllm.entrypoints.openai.api_server"]),
    _row("docker.io/lmcache/vllm-openai", "LMCache project (vLLM + LMCache)",
         PY_BINS | {"vllm"}, {"pip", "vllm", "torch", "lmcache"}, entrypoint=["vllm", "serve"]),
    _row("docker.io/lmsysorg/sglang", "SGLang project",
         PY_BINS, {"pip", "sglang", "torch"}),
    _row("763104351884.dkr.ecr.*.amazonaws.com/djl-inference", "AWS Deep Learning Containers (DJL)",
         PY_BINS | {"djl-serving", "dockerd-entrypoint.sh"}, {"pip", "torch"}, entrypoint=["/usr/local/bin/dockerd-entrypoint.sh"]),
    # utilities
    _row("docker.io/library/python", "Docker official image",
         PY_BINS, {"pip", "venv"}, entrypoint=None),
    _row("docker.io/alpine/helm", "alpine/helm (Helm CLI on Alpine)",
         {"helm", "sh", "cat", "ls", "sleep", "env"}, (), entrypoint=["helm"]),
    _row("docker.io/library/alpine", "Docker official image", {"sh", "cat", "ls", "sleep", "env"}),
    _row("docker.io/library/busybox", "Docker official image", {"sh", "cat", "ls", "sleep", "env"}),
    # operators and node agents Slipway or the add-ons install (no shell)
    _row("quay.io/kuberay/operator", "KubeRay project", {"manager"}, entrypoint=["/manager"], path=("/",)),
    _row("quay.io/jetstack/cert-manager-controller", "cert-manager project",
         {"controller"}, entrypoint=["/app/cmd/controller/controller"], path=("/app/cmd/controller",)),
    _row("quay.io/jetstack/cert-manager-cainjector", "cert-manager project",
         {"cainjector"}, entrypoint=["/app/cmd/cainjector/cainjector"], path=("/app/cmd/cainjector",)),
    _row("quay.io/jetstack/cert-manager-webhook", "cert-manager project",
         {"webhook"}, entrypoint=["/app/cmd/webhook/webhook"], path=("/app/cmd/webhook",)),
    _row("registry.k8s.io/kueue/kueue", "Kubernetes SIG Scheduling", {"manager"},
         entrypoint=["/manager"], path=("/",)),
    _row("registry.k8s.io/metrics-server/metrics-server", "Kubernetes SIG Instrumentation",
         {"metrics-server"}, entrypoint=["/metrics-server"], path=("/",)),
    _row("nvcr.io/nvidia/k8s-device-plugin", "NVIDIA", {"nvidia-device-plugin", "sh"},
         entrypoint=["nvidia-device-plugin"]),
    _row("602401143452.dkr.ecr.*.amazonaws.com/eks/aws-efa-k8s-device-plugin", "Amazon EKS",
         {"efa-k8s-device-plugin"}, entrypoint=["/usr/bin/efa-k8s-device-plugin"]),
    _row("public.ecr.aws/sagemaker/hyperpod-health-monitoring-agent", "Amazon SageMaker HyperPod",
         {"health-monitoring-agent"}, entrypoint=["/usr/bin/health-monitoring-agent"]),
    _row("602401143452.dkr.ecr.*.amazonaws.com/hyperpod-training-operator", "Amazon SageMaker HyperPod",
         {"manager"}, entrypoint=["/manager"], path=("/",)),
    _row("602401143452.dkr.ecr.*.amazonaws.com/hyperpod-inference-operator", "Amazon SageMaker HyperPod",
         {"manager"}, entrypoint=["/manager"], path=("/",)),
    _row("602401143452.dkr.ecr.*.amazonaws.com/hyperpod-observability", "Amazon SageMaker HyperPod",
         {"collector"}, entrypoint=["/collector"], path=("/",)),
    _row("602401143452.dkr.ecr.*.amazonaws.com/amazon-k8s-cni", "Amazon VPC CNI",
         {"aws-vpc-cni", "aws-k8s-agent", "sh", "bash"}, entrypoint=["/app/aws-vpc-cni"], path=("/app",) + DEFAULT_PATH),
    _row("602401143452.dkr.ecr.*.amazonaws.com/eks/kube-proxy", "Amazon EKS", {"kube-proxy", "sh"},
         entrypoint=["kube-proxy"]),
    _row("602401143452.dkr.ecr.*.amazonaws.com/eks/coredns", "Amazon EKS", {"coredns"},
         entrypoint=["/coredns"], path=("/",)),
    _row("602401143452.dkr.ecr.*.amazonaws.com/eks/eks-pod-identity-agent", "Amazon EKS",
         {"go-runner", "eks-pod-identity-agent"}, entrypoint=["/go-runner", "/eks-pod-identity-agent"], path=("/",)),
    _row("602401143452.dkr.ecr.*.amazonaws.com/eks/aws-fsx-csi-driver", "Amazon EKS",
         {"aws-fsx-csi-driver"}, entrypoint=["/bin/aws-fsx-csi-driver"]),
    _row("602401143452.dkr.ecr.*.amazonaws.com/eks/aws-ebs-csi-driver", "Amazon EKS",
         {"aws-ebs-csi-driver"}, entrypoint=["/bin/aws-ebs-csi-driver"]),
    _row("public.ecr.aws/mountpoint-s3-csi-driver/aws-mountpoint-s3-csi-driver", "Mountpoint for S3 CSI driver",
         {"aws-s3-csi-driver", "mount-s3"}, entrypoint=["/bin/aws-s3-csi-driver"]),
    _row("public.ecr.aws/cloudwatch-agent/cloudwatch-agent", "Amazon CloudWatch",
         {"start-amazon-cloudwatch-agent"}, entrypoint=["/opt/aws/amazon-cloudwatch-agent/bin/start-amazon-cloudwatch-agent"],
         path=("/opt/aws/amazon-cloudwatch-agent/bin",) + DEFAULT_PATH),
]


def parse_reference(ref):
    """(registry/repository, tag) of an image reference, as the kubelet
    normalises it: docker.io is the default registry, one-word names live
    under library/, the tag defaults to latest, a digest is dropped."""
    ref = str(ref or "")
    name = ref.split("@", 1)[0]
    tag = "latest"
    slash = name.rfind("/")
    colon = name.rfind(":")
    if colon > slash:
        name, tag = name[:colon], name[colon + 1:]
    first, _, rest = name.partition("/")
    if not rest or ("." not in first and ":" not in first and first != "localhost"):
        domain, path = "docker.io", name
    else:
        domain, path = first, rest
    if domain in ("index.docker.io", "registry-1.docker.io"):
        domain = "docker.io"
    if domain == "docker.io" and "/" not in path:
        path = "library/" + path
    return "%s/%s" % (domain, path), tag


def provenance(image):
    """Where a known tag comes from, or None (unknown repository or tag)."""
    repo, tag = parse_reference(image)
    for pattern, where in RELEASES.get(repo) or []:
        if re.fullmatch(pattern, tag):
            return where
    return None


def pull_problem(image):
    """None when the image can be pulled, else containerd's error text for
    a tag that a catalogued repository never published (not found)."""
    repo, tag = parse_reference(image)
    if "@" in str(image or "") or repo not in RELEASES or provenance(image) is not None:
        return None
    ref = "%s:%s" % (repo, tag)
    return ('rpc error: code = NotFound desc = failed to pull and unpack image "%s": failed to resolve '
            'reference "%s": %s: not found' % (ref, ref, ref))


def lookup(image):
    """The catalogue row of an image reference, or None when unknown."""
    repo, tag = parse_reference(image)
    for row in CATALOGUE:
        if fnmatch.fnmatchcase(repo, row["repo"]) and fnmatch.fnmatchcase(tag, row["tags"]):
            return row
    return None


# What `pip install <package>` adds to PATH, for shell scripts that
# install a launcher before running it.
PIP_PROVIDES = {"hyperpod-elastic-agent": {"hyperpodrun"}, "ray": {"ray"},
                "vllm": {"vllm"}, "torch": {"torchrun"}}
# Words a shell runs without looking at PATH.
SHELL_WORDS = {"cd", "echo", "export", "ulimit", "set", "true", "false", "test", "[", "exit", "source", ".",
               "trap", "wait", "printf", "read", "eval", "exec", "shift", "unset", "umask", ":", "while", "do",
               "done", "for", "if", "then", "else", "elif", "fi", "case", "esac", "until", "in", "{", "}",
               "(", ")", "!", "function", "return", "local"}


def _shell_problem(row, script, shell):
    """How `sh -c script` fails in the image: the first command of a
    segment that is not on PATH (exit 127), else None.  A segment
    `python3 -m pip install pkg` puts what pkg provides on PATH for the
    segments after it.  Anything the parse does not understand passes."""
    bins = set(row["bins"])
    for seg in re.split(r"&&|\|\||;|\n|\|", script):
        try:
            words = shlex.split(seg)
        except ValueError:
            return None
        if words and words[0] == "exec":
            words = words[1:]
        if not words or words[0] in SHELL_WORDS or "=" in words[0] or "$" in words[0] or "/" in words[0]:
            continue
        if words[0] not in bins:
            return {"reason": "Error", "exitCode": 127, "start_error": False,
                    "message": "%s: 1: %s: not found" % (shell, words[0])}
        if words[0].startswith("python") and words[1:3] == ["-m", "pip"] and "install" in words:
            if "pip" not in row["modules"]:
                return {"reason": "Error", "exitCode": 1, "start_error": False,
                        "message": "%s: No module named pip" % words[0]}
            for pkg in words[words.index("install") + 1:]:
                bins |= PIP_PROVIDES.get(re.split(r"[=<>!~\[]", pkg)[0], set())
    return None


def _runc_message(detail):
    return ("failed to create containerd task: failed to create shim task: OCI runtime create failed: "
            "runc create failed: unable to start container process: exec: %s: unknown" % detail)


def _exec_problem(row, argv0):
    """runc's complaint about exec'ing argv0 in the image, or None."""
    if "/" in argv0:
        if posixpath.dirname(posixpath.normpath(argv0)) in row["path"] and posixpath.basename(argv0) in row["bins"]:
            return None
        return '"%s": stat %s: no such file or directory' % (argv0, argv0)
    if argv0 in row["bins"]:
        return None
    return '"%s": executable file not found in $PATH' % argv0


def check(container):
    """None when the container's process can start in its image, else
    {"reason", "exitCode", "message", "start_error"}: a StartError (exec
    failed: exit 128, runc's message) or a process that exits at once
    (python3 -m <module the image lacks>: exit 1)."""
    row = lookup(container.get("image"))
    if row is None:
        return None
    cmd = [str(c) for c in container.get("command") or []]
    args = [str(a) for a in container.get("args") or []]
    argv = cmd + args if cmd else list(row["entrypoint"] or []) + args
    if not argv:
        return None
    problem = _exec_problem(row, argv[0])
    if problem is not None:
        return {"reason": "StartError", "exitCode": 128, "start_error": True,
                "message": _runc_message(problem)}
    base = posixpath.basename(argv[0])
    if base in ("sh", "bash") and len(argv) >= 3 and argv[1] in ("-c", "-lc", "-ec"):
        script = argv[3] if argv[2] == "--" and len(argv) >= 4 else argv[2]
        return _shell_problem(row, script, base)
    if base.startswith("python") and len(argv) >= 3 and argv[1] == "-m":
        top = argv[2].split(".", 1)[0]
        if top not in row["modules"]:
            return {"reason": "Error", "exitCode": 1, "start_error": False,
                    "message": "%s: Error while finding module specification for '%s' "
                               "(ModuleNotFoundError: No module named '%s')" % (argv[0], argv[2], top)}
    return None


def failure_status(container, problem, started_at, finished_at, restart_policy, restarts):
    """The containerStatus a real kubelet reports for a container that
    failed with problem: terminated while the pod will not restart it
    (Never), otherwise waiting in CrashLoopBackOff with the failure as
    lastState."""
    term = {"exitCode": problem["exitCode"], "reason": problem["reason"],
            "startedAt": "1970-01-01T00:00:00Z" if problem["start_error"] else started_at,
            "finishedAt": finished_at}
    if problem["start_error"]:
        term["message"] = problem["message"]
    cs = {"name": container["name"], "image": container.get("image"), "ready": False, "started": False,
          "restartCount": restarts}
    if restart_policy == "Never":
        cs["state"] = {"terminated": term}
        cs["lastState"] = {}
    else:
        cs["state"] = {"waiting": {"reason": "CrashLoopBackOff",
                                   "message": "back-off 10s restarting failed container=%s" % container["name"]}}
        cs["lastState"] = {"terminated": term}
    return cs
