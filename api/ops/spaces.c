/*
 * spaces.c: the operation table's rows for Spaces, HyperPod's
 * development environments (JupyterLab or Code Editor as a jupyter-k8s
 * Workspace): creating, listing, reading with how to connect, stopping,
 * starting and deleting, each beside the fields it reads; and the Space
 * templates (WorkspaceTemplates) a platform keeps.
 */
#include "api/optable.h"
#include "api/ops/ops.h"

static const char *const space_templates[] = { "jupyterlab", "code-editor",
	NULL };

static const char *const space_access[] = { "owner-only", "public", NULL };

/* clang-format off */
static const struct sw_field f_space_path[] = {
	F_CLUSTER_PATH,
	{ .name = "space", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 1, .max = 52,
	  .pattern = PAT_WL_NAME, .desc = "Space name." },
	{ .name = "namespace", .type = SW_T_STRING, .flags = SW_F_QUERY,
	  .min = 1, .max = 63, .pattern = PAT_K8S_NAME,
	  .desc = "Namespace (default: found by name)." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_space_body[] = {
	{ .name = "space", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 52, .pattern = PAT_WL_NAME,
	  .desc = "Space name (DNS label); its Workspace, Deployment "
	  "workspace-<space> and Service are named after it." },
	{ .name = "display_name", .type = SW_T_STRING, .min = 1, .max = 64,
	  .pattern = "[A-Za-z0-9][A-Za-z0-9 '._()-]*",
	  .desc = "Name shown in the UI (default: the space name)." },
	{ .name = "template", .type = SW_T_STRING, .enumv = space_templates,
	  .desc = "jupyterlab (default; the add-on's "
	  "sagemaker-jupyter-template) or code-editor "
	  "(sagemaker-code-editor-template)." },
	{ .name = "image", .type = SW_T_STRING, .min = 1, .max = 255,
	  .pattern = PAT_IMAGE,
	  .desc = "Container image (default: the template's, SageMaker "
	  "Distribution; one of its allowed images, or any when it allows "
	  "custom images)." },
	{ .name = "cpu", .type = SW_T_INT, .min = 1, .max = 192,
	  .desc = "vCPUs requested (default: the template's, 1)." },
	{ .name = "memory_gib", .type = SW_T_INT, .min = 1, .max = 2048,
	  .desc = "Memory requested in GiB (default: the template's, 4)." },
	{ .name = "gpus", .type = SW_T_INT, .min = 0, .max = 64,
	  .desc = "GPUs (nvidia.com/gpu, default 0); no more than the "
	  "largest of the cluster's instance types has." },
	{ .name = "instance_type", .type = SW_T_STRING, .min = 1, .max = 64,
	  .pattern = PAT_ML_TYPE,
	  .desc = "Run only on nodes of this HyperPod instance type." },
	{ .name = "storage_gib", .type = SW_T_INT, .min = 5, .max = 100,
	  .desc = "Home volume size in GiB (default 10; the system "
	  "templates allow 5 to 100)." },
	{ .name = "idle_timeout_minutes", .type = SW_T_INT, .min = 0,
	  .max = 10080,
	  .desc = "Stop the Space after this many minutes without activity "
	  "(idle shutdown; default 60, 0: never).  Its volume stays; "
	  "space_start starts it again." },
	{ .name = "access", .type = SW_T_STRING, .enumv = space_access,
	  .desc = "owner-only (default: only its owner, the person who "
	  "creates it, reaches its URL and may stop, start or delete it) or "
	  "public (everyone of the cluster reaches it; changes stay the "
	  "owner's)." },
	{ .name = "namespace", .type = SW_T_STRING, .min = 1, .max = 63,
	  .pattern = PAT_K8S_NAME, .desc = "Namespace (default 'default', or "
	  "hyperpod-ns-<team> with a team's queue)." },
	F_KUEUE_FIELDS,
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_space_ide[] = {
	OUT_OPT("node", SW_T_STRING, "The Kubernetes node it runs on."),
	OUT_OPT("pod_ip", SW_T_STRING, "Its pod's address."),
	OUT_OPT("ssm_target", SW_T_STRING, "The node as Session Manager "
	    "names it (sagemaker-cluster:<cluster-id>_<group>-<instance>)."),
	OUT_OPT("ssm_command", SW_T_STRING, "A port forward to the Space "
	    "through Session Manager, for a local IDE or browser."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_space_connect[] = {
	OUT_OPT("web_url", SW_T_STRING, "The Space's web UI (the access "
	    "strategy's URL); only while it runs."),
	{ .name = "ide", .type = SW_T_OBJECT, .fields = o_space_ide,
	  .desc = "The SSM route to it for a local IDE (while it runs)." },
	OUT_OPT("allowed", SW_T_BOOL, "Whether the caller may connect "
	    "(owner-only Spaces: only the owner)."),
	{ NULL }
};
/* clang-format on */

#define F_SPACE_SUMMARY \
	OUT_OPT("space", SW_T_STRING, "The Space."), \
	    OUT_OPT("namespace", SW_T_STRING, "Its namespace."), \
	    OUT_OPT("display_name", SW_T_STRING, "Its display name."), \
	    OUT_OPT("template", SW_T_STRING, \
		"jupyterlab, code-editor, or " \
		"the name of another WorkspaceTemplate."), \
	    OUT_OPT("owner", SW_T_STRING, "The person who created it."), \
	    OUT_OPT("access", SW_T_STRING, "owner-only or public."), \
	    OUT_OPT("state", SW_T_STRING, \
		"Pending, Running, Stopping, " \
		"Stopped or Failed."), \
	    OUT_OPT("desired", SW_T_STRING, "Running or Stopped, as asked."), \
	    OUT_OPT("stopped_by", SW_T_STRING, \
		"Who stopped it: idle " \
		"(idle shutdown) or the person who asked."), \
	    OUT("gpus", SW_T_INT, "GPUs it asks for."), \
	    OUT_OPT("cpu", SW_T_STRING, "vCPUs it asks for."), \
	    OUT_OPT("memory", SW_T_STRING, "Memory it asks for."), \
	    OUT_OPT("storage", SW_T_STRING, "Its home volume's size."), \
	    OUT_OPT("idle_timeout_minutes", SW_T_INT, \
		"Idle shutdown after " \
		"this many minutes (absent: never)."), \
	    OUT_OPT("queue", SW_T_STRING, "Its Kueue queue."), \
	    OUT_OPT("priority", SW_T_STRING, "Its priority class."), \
	    OUT_OPT("created", SW_T_STRING, "When (RFC 3339)."), \
	{ \
		.name = "pending", .type = SW_T_OBJECT, \
		.fields = sw_pending_fields, \
		.desc = "Why it waits (Pending " \
			"only): Kueue's quota or the scheduler." \
	}

/* clang-format off */
static const struct sw_field o_space_summary[] = {
	F_SPACE_SUMMARY,
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_space_item[] = {
	{ .name = "space", .type = SW_T_OBJECT, .fields = o_space_summary },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_space_list[] = {
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_space_item, .desc = "The Spaces." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_space_list[] = {
	{ .status = 200, .fields = o_space_list, .desc = "The Spaces." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_space[] = {
	F_SPACE_SUMMARY,
	{ .name = "connect", .type = SW_T_OBJECT, .flags = SW_F_REQUIRED,
	  .fields = o_space_connect, .desc = "How to reach it." },
	OUT_OPT("status", SW_T_ANY, "Its status as the operator writes it "
	    "(conditions, accessURL)."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_space_get[] = {
	{ .status = 200, .fields = o_space, .desc = "The Space." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_space_created[] = {
	OUT("space", SW_T_STRING, "The Space."),
	OUT("namespace", SW_T_STRING, "Its namespace."),
	OUT("owner", SW_T_STRING, "Its owner: the caller."),
	OUT("template", SW_T_STRING, "Its template."),
	{ .name = "applied", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_ref_item, .desc = "The objects applied." },
	OUT_OPT("status_tool", SW_T_STRING, "space_get: follow it."),
	OUT("poll_interval_seconds", SW_T_INT, "How often to ask."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_space_plan[] = {
	OUT("dry_run", SW_T_BOOL, "Always true."),
	{ .name = "manifests", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_manifest_item, .desc = "What it would apply." },
	OUT("space", SW_T_STRING, "The Space."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_space_create[] = {
	{ .status = 201, .fields = o_space_created,
	  .desc = "Created: the Space and what was applied." },
	{ .status = 200, .dry_run = SW_DRY_ONLY, .fields = o_space_plan,
	  .desc = "The plan (dry_run=true): the manifests." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_space_changed[] = {
	OUT("space", SW_T_STRING, "The Space."),
	OUT("namespace", SW_T_STRING, "Its namespace."),
	OUT("desired", SW_T_STRING, "Running or Stopped, as now asked."),
	OUT("changed", SW_T_BOOL, "False when it was already so."),
	OUT_OPT("status_tool", SW_T_STRING, "space_get: follow it."),
	OUT("poll_interval_seconds", SW_T_INT, "How often to ask."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_space_patch_plan[] = {
	OUT("dry_run", SW_T_BOOL, "Always true."),
	OUT("space", SW_T_STRING, "The Space."),
	OUT("namespace", SW_T_STRING, "Its namespace."),
	OUT("patch", SW_T_ANY, "The merge patch it would send."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_space_change[] = {
	{ .status = 200, .fields = o_space_changed,
	  .desc = "Asked: the operator stops or starts it." },
	{ .status = 200, .dry_run = SW_DRY_ONLY, .fields = o_space_patch_plan,
	  .desc = "The plan (dry_run=true): the patch." },
	{ 0 }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_space_deleted[] = {
	{ .name = "deleted", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_ref_item, .desc = "What was deleted." },
	OUT("space", SW_T_STRING, "The Space."),
	OUT("namespace", SW_T_STRING, "Its namespace."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_space_deletes[] = {
	OUT("dry_run", SW_T_BOOL, "Always true."),
	{ .name = "deletes", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_ref_item, .desc = "What it would delete." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_space_delete[] = {
	{ .status = 200, .fields = o_space_deleted, .desc = "Deleted." },
	{ .status = 200, .dry_run = SW_DRY_ONLY, .fields = o_space_deletes,
	  .desc = "The plan (dry_run=true): what it would delete." },
	{ 0 }
};
/* clang-format on */

/* ---- Space templates (WorkspaceTemplates) ------------------------------ */

static const char *const tmpl_apps[] = { "jupyterlab", "code-editor", NULL };

/* clang-format off */
static const struct sw_field f_tmpl_path[] = {
	F_CLUSTER_PATH,
	{ .name = "template", .type = SW_T_STRING,
	  .flags = SW_F_PATH | SW_F_REQUIRED, .min = 1, .max = 63,
	  .pattern = PAT_K8S_NAME,
	  .desc = "The WorkspaceTemplate's name (in jupyter-k8s-system)." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field f_image_item[] = {
	{ .name = "image", .type = SW_T_STRING, .min = 1, .max = 255,
	  .pattern = PAT_IMAGE },
};
/* clang-format on */

/* What a Space template sets; the rest comes from the add-on's template
 * of its app type. */
/* clang-format off */
static const struct sw_field f_tmpl_body[] = {
	{ .name = "display_name", .type = SW_T_STRING, .flags = SW_F_REQUIRED,
	  .min = 1, .max = 64, .pattern = "[A-Za-z0-9][A-Za-z0-9 '._()-]*",
	  .desc = "Name shown to people choosing a template." },
	{ .name = "app_type", .type = SW_T_STRING, .enumv = tmpl_apps,
	  .desc = "jupyterlab (default) or code-editor: the add-on's template "
	  "it is based on." },
	{ .name = "description", .type = SW_T_STRING, .min = 0, .max = 255,
	  .desc = "What it is for." },
	{ .name = "default_image", .type = SW_T_STRING, .min = 1, .max = 255,
	  .pattern = PAT_IMAGE,
	  .desc = "Image of a Space that names none (default: the add-on's "
	  "template's)." },
	{ .name = "allowed_images", .type = SW_T_ARRAY, .min = 0, .max = 20,
	  .items = f_image_item,
	  .desc = "Images a Space may name (default: the add-on's "
	  "template's)." },
	{ .name = "allow_custom_images", .type = SW_T_BOOL,
	  .desc = "Whether a Space may name any image (default: the add-on's "
	  "template's)." },
	{ .name = "cpu", .type = SW_T_INT, .min = 1, .max = 192,
	  .desc = "vCPUs a Space requests by default." },
	{ .name = "memory_gib", .type = SW_T_INT, .min = 1, .max = 2048,
	  .desc = "Memory in GiB a Space requests by default." },
	{ .name = "storage_gib", .type = SW_T_INT, .min = 5, .max = 100,
	  .desc = "Home volume size in GiB by default." },
	{ NULL }
};
/* clang-format on */

/* clang-format off */
static const struct sw_field o_image_item[] = {
	{ .name = "image", .type = SW_T_STRING },
};
/* clang-format on */
#define F_TMPL_VIEW \
	OUT("template", SW_T_STRING, "Its name."), \
	    OUT("managed", SW_T_BOOL, \
		"Slipway keeps it (space_template_set); " \
		"else the add-on's or another's."), \
	    OUT_OPT("display_name", SW_T_STRING, "Its display name."), \
	    OUT_OPT("app_type", SW_T_STRING, "jupyterlab or code-editor."), \
	    OUT_OPT("description", SW_T_STRING, "What it is for."), \
	    OUT_OPT("default_image", SW_T_STRING, "Its default image."), \
	    { .name = "allowed_images", \
		    .type = SW_T_ARRAY, \
		    .items = o_image_item, \
		    .desc = "Images a Space may name." }, \
	    OUT_OPT("allow_custom_images", SW_T_BOOL, "Any image allowed."), \
	    OUT_OPT("cpu", SW_T_INT, "Default vCPUs."), \
	    OUT_OPT("memory_gib", SW_T_INT, "Default memory, GiB."), \
	    OUT_OPT("storage_gib", SW_T_INT, "Default home volume, GiB.")
/* clang-format off */
static const struct sw_field o_tmpl[] = {
	F_TMPL_VIEW,
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_tmpl_item[] = {
	{ .name = "template", .type = SW_T_OBJECT, .fields = o_tmpl },
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_tmpl_list[] = {
	{ .name = "items", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_tmpl_item, .desc = "The templates." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_tmpl_list[] = {
	{ .status = 200, .fields = o_tmpl_list, .desc = "The templates." },
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_tmpl_plan[] = {
	OUT("dry_run", SW_T_BOOL, "Always true."),
	{ .name = "manifests", .type = SW_T_ARRAY, .flags = SW_F_REQUIRED,
	  .items = o_manifest_item, .desc = "What it would apply." },
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_tmpl_set[] = {
	{ .status = 200, .fields = o_tmpl, .desc = "Applied: the template." },
	{ .status = 200, .dry_run = SW_DRY_ONLY, .fields = o_tmpl_plan,
	  .desc = "The plan (dry_run=true): the manifest." },
	{ 0 }
};
/* clang-format on */
/* clang-format off */
static const struct sw_field o_tmpl_deleted[] = {
	OUT("deleted", SW_T_STRING, "The template deleted."),
	{ NULL }
};
/* clang-format on */
/* clang-format off */
static const struct sw_answer a_tmpl_delete[] = {
	{ .status = 200, .fields = o_tmpl_deleted, .desc = "Deleted." },
	{ 0 }
};
/* clang-format on */

#define OWNER_RULE \
	"Only its owner (the person who created it) or a " \
	"platform admin may; anyone else gets 403."

/* clang-format off */
static const struct sw_op rows[] = {
	{
	  .name = "space_create",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/spaces",
	  .tag = "spaces",
	  .summary = "Create a Space: a JupyterLab or Code Editor "
	    "environment on the cluster, owned by the caller",
	  .description = "Needs feature spaces (the amazon-sagemaker-spaces "
	    "add-on; 409 names feature_set spaces when absent).  Applies a "
	    "workspace.jupyter.org/v1alpha1 Workspace from the add-on's "
	    "template, with GPU/CPU, its home volume, idle shutdown and "
	    "access.  With a team's queue it is admitted by the team's "
	    "quota like a job: over quota it waits (space_get's pending "
	    "says why).  Poll space_get for its URL.",
	  .params = f_cluster_name,
	  .body = f_space_body,
	  .flags = SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_TEAM,
	  .status_tool = "space_get",
	  .poll_seconds = 10,
	  .answers = a_space_create,
	},
	{
	  .name = "space_list",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/spaces",
	  .tag = "spaces",
	  .summary = "Spaces with their owner, state and resources",
	  .params = f_wl_cluster,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_TEAM,
	  .answers = a_space_list,
	},
	{
	  .name = "space_get",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/spaces/{space}",
	  .tag = "spaces",
	  .summary = "One Space: state, why it waits, and how to connect "
	    "(web UI URL or the SSM route for an IDE)",
	  .description = "state is Pending, Running, Stopping, Stopped or "
	    "Failed; stopped_by is idle when idle shutdown stopped it.  "
	    "connect.web_url is the operator's access URL and connect.ide "
	    "the Session Manager port forward to it; an owner-only Space "
	    "shows them to its owner (and platform admins) only.",
	  .params = f_space_path,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_TEAM,
	  .answers = a_space_get,
	},
	{
	  .name = "space_stop",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/spaces/{space}:stop",
	  .tag = "spaces",
	  .summary = "Stop a Space (its volume stays)",
	  .description = OWNER_RULE,
	  .params = f_space_path,
	  .flags = SW_OP_IDEMPOTENT | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_TEAM,
	  .status_tool = "space_get",
	  .poll_seconds = 5,
	  .answers = a_space_change,
	},
	{
	  .name = "space_start",
	  .method = "POST",
	  .path = "/api/v1/clusters/{name}/spaces/{space}:start",
	  .tag = "spaces",
	  .summary = "Start a stopped Space again",
	  .description = OWNER_RULE,
	  .params = f_space_path,
	  .flags = SW_OP_IDEMPOTENT | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_TEAM,
	  .status_tool = "space_get",
	  .poll_seconds = 5,
	  .answers = a_space_change,
	},
	{
	  .name = "space_delete",
	  .method = "DELETE",
	  .path = "/api/v1/clusters/{name}/spaces/{space}",
	  .tag = "spaces",
	  .summary = "Delete a Space and its volume",
	  .description = OWNER_RULE,
	  .params = f_space_path,
	  .flags = SW_OP_DESTRUCTIVE | SW_OP_IDEMPOTENT | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_TEAM,
	  .status_tool = "space_get",
	  .poll_seconds = 5,
	  .answers = a_space_delete,
	},
	{
	  .name = "space_template_list",
	  .method = "GET",
	  .path = "/api/v1/clusters/{name}/space-templates",
	  .tag = "spaces",
	  .summary = "The cluster's Space templates: the add-on's and those "
	    "Slipway keeps",
	  .description = "Each workspace.jupyter.org WorkspaceTemplate of "
	    "jupyter-k8s-system with its image, resources and home volume "
	    "size; managed is true for those space_template_set keeps. "
	    "None when the spaces feature is off.",
	  .params = f_cluster_name,
	  .flags = SW_OP_READONLY | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_READ,
	  .touch = SW_TOUCH_CLUSTER,
	  .answers = a_tmpl_list,
	},
	{
	  .name = "space_template_set",
	  .method = "PUT",
	  .path = "/api/v1/clusters/{name}/space-templates/{template}",
	  .tag = "spaces",
	  .summary = "Create or replace a Space template",
	  .description = "Applies a WorkspaceTemplate in jupyter-k8s-system "
	    "based on the add-on's template of its app type (its entry "
	    "point and access strategy), with the fields sent.  Needs "
	    "feature spaces (409 otherwise); the add-on's own templates "
	    "cannot be changed (409).",
	  .params = f_tmpl_path,
	  .body = f_tmpl_body,
	  .flags = SW_OP_IDEMPOTENT | SW_OP_DRY_RUN,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_PLATFORM,
	  .answers = a_tmpl_set,
	},
	{
	  .name = "space_template_delete",
	  .method = "DELETE",
	  .path = "/api/v1/clusters/{name}/space-templates/{template}",
	  .tag = "spaces",
	  .summary = "Delete a Space template Slipway keeps",
	  .description = "Spaces made from it keep running.  The add-on's "
	    "own templates cannot be deleted (409).",
	  .params = f_tmpl_path,
	  .flags = SW_OP_DESTRUCTIVE | SW_OP_IDEMPOTENT,
	  .scope = SW_SCOPE_WRITE,
	  .touch = SW_TOUCH_PLATFORM,
	  .answers = a_tmpl_delete,
	},
};
/* clang-format on */

const struct sw_op_family sw_ops_spaces = { rows,
	sizeof(rows) / sizeof(rows[0]) };
