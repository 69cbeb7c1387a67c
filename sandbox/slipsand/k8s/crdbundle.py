"""Upstream CustomResourceDefinitions, built from the schema bundles in ../shared.

The bundles (`testdata/crds/*.json`, see their README) hold each served
version's `openAPIV3Schema` as published upstream; they carry no names or
scope, so the table below says, per kind, what the upstream CRD's `names`
and `scope` are.  `crds(bundle)` returns CustomResourceDefinition objects
ready to store, the first listed version being the storage version.

When the bundles are absent (no ../shared beside the project), `available()`
is False and callers say so at start; they must not fall back to a
schema-less CRD, since a real cluster never has one.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))

# kind -> (plural, scope, shortNames, categories, scale subresource paths or None)
NAMES = {
    "HyperPodPyTorchJob": ("hyperpodpytorchjobs", "Namespaced", ("hpj",), (), None),
    "InferenceEndpointConfig": ("inferenceendpointconfigs", "Namespaced", (), (), None),
    "JumpStartModel": ("jumpstartmodels", "Namespaced", (), (), None),
    "RayCluster": ("rayclusters", "Namespaced", (), ("all",), None),
    "RayJob": ("rayjobs", "Namespaced", (), ("all",), None),
    "RayService": ("rayservices", "Namespaced", (), ("all",), None),
    "ScaledObject": ("scaledobjects", "Namespaced", ("so",), ("keda", "scaledobject"), None),
    "NodePool": ("nodepools", "Cluster", (), ("karpenter",),
                 (".spec.replicas", ".status.nodes", None)),
    "HyperpodNodeClass": ("hyperpodnodeclasses", "Cluster", (), ("karpenter",), None),
}

# Storage version per group where a bundle serves more than one.
STORAGE = {"inference.sagemaker.aws.amazon.com": "v1", "ray.io": "v1"}

_cache = {}


def bundle_dir():
    """The testdata/crds directory beside the project, or None."""
    env = os.environ.get("SLIPSAND_CRDS")
    for cand in ([env] if env else []) + [
            os.path.join(PROJECT_ROOT, "..", "shared", "testdata", "crds"),
            os.path.join(PROJECT_ROOT, "shared", "testdata", "crds")]:
        if cand and os.path.isdir(cand):
            return os.path.abspath(cand)
    return None


def available():
    return bundle_dir() is not None


def load(bundle):
    """The parsed bundle `bundle` (file name without .json); None when absent."""
    if bundle in _cache:
        return _cache[bundle]
    d = bundle_dir()
    doc = None
    if d and os.path.exists(os.path.join(d, bundle + ".json")):
        with open(os.path.join(d, bundle + ".json")) as f:
            doc = json.load(f)
    _cache[bundle] = doc
    return doc


def crds(bundle, kinds=None):
    """CRD objects for the kinds of `bundle` (all, or those named in `kinds`)."""
    doc = load(bundle)
    if doc is None or doc.get("mode") != "crd":
        return []
    by_kind = {}
    for key, schema in doc["kinds"].items():
        group_version, kind = key.rsplit("/", 1)
        group, version = group_version.rsplit("/", 1)
        if kinds and kind not in kinds:
            continue
        by_kind.setdefault((group, kind), []).append((version, schema))
    out = []
    for (group, kind), versions in sorted(by_kind.items()):
        plural, scope, short, categories, scale = NAMES[kind]
        storage = STORAGE.get(group, versions[0][0])
        vs = []
        for version, schema in versions:
            sub = {"status": {}}
            if scale:
                sub["scale"] = {"specReplicasPath": scale[0], "statusReplicasPath": scale[1]}
                if scale[2]:
                    sub["scale"]["labelSelectorPath"] = scale[2]
            vs.append({"name": version, "served": True, "storage": version == storage,
                       "subresources": sub, "schema": {"openAPIV3Schema": schema}})
        vs.sort(key=lambda v: not v["storage"])
        names = {"kind": kind, "plural": plural, "singular": kind.lower(), "listKind": kind + "List"}
        if short:
            names["shortNames"] = list(short)
        if categories:
            names["categories"] = list(categories)
        out.append({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                    "metadata": {"name": "%s.%s" % (plural, group)},
                    "spec": {"group": group, "names": names, "scope": scope, "versions": vs}})
    return out
