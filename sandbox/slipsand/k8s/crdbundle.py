"""Upstream CustomResourceDefinitions, built from the schema bundles in ../shared.

The bundles (`testdata/crds/*.json`, see their README) hold each served
version's `openAPIV3Schema` as published upstream, and each CRD schema
carries `x-crdcheck-crd` (`{name, scope, storage}`): the CRD's name (plural
and group), its scope and whether that version is the storage version.
`crds(bundle)` builds CustomResourceDefinition objects from that alone, so a
kind added to a bundle is served as it is.  Upstream facts a bundle does not
carry (short names, categories, the scale subresource) come from EXTRAS
when known; a kind missing there simply has none.

When the bundles are absent (no ../shared beside the project), `available()`
is False and callers say so at start; they must not fall back to a
schema-less CRD, since a real cluster never has one.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))

# CRD name -> (shortNames, categories, scale subresource paths or None), from the upstream CRDs.
EXTRAS = {
    "hyperpodpytorchjobs.sagemaker.amazonaws.com": (("hpj",), (), None),
    "rayclusters.ray.io": ((), ("all",), None),
    "rayjobs.ray.io": ((), ("all",), None),
    "rayservices.ray.io": ((), ("all",), None),
    "scaledobjects.keda.sh": (("so",), ("keda", "scaledobject"), None),
    "nodepools.karpenter.sh": ((), ("karpenter",), (".spec.replicas", ".status.nodes", None)),
    "hyperpodnodeclasses.karpenter.sagemaker.amazonaws.com": ((), ("karpenter",), None),
    "clusterqueues.kueue.x-k8s.io": (("cq",), (), None),
    "localqueues.kueue.x-k8s.io": (("queue", "queues"), (), None),
    "workloads.kueue.x-k8s.io": (("kwl", "kueueworkload"), (), None),
    "resourceflavors.kueue.x-k8s.io": (("flavor", "flavors"), (), None),
    "workloadpriorityclasses.kueue.x-k8s.io": (("wpc",), (), None),
}

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


def bundle_names():
    """The bundles present in testdata/crds (file names without .json), sorted."""
    d = bundle_dir()
    if not d:
        return []
    return sorted(f[:-5] for f in os.listdir(d) if f.endswith(".json"))


def crds(bundle, kinds=None):
    """CRD objects for the kinds of `bundle` (all, or those named in `kinds`).

    Names, scope and the storage version come from each schema's
    `x-crdcheck-crd`; a version without it is skipped (the bundle is not a
    CRD bundle).  The storage version is listed first.
    """
    doc = load(bundle)
    if doc is None or doc.get("mode") != "crd":
        return []
    by_name = {}
    for key, schema in doc["kinds"].items():
        group_version, kind = key.rsplit("/", 1)
        group, version = group_version.rsplit("/", 1)
        meta = schema.get("x-crdcheck-crd") if isinstance(schema, dict) else None
        if (kinds and kind not in kinds) or not isinstance(meta, dict) or not meta.get("name"):
            continue
        by_name.setdefault(meta["name"], (group, kind, meta.get("scope") or "Namespaced", []))[3].append(
            (version, bool(meta.get("storage")), schema))
    out = []
    for name, (group, kind, scope, versions) in sorted(by_name.items()):
        plural = name.split(".", 1)[0]
        if not any(st for _, st, _ in versions):
            versions[0] = (versions[0][0], True, versions[0][2])
        short, categories, scale = EXTRAS.get(name, ((), (), None))
        vs = []
        for version, storage, schema in versions:
            sub = {"status": {}}
            if scale:
                sub["scale"] = {"specReplicasPath": scale[0], "statusReplicasPath": scale[1]}
                if scale[2]:
                    sub["scale"]["labelSelectorPath"] = scale[2]
            vs.append({"name": version, "served": True, "storage": storage,
                       "subresources": sub, "schema": {"openAPIV3Schema": schema}})
        vs.sort(key=lambda v: not v["storage"])
        names = {"kind": kind, "plural": plural, "singular": kind.lower(), "listKind": kind + "List"}
        if short:
            names["shortNames"] = list(short)
        if categories:
            names["categories"] = list(categories)
        out.append({"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
                    "metadata": {"name": name},
                    "spec": {"group": group, "names": names, "scope": scope, "versions": vs}})
    return out
