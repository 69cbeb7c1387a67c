/*
 * kuberay.c: the kuberay feature of feature.set: the kuberay-operator chart
 * by the Helm installer Job, and its removal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/json.h"
#include "lib/url.h"
#include "pipelines/featdefs.h"
#include "pipelines/featkit.h"
#include "pipelines/helm.h"
#include "pipelines/pipelines.h"
#include "pipelines/stepkit.h"

/* ---- KubeRay ------------------------------------------------------- */

/*
 * KubeRay is the kuberay-operator chart, installed and removed by the
 * Helm installer Job (pipelines/helm.c): the chart brings the real ray.io
 * CRDs and the operator's own RBAC.  Slipway writes none of them, so a
 * KubeRay someone else installed is left alone.
 */

/* Is KubeRay there: 1 yes (CRD and operator), 0 no, -1 read error. */
static int
kuberay_present(struct sw_step *s, struct sw_kube *kb)
{
	int crd, dep;

	crd = feat_kube_get(s, kb, "apiextensions.k8s.io/v1", NULL,
	    "customresourcedefinitions", "rayjobs.ray.io", NULL);
	dep = crd < 0 ? -1
		      : feat_kube_get(s, kb, "apps/v1", RAY_NS, "deployments",
			    "kuberay-operator", NULL);
	if (crd < 0 || dep < 0)
		return -1;
	return crd == 1 && dep == 1;
}

enum sw_step_rc
sw_st_kuberay_on(struct sw_step *s)
{
	struct sw_kube kb;
	enum sw_step_rc rc;
	int have;

	if (feat_want(s, SW_FEAT_KUBERAY) != 1)
		return STEP_DONE;
	TRY(feat_kube_open(s, &kb));
	if (sw_res_get(s, "helm-kuberay-operator.job") == NULL) {
		have = kuberay_present(s, &kb);
		if (have != 0) {
			sw_kube_close(&kb);
			return have == 1 ? STEP_DONE
			    : s->plan    ? STEP_FAIL
					 : STEP_WAIT;
		}
	}
	rc = sw_helm_run(s, &kb, SW_HELM_KUBERAY, 1, NULL);
	sw_kube_close(&kb);
	return rc;
}

enum sw_step_rc
sw_st_kuberay_off(struct sw_step *s)
{
	static const char *const kinds[] = { "rayjobs", "rayclusters",
		"rayservices", NULL };
	struct sw_kube kb;
	struct k8s_error ke;
	json_object *out;
	enum sw_step_rc rc;
	char path[256];
	size_t n;
	int i, crdp, rel, dep;

	if (feat_want(s, SW_FEAT_KUBERAY) != 0)
		return STEP_DONE;
	TRY(feat_kube_open(s, &kb));
	if (sw_res_get(s, "helm-kuberay-operator-uninstall.job") == NULL) {
		rel = sw_helm_deployed(s, &kb, SW_HELM_KUBERAY);
		crdp = rel < 0
		    ? -1
		    : feat_kube_get(s, &kb, "apiextensions.k8s.io/v1", NULL,
			  "customresourcedefinitions", "rayjobs.ray.io", NULL);
		if (rel < 0 || crdp < 0) {
			sw_kube_close(&kb);
			return s->plan ? STEP_FAIL : STEP_WAIT;
		}
		if (rel == 0) {
			/* no release of ours: leave another install alone */
			dep = feat_kube_get(s, &kb, "apps/v1", RAY_NS,
			    "deployments", "kuberay-operator", NULL);
			sw_kube_close(&kb);
			if (dep < 0)
				return s->plan ? STEP_FAIL : STEP_WAIT;
			if (dep == 1)
				return sw_step_fail(s,
				    "KubeRay in this cluster "
				    "was not installed by Slipway (no Helm "
				    "release kuberay-operator in %s); remove it "
				    "the way it was installed",
				    RAY_NS);
			return STEP_DONE;
		}
		/* Without the operator, Ray objects would be orphaned. */
		for (i = 0; crdp == 1 && kinds[i] != NULL; i++) {
			if (sw_fmt(path, sizeof(path), "/apis/ray.io/v1/%s",
				kinds[i]) != SW_OK) {
				sw_kube_close(&kb);
				return sw_step_fail(
				    s, "path of %s too long", kinds[i]);
			}
			memset(&ke, 0, sizeof(ke));
			out = NULL;
			s->calls_made++;
			if (k8s_list(&kb.k, path, NULL, &out, &ke) == SW_OK &&
			    (n = json_object_array_length(
				 sw_json_get(out, "items"))) > 0) {
				json_object_put(out);
				sw_kube_close(&kb);
				return sw_step_fail(s,
				    "%zu %s still exist; "
				    "delete them before turning KubeRay off",
				    n, kinds[i]);
			}
			json_object_put(out);
		}
	}
	rc = sw_helm_run(s, &kb, SW_HELM_KUBERAY, 0, NULL);
	sw_kube_close(&kb);
	return rc;
}
