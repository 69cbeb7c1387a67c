/*
 * components.c: what HyperPod needs in the cluster besides the add-ons:
 * the NVIDIA and EFA device plugins (their upstream charts by the Helm
 * installer Job) and the health-monitoring agent (HyperPod's own chart's
 * templates), as cluster.create installs them.
 */
#include <stdio.h>
#include <string.h>

#include "cloud/aws_api.h"
#include "lib/json.h"
#include "pipelines/cluster.h"
#include "pipelines/helm.h"
#include "pipelines/pipelines.h"
#include "pipelines/stepkit.h"

/*
 * Device plugins and the health-monitoring agent, as HyperPod's own
 * dependency chart (sagemaker-hyperpod-cli helm_chart/HyperPodHelmChart)
 * deploys them.  The NVIDIA and EFA plugins are their upstream charts,
 * run by the Helm installer Job (pipelines/helm.c) with the values the
 * HyperPod chart gives them: the instance types they belong on and the
 * tolerations of HyperPod's taints.  The health-monitoring agent ships
 * only inside the HyperPod chart, so its templates are applied as they
 * are: ServiceAccount, ClusterRole and binding, and two DaemonSets
 * (NVIDIA and Neuron instance types) of the regional ECR image.
 */
#define NVIDIA_TYPES \
	"ml.g5.xlarge,ml.g5.2xlarge,ml.g5.4xlarge," \
	"ml.g5.8xlarge,ml.g5.12xlarge,ml.g5.16xlarge," \
	"ml.g5.24xlarge,ml.g5.48xlarge,ml.g6.xlarge," \
	"ml.g6.2xlarge,ml.g6.4xlarge,ml.g6.8xlarge," \
	"ml.g6.16xlarge,ml.g6.12xlarge,ml.g6.24xlarge," \
	"ml.g6.48xlarge,ml.g6e.xlarge,ml.g6e.2xlarge," \
	"ml.g6e.4xlarge,ml.g6e.8xlarge,ml.g6e.12xlarge," \
	"ml.g6e.16xlarge,ml.g6e.24xlarge,ml.g6e.48xlarge," \
	"ml.gr6.4xlarge,ml.gr6.8xlarge,ml.p4d.24xlarge," \
	"ml.p4de.24xlarge,ml.p5.4xlarge,ml.p5.48xlarge," \
	"ml.p5e.48xlarge,ml.p5en.48xlarge," \
	"ml.p6-b200.48xlarge,ml.p6e-gb200.36xlarge"
#define EFA_TYPES \
	"ml.c5n.9xlarge,ml.c5n.18xlarge,ml.g5.8xlarge," \
	"ml.g5.12xlarge,ml.g5.16xlarge,ml.g5.24xlarge," \
	"ml.g5.48xlarge,ml.g6.8xlarge,ml.g6.12xlarge," \
	"ml.g6.16xlarge,ml.g6.24xlarge,ml.g6.48xlarge," \
	"ml.g6e.8xlarge,ml.g6e.12xlarge,ml.g6e.16xlarge," \
	"ml.g6e.24xlarge,ml.g6e.48xlarge,ml.gr6.8xlarge," \
	"ml.i3en.large,ml.i3en.xlarge,ml.i3en.2xlarge," \
	"ml.i3en.3xlarge,ml.i3en.6xlarge,ml.i3en.12xlarge," \
	"ml.i3en.24xlarge,ml.m7i.large,ml.m7i.xlarge," \
	"ml.m7i.2xlarge,ml.m7i.4xlarge,ml.m7i.8xlarge," \
	"ml.m7i.12xlarge,ml.m7i.16xlarge,ml.m7i.24xlarge," \
	"ml.m7i.48xlarge,ml.p4d.24xlarge,ml.p4de.24xlarge," \
	"ml.p5.4xlarge,ml.p5.48xlarge,ml.p5e.48xlarge," \
	"ml.p5en.48xlarge,ml.p6-b200.48xlarge," \
	"ml.p6e-gb200.36xlarge,ml.r7i.large,ml.r7i.xlarge," \
	"ml.r7i.2xlarge,ml.r7i.4xlarge,ml.r7i.8xlarge," \
	"ml.r7i.12xlarge,ml.r7i.16xlarge,ml.r7i.24xlarge," \
	"ml.r7i.48xlarge,ml.trn1.32xlarge,ml.trn1n.32xlarge," \
	"ml.trn2.48xlarge"
#define NEURON_TYPES \
	"ml.inf2.xlarge", "ml.inf2.8xlarge", "ml.inf2.24xlarge", \
	    "ml.inf2.48xlarge", "ml.trn1.32xlarge", "ml.trn1n.32xlarge", \
	    "ml.trn2.3xlarge", "ml.trn2.48xlarge"
#define AFFINITY_TYPES \
	"affinity.nodeAffinity." \
	"requiredDuringSchedulingIgnoredDuringExecution." \
	"nodeSelectorTerms[0].matchExpressions[0]."
#define HEALTH_TOL \
	"tolerations[%d].key=sagemaker.amazonaws.com/" \
	"node-health-status"

static const char *const nvidia_sets[] = { AFFINITY_TYPES
	"key=node.kubernetes.io/instance-type",
	AFFINITY_TYPES "operator=In",
	AFFINITY_TYPES "values={" NVIDIA_TYPES "}",
	"tolerations[0].key=nvidia.com/gpu", "tolerations[0].operator=Exists",
	"tolerations[0].effect=NoSchedule",
	"tolerations[1].key=sagemaker.amazonaws.com/node-health-status",
	"tolerations[1].operator=Equal", "tolerations[1].value=Unschedulable",
	"tolerations[1].effect=NoSchedule", NULL };

static const char *const efa_sets[] = {
	"supportedInstanceLabels.values={" EFA_TYPES "}",
	"tolerations[0].key=CriticalAddonsOnly",
	"tolerations[0].operator=Exists",
	"tolerations[1].key=aws.amazon.com/efa",
	"tolerations[1].operator=Exists", "tolerations[1].effect=NoSchedule",
	"tolerations[2].key=sagemaker.amazonaws.com/node-health-status",
	"tolerations[2].operator=Equal", "tolerations[2].value=Unschedulable",
	"tolerations[2].effect=NoSchedule", NULL
};

/* The ECR account of the agent image per region, as the chart maps it. */
static const struct {
	const char *region;
	const char *account;
} hma_accounts[] = { { "us-east-1", "767398015722" },
	{ "us-west-2", "905418368575" }, { "us-east-2", "851725546812" },
	{ "us-west-1", "011528288828" }, { "eu-central-1", "211125453373" },
	{ "eu-north-1", "654654141839" }, { "eu-west-1", "533267293120" },
	{ "eu-west-2", "011528288831" }, { "ap-northeast-1", "533267052152" },
	{ "ap-south-1", "011528288864" }, { "ap-southeast-1", "905418428165" },
	{ "ap-southeast-2", "851725636348" }, { "sa-east-1", "025066253954" },
	{ NULL, NULL } };

#define HMA_NAME "health-monitoring-agent"
#define HMA_NS "aws-hyperpod"
#define HMA_TAG "1.0.1892.0_1.0.424.0"

/* The agent image of region into out; 0, or -1 if HyperPod has none. */
static int
hma_image(const char *region, char *out, size_t outsz)
{
	size_t i;
	int n;

	for (i = 0; hma_accounts[i].region != NULL; i++)
		if (region != NULL &&
		    strcmp(region, hma_accounts[i].region) == 0)
			break;
	if (hma_accounts[i].region == NULL)
		return -1;
	n = snprintf(out, outsz,
	    "%s.dkr.ecr.%s.amazonaws.com/"
	    "hyperpod-health-monitoring-agent:%s",
	    hma_accounts[i].account, region, HMA_TAG);
	return n > 0 && (size_t)n < outsz ? 0 : -1;
}

/* A hostPath volume.  New. */
static json_object *
host_volume(const char *name, const char *path)
{
	return sw_jo("name", sw_js(name), "hostPath",
	    sw_jo("path", sw_js(path), NULL), NULL);
}

/* One DaemonSet of the agent over instance types (a new array).  New. */
static json_object *
hma_daemonset(
    const char *name, const char *image, json_object *types, int neuron)
{
	json_object *env, *labels = sw_jo("app", sw_js(name), NULL);

	env = sw_ja(
	    sw_jo("name", sw_js("NODE_NAME"), "valueFrom",
		sw_jo("fieldRef",
		    sw_jo("fieldPath", sw_js("spec.nodeName"), NULL), NULL),
		NULL),
	    sw_jo("name", sw_js("NODE_IP"), "valueFrom",
		sw_jo("fieldRef",
		    sw_jo("fieldPath", sw_js("status.hostIP"), NULL), NULL),
		NULL));
	if (neuron) {
		json_object_array_add(env,
		    sw_jo("name", sw_js("NVIDIA_VISIBLE_DEVICES"), "value",
			sw_js("void"), NULL));
		json_object_array_add(env,
		    sw_jo("name", sw_js("NVIDIA_DRIVER_CAPABILITIES"), "value",
			sw_js(""), NULL));
	}
	return sw_jo("apiVersion", sw_js("apps/v1"), "kind", sw_js("DaemonSet"),
	    "metadata",
	    sw_jo("name", sw_js(name), "namespace", sw_js(HMA_NS), "labels",
		json_object_get(labels), NULL),
	    "spec",
	    sw_jo("selector",
		sw_jo("matchLabels", json_object_get(labels), NULL), "template",
		sw_jo("metadata", sw_jo("labels", labels, NULL), "spec",
		    sw_jo("affinity",
			sw_jo("nodeAffinity",
			    sw_jo(
				"requiredDuringSchedulingIgnoredDuringExecution",
				sw_jo("nodeSelectorTerms",
				    sw_ja(sw_jo("matchExpressions",
					sw_ja(sw_jo("key",
					    sw_js(
						"node.kubernetes.io/instance-type"),
					    "operator", sw_js("In"), "values",
					    types, NULL)),
					NULL)),
				    NULL),
				NULL),
			    NULL),
			"containers",
			sw_ja(sw_jo("name", sw_js(name), "image", sw_js(image),
			    "args",
			    neuron
				? sw_ja(sw_js("--enable-k8s-exporter=false"),
				      sw_js(
					  "--config.system-log-monitor=/config/"
					  "system-message-monitor.json"))
				: NULL,
			    "resources",
			    sw_jo("limits",
				sw_jo("cpu", sw_js("500m"), "memory",
				    sw_js("512Mi"), NULL),
				"requests",
				sw_jo("cpu", sw_js("500m"), "memory",
				    sw_js("512Mi"), NULL),
				NULL),
			    "imagePullPolicy", sw_js("IfNotPresent"),
			    "securityContext",
			    sw_jo("runAsUser", sw_ji(1000), "runAsGroup",
				sw_ji(2000), NULL),
			    "env", env, "volumeMounts",
			    sw_ja(sw_jo("name", sw_js("log"), "mountPath",
				      sw_js("/var/log"), NULL),
				sw_jo("name", sw_js("kmsg"), "mountPath",
				    sw_js("/dev/kmsg"), "readOnly", sw_jb(1),
				    NULL),
				sw_jo("name", sw_js("localtime"), "mountPath",
				    sw_js("/etc/localtime"), "readOnly",
				    sw_jb(1), NULL)),
			    NULL)),
			"serviceAccountName", sw_js(HMA_NAME), "volumes",
			sw_ja(host_volume("log", "/var/log/"),
			    host_volume("kmsg", "/dev/kmsg"),
			    host_volume("localtime", "/etc/localtime")),
			"tolerations",
			sw_ja(sw_jo("effect", sw_js("NoSchedule"), "operator",
				  sw_js("Exists"), NULL),
			    sw_jo("effect", sw_js("NoExecute"), "operator",
				sw_js("Exists"), NULL)),
			NULL),
		    NULL),
		NULL),
	    NULL);
}

/* Instance types of a comma list as a new array. */
static json_object *
type_array(const char *list)
{
	json_object *a = json_object_new_array();
	const char *p = list, *c;

	while (*p != '\0') {
		c = strchr(p, ',');
		if (c == NULL)
			c = p + strlen(p);
		json_object_array_add(
		    a, json_object_new_string_len(p, (int)(c - p)));
		p = *c == ',' ? c + 1 : c;
	}
	return a;
}

/* The agent's objects in apply order (a new array), NULL if the region
 * has no agent image. */
static json_object *
health_agent(const char *region)
{
	static const char *const neuron[] = { NEURON_TYPES, NULL };
	json_object *list, *types;
	char image[256];
	size_t i;

	if (hma_image(region, image, sizeof(image)) != 0)
		return NULL;
	types = json_object_new_array();
	for (i = 0; neuron[i] != NULL; i++)
		json_object_array_add(types, sw_js(neuron[i]));
	list = sw_ja(
	    sw_jo("apiVersion", sw_js("v1"), "kind", sw_js("Namespace"),
		"metadata", sw_jo("name", sw_js(HMA_NS), NULL), NULL),
	    sw_jo("apiVersion", sw_js("rbac.authorization.k8s.io/v1"), "kind",
		sw_js("ClusterRole"), "metadata",
		sw_jo("name", sw_js(HMA_NAME), NULL), "rules",
		sw_ja(sw_jo("apiGroups", sw_ja(sw_js("")), "resources",
			  sw_ja(sw_js("nodes")), "verbs", sw_ja(sw_js("get")),
			  NULL),
		    sw_jo("apiGroups", sw_ja(sw_js("")), "resources",
			sw_ja(sw_js("nodes"), sw_js("nodes/status")), "verbs",
			sw_ja(sw_js("patch")), NULL),
		    sw_jo("apiGroups", sw_ja(sw_js(""), sw_js("events.k8s.io")),
			"resources", sw_ja(sw_js("events")), "verbs",
			sw_ja(sw_js("create"), sw_js("patch"), sw_js("update")),
			NULL)),
		NULL),
	    sw_jo("apiVersion", sw_js("v1"), "kind", sw_js("ServiceAccount"),
		"metadata",
		sw_jo(
		    "name", sw_js(HMA_NAME), "namespace", sw_js(HMA_NS), NULL),
		NULL),
	    sw_jo("apiVersion", sw_js("rbac.authorization.k8s.io/v1"), "kind",
		sw_js("ClusterRoleBinding"), "metadata",
		sw_jo("name", sw_js(HMA_NAME), NULL), "roleRef",
		sw_jo("apiGroup", sw_js("rbac.authorization.k8s.io"), "kind",
		    sw_js("ClusterRole"), "name", sw_js(HMA_NAME), NULL),
		"subjects",
		sw_ja(sw_jo("kind", sw_js("ServiceAccount"), "name",
		    sw_js(HMA_NAME), "namespace", sw_js(HMA_NS), NULL)),
		NULL),
	    hma_daemonset(HMA_NAME, image, type_array(NVIDIA_TYPES), 0),
	    hma_daemonset(HMA_NAME "-non-nvidia", image, types, 1));
	return list;
}

/* The health agent's objects, applied as HyperPod's chart has them. */
enum sw_step_rc
sw_apply_health_agent(struct sw_step *s)
{
	struct sw_kube kb;
	json_object *list;
	enum sw_step_rc rc = STEP_DONE;
	size_t i;

	if (sw_res_get(s, "health_agent") != NULL)
		return STEP_DONE;
	if ((list = health_agent(s->aws->region)) == NULL)
		return sw_step_fail(s,
		    "HyperPod has no health-monitoring agent "
		    "image in region %s",
		    s->aws->region);
	rc = sw_kube_open(s, CLUSTER(s), &kb);
	for (i = 0; rc == STEP_DONE && i < json_object_array_length(list); i++)
		rc = sw_kube_apply(s, &kb, json_object_array_get_idx(list, i));
	json_object_put(list);
	sw_kube_close(&kb);
	if (rc == STEP_DONE && !s->plan)
		sw_res_set(s, "health_agent", "applied");
	return rc;
}

/*
 * The device plugins by their Helm Jobs, one after the other.  A Job's
 * pod needs a node to run on, so this runs once the HyperPod nodes are
 * Ready.  Each done part is recorded, so a resumed stage goes on from
 * where it was.
 */
enum sw_step_rc
sw_install_device_plugins(struct sw_step *s)
{
	static const struct {
		enum sw_helm_chart chart;
		const char *flag;
		const char *const *sets;
	} plugins[] = {
		{ SW_HELM_NVIDIA, "device_plugin.nvidia", nvidia_sets },
		{ SW_HELM_EFA, "device_plugin.efa", efa_sets },
	};
	struct sw_kube kb;
	enum sw_step_rc rc = STEP_DONE;
	size_t i;

	TRY(sw_kube_open(s, CLUSTER(s), &kb));
	for (i = 0; rc == STEP_DONE && i < sizeof(plugins) / sizeof(plugins[0]);
	     i++) {
		if (sw_res_get(s, plugins[i].flag) != NULL)
			continue;
		rc = sw_helm_run(s, &kb, plugins[i].chart, 1, plugins[i].sets);
		if (rc == STEP_DONE && !s->plan)
			sw_res_set(s, plugins[i].flag, "deployed");
	}
	sw_kube_close(&kb);
	return rc;
}
