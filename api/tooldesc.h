/*
 * tooldesc.h: tool descriptors of a sysadmin's own endpoints (tools.d).
 *
 * Each <state-dir>/tools.d/NAME.json describes one endpoint under /ext/;
 * the MCP face lists them as tools, the OpenAPI document as paths.
 */
#ifndef SW_TOOLDESC_H
#define SW_TOOLDESC_H

#include <json-c/json.h>

#include "lib/err.h"

/* At most this many tools.d descriptors, each at most this big. */
#define SW_MAX_TOOLDESCS 32
#define SW_MAX_TOOLDESC_FILE (64 * 1024)
/* Tool name of a plugin descriptor's "name": "ext_" + name. */
#define SW_TOOLDESC_PREFIX "ext_"

/* Read and validate <dir>/tools.d/NAME.json in name order; invalid files
 * are logged and skipped.  *out: new array of normalised descriptors
 * {tool, name, description, inputSchema, outputSchema?, method, path,
 * readOnly, destructive, idempotent, scope, file}. */
sw_err sw_tooldesc_load(const char *state_dir, json_object **out);
/* Validate one descriptor (borrowed); a normalised copy in *out or a
 * reason in why. */
sw_err sw_tooldesc_check(
    json_object *desc, json_object **out, char *why, size_t whysz);
/* Add the plugin endpoints of the state directory ($SLIPWAY_STATE_DIR)
 * to an OpenAPI document's "paths" (borrowed, modified in place). */
void sw_tooldesc_openapi(json_object *doc);

#endif
