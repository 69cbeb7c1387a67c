/*
 * volumes.c: the static PersistentVolume and its claim (see volumes.h).
 * Both are ReadWriteMany with no storage class, so Kubernetes binds
 * the claim to this volume and provisions nothing.
 */
#include "cloud/kube.h"
#include "lib/json.h"
#include "pipelines/volumes.h"

/* Slipway's managed-by label when flag is set in flags, else NULL. */
static json_object *
pv_labels(unsigned flags, unsigned flag)
{
	if (!(flags & flag))
		return NULL;
	return sw_jo(SW_KUBE_MANAGED_BY, sw_js("slipway"), NULL);
}

void
sw_pv_pair_build(
    const struct sw_pv_pair *p, json_object **pv, json_object **pvc)
{
	*pv = sw_jo("apiVersion", sw_js("v1"), "kind",
	    sw_js("PersistentVolume"), "metadata",
	    sw_jo("name", sw_js(p->pv), "labels",
		pv_labels(p->flags, SW_PV_LABELLED), NULL),
	    "spec",
	    sw_jo("capacity", p->capacity, "accessModes",
		sw_ja(sw_js("ReadWriteMany")), "storageClassName", sw_js(""),
		"persistentVolumeReclaimPolicy",
		p->flags & SW_PV_RETAIN ? sw_js("Retain") : NULL,
		"mountOptions", p->mount_options, "claimRef",
		sw_jo("namespace", sw_js(p->ns), "name", sw_js(p->claim), NULL),
		"csi", p->csi, NULL),
	    NULL);
	*pvc = sw_jo("apiVersion", sw_js("v1"), "kind",
	    sw_js("PersistentVolumeClaim"), "metadata",
	    sw_jo("name", sw_js(p->claim), "namespace", sw_js(p->ns), "labels",
		pv_labels(p->flags, SW_PVC_LABELLED), NULL),
	    "spec",
	    sw_jo("accessModes", sw_ja(sw_js("ReadWriteMany")),
		"storageClassName", sw_js(""), "volumeName", sw_js(p->pv),
		"resources",
		sw_jo("requests", sw_jo("storage", sw_js(p->request), NULL),
		    NULL),
		NULL),
	    NULL);
}
