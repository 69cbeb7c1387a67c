/*
 * render.h: fill @NAME@ placeholders of a configuration template (our
 * own nginx template) from a key/value list.  An unknown placeholder is
 * an error, so a template and its renderer cannot drift apart silently.
 */
#ifndef SW_RENDER_H
#define SW_RENDER_H

#include "lib/buf.h"
#include "lib/err.h"

struct sw_kv {
	const char *key;
	const char *value;
};

/* Render tmpl into out; NULL-key-terminated vars.  SW_EINVAL names the
 * unknown placeholder in why. */
sw_err sw_render(const char *tmpl, const struct sw_kv *vars, struct sw_buf *out,
    char *why, size_t whysz);

/* Read a whole file (capped at max bytes) into out. */
sw_err sw_read_file(const char *path, size_t max, struct sw_buf *out);
/* Write data to path atomically (temp file + rename), mode. */
sw_err sw_write_file(const char *path, const char *data, size_t len, int mode);

#endif
