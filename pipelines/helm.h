/*
 * helm.h: components that ship only as Helm charts are installed the way
 * a real cluster gets them, by a Helm installer Job in kube-system that
 * runs the pinned chart, the contract the sandbox simulates.  One
 * table row per chart; stages install and uninstall by enum and follow
 * the Job to its end.
 */
#ifndef SW_HELM_H
#define SW_HELM_H

#include "pipelines/stepkit.h"

enum sw_helm_chart {
	SW_HELM_KUBERAY, /* kuberay-operator, ray-system */
	SW_HELM_LBC, /* aws-load-balancer-controller */
	SW_HELM_NVIDIA, /* nvidia-device-plugin */
	SW_HELM_EFA, /* aws-efa-k8s-device-plugin */
	SW_HELM__MAX
};

struct sw_helm_release {
	const char *release;
	const char *chart;
	const char *repo;
	const char *version;
	const char *ns;
};

/* The pinned row of a chart (static storage). */
const struct sw_helm_release *sw_helm_release_of(enum sw_helm_chart);

/*
 * Install (install != 0: helm upgrade --install with the NULL-ended
 * "KEY=VALUE" sets, which may be NULL) or uninstall the chart through
 * its Job, and follow it: STEP_DONE once the Job is Complete, STEP_WAIT
 * while it runs, STEP_FAIL with the helm error line from the pod's log
 * once it is Failed.  A finished Job left by an earlier operation is
 * deleted first, so each operation runs the release afresh.  In plan
 * mode the ServiceAccount, binding and Job are recorded.  kb is
 * borrowed.
 */
enum sw_step_rc sw_helm_run(struct sw_step *, struct sw_kube *kb,
    enum sw_helm_chart, int install, const char *const *sets);

/*
 * Is the release deployed?  Reads Helm's own record, the Secret
 * sh.helm.release.v1.RELEASE.v1 in the release namespace: 1 yes, 0 no,
 * -1 on a read error (the step is then waiting, msg set).
 */
int sw_helm_deployed(struct sw_step *, struct sw_kube *kb, enum sw_helm_chart);

/*
 * The AWS Load Balancer Controller of cluster (pipelines/lbc.c): IAM
 * role with the controller's policy, pod identity association for
 * kube-system/aws-load-balancer-controller, then the chart by its Helm
 * Job.  STEP_DONE once the release is deployed, STEP_WAIT while it is
 * being installed (msg says how far), STEP_FAIL on a refusal.
 */
enum sw_step_rc sw_lbc_ensure(
    struct sw_step *, struct sw_kube *kb, const char *cluster);

#endif
