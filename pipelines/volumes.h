/*
 * volumes.h: the static PersistentVolume and the claim bound to it, the
 * pair a cluster's storage (pipelines/cluster.c), a storage attachment
 * (pipelines/storage.c) and a workload's mirror of the default claim
 * (handlers/kube.c) apply.  Builds manifests only; talks to no server.
 */
#ifndef SW_PIPELINES_VOLUMES_H
#define SW_PIPELINES_VOLUMES_H

#include <json-c/json.h>

/* Flags of struct sw_pv_pair. */
#define SW_PV_RETAIN 0x1 /* the volume outlives its claim */
#define SW_PV_LABELLED \
	0x2 /* the volume carries Slipway's
					 * managed-by label */
#define SW_PVC_LABELLED 0x4 /* so does the claim */

/* A static ReadWriteMany volume pv bound to claim ns/claim. */
struct sw_pv_pair {
	const char *pv; /* the volume's name */
	const char *ns; /* the claim's namespace */
	const char *claim; /* and name */
	json_object *capacity; /* the volume's capacity (stolen) */
	const char *request; /* the storage the claim requests */
	json_object *mount_options; /* stolen, or NULL for none */
	json_object *csi; /* the CSI source (stolen) */
	unsigned flags; /* SW_PV_* */
};

/* The volume and the claim of p, each new; p's stolen members are
 * taken whatever happens. */
void sw_pv_pair_build(
    const struct sw_pv_pair *p, json_object **pv, json_object **pvc);

#endif
