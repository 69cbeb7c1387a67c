/*
 * mcp_confirm.c: the user's confirmation of a destructive tool call
 * (see mcp.h).
 *
 * A call needs it when its row is flagged SW_OP_DESTRUCTIVE (the table
 * is the one rule: cluster_delete, instance_group_delete, node_replace,
 * node_delete, training_job_delete, inference_delete) or flagged
 * SW_OP_CONFIRM_OFF (feature_set) and turns something off while the
 * cluster runs workloads: an item not terminal in any row flagged
 * SW_OP_WORKLOADS (training jobs, inference endpoints).  A dry run never needs it.  The plan the
 * user is shown is the call's own dry run, run in process.  mcp.c asks
 * with elicitation (2026-07-28: an input_required result whose
 * requestState, an HMAC of the token, tool and arguments, must come back
 * unchanged) when the client declared elicitation, and otherwise refuses
 * the call until it carries "confirm": true.
 */
#include <stdio.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "lib/json.h"
#include "mcp/mcp.h"
#include "lib/url.h"

/* Does a feature_set body turn anything off? */
static int
turns_feature_off(json_object *args)
{
	json_object *v;

	json_object_object_foreach(args, k, val)
	{
		if (strcmp(k, "name") == 0 || strcmp(k, "dry_run") == 0 ||
		    strcmp(k, "confirm") == 0)
			continue;
		if (json_object_is_type(val, json_type_boolean) &&
		    !json_object_get_boolean(val))
			return 1;
		if (json_object_is_type(val, json_type_object) &&
		    (v = sw_json_get(val, "enabled")) != NULL &&
		    json_object_is_type(v, json_type_boolean) &&
		    !json_object_get_boolean(v))
			return 1;
	}
	return 0;
}

/* How many workloads (items of SW_OP_WORKLOADS rows) still run. */
static int
running_workloads(
    struct sw_mcp *m, const struct sw_principal *who, const char *cluster)
{
	json_object *args = json_object_new_object(), *doc, *items, *it;
	long status;
	size_t i, j;
	int n = 0;

	sw_json_add_str(args, "name", cluster);
	for (i = 0; i < sw_optable_len; i++) {
		if (!(sw_optable[i].flags & SW_OP_WORKLOADS))
			continue;
		doc = NULL;
		if (sw_mcp_op_run(m, who, sw_optable[i].name, args, &status,
			&doc) == SW_OK &&
		    status == 200 &&
		    (items = sw_json_get(doc, "items")) != NULL &&
		    json_object_is_type(items, json_type_array))
			for (j = 0; j < json_object_array_length(items); j++) {
				it = json_object_array_get_idx(items, j);
				if (!sw_json_get_bool(it, "terminal", 0))
					n++;
			}
		json_object_put(doc);
	}
	json_object_put(args);
	return n;
}

void
sw_mcp_args_copy(json_object *args, json_object *out)
{
	if (args == NULL || !json_object_is_type(args, json_type_object))
		return;
	json_object_object_foreach(args, k, v)
	{
		if (strcmp(k, "confirm") != 0)
			json_object_object_add(out, k, json_object_get(v));
	}
}

int
sw_mcp_needs_confirm(struct sw_mcp *m, const struct sw_principal *who,
    const char *name, json_object *args)
{
	const struct sw_op *op = sw_op_by_name(name);
	const char *cluster;

	if (op == NULL || (op->flags & SW_OP_NO_MCP) ||
	    (op->flags & SW_OP_READONLY))
		return 0;
	if (args != NULL && sw_json_get_bool(args, "dry_run", 0))
		return 0;
	if (op->flags & SW_OP_DESTRUCTIVE)
		return 1;
	if (!(op->flags & SW_OP_CONFIRM_OFF) || args == NULL ||
	    !json_object_is_type(args, json_type_object) ||
	    !turns_feature_off(args) ||
	    (cluster = sw_json_get_str(args, "name")) == NULL)
		return 0;
	return running_workloads(m, who, cluster) > 0;
}

int
sw_mcp_confirm_asked(const struct sw_op *op)
{
	return op != NULL && !(op->flags & SW_OP_READONLY) &&
	    (op->flags & (SW_OP_DESTRUCTIVE | SW_OP_CONFIRM_OFF)) != 0;
}

long
sw_mcp_confirm_plan(struct sw_mcp *m, const struct sw_principal *who,
    const char *name, json_object *args, struct sw_buf *out)
{
	json_object *dry = json_object_new_object(), *doc = NULL;
	long status = 0;

	sw_mcp_args_copy(args, dry);
	sw_json_add_bool(dry, "dry_run", 1);
	if (sw_mcp_op_run(m, who, name, dry, &status, &doc) != SW_OK)
		status = 500;
	(void)sw_buf_printf(out,
	    "%s %s on Slipway.\n\nThe plan (a dry run, "
	    "HTTP %ld):\n%s\n",
	    name,
	    status >= 200 && status < 300 ? "is about to run" : "was asked for",
	    status, doc != NULL ? sw_json_pretty(doc) : "(none)");
	json_object_put(doc);
	json_object_put(dry);
	return status;
}

void
sw_mcp_confirm_state(const struct sw_mcp *m, const struct sw_principal *who,
    const char *name, json_object *args, char out[65])
{
	json_object *clean = json_object_new_object();
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	struct sw_buf msg;

	sw_mcp_args_copy(args, clean);
	sw_buf_init(&msg, 0);
	(void)sw_buf_printf(&msg, "confirm\n%s\n%s\n%s", who->token_id, name,
	    sw_json_str(clean));
	HMAC(EVP_sha256(), m->key, (int)sizeof(m->key),
	    (const unsigned char *)sw_buf_str(&msg), msg.len, md, &mdlen);
	sw_hex_encode(md, mdlen < 32 ? mdlen : 32, out);
	sw_buf_free(&msg);
	json_object_put(clean);
}
