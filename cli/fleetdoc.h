/*
 * fleetdoc.h: a fleet document's YAML, the form people keep in git,
 * read into the JSON the server takes and written back from it.
 */
#ifndef SW_CLI_FLEETDOC_H
#define SW_CLI_FLEETDOC_H

#include <stdio.h>

#include <json-c/json.h>

/*
 * Read YAML (or JSON, which YAML reads too) from path ("-": stdin):
 * the document's JSON, a new reference, or NULL with why (line and
 * column) in err.  A plain scalar is a boolean (true, false), null
 * (null, ~, empty), an integer or a number when it reads as one, else
 * a string; a quoted scalar is always a string.
 */
json_object *sw_yaml_read(const char *path, char *err, size_t errsz);

/* Write o as YAML to f, quoting each string that would read back as
 * something else; 0, or -1 when the emitter failed. */
int sw_yaml_write(FILE *f, json_object *o);

#endif
