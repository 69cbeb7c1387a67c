/*
 * openapi.h: the OpenAPI 3.1 document, generated from the operation
 * table, and the named response schemas shared with MCP outputSchema.
 */
#ifndef SW_OPENAPI_H
#define SW_OPENAPI_H

#include <json-c/json.h>

/* The whole document.  New reference. */
json_object *sw_openapi_document(void);
/* JSON Schema for a response schema name (optable's .output), with no
 * $ref: self-contained for MCP.  New reference, or NULL if unknown. */
json_object *sw_schema_named(const char *name);

#endif
