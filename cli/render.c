/*
 * render.c: template rendering and whole-file helpers for the launcher.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/buf.h"
#include "cli/render.h"

sw_err
sw_render(const char *tmpl, const struct sw_kv *vars, struct sw_buf *out,
    char *why, size_t whysz)
{
	const char *p = tmpl, *at, *end;
	const struct sw_kv *kv;
	size_t klen;
	sw_err e;

	while ((at = strchr(p, '@')) != NULL) {
		if ((e = sw_buf_add(out, p, (size_t)(at - p))) != SW_OK)
			return e;
		end = at + 1;
		while ((*end >= 'A' && *end <= 'Z') || *end == '_')
			end++;
		if (*end != '@' || end == at + 1) {
			/* A lone '@' is text. */
			if ((e = sw_buf_add(out, "@", 1)) != SW_OK)
				return e;
			p = at + 1;
			continue;
		}
		klen = (size_t)(end - at - 1);
		for (kv = vars; kv->key != NULL; kv++)
			if (strlen(kv->key) == klen &&
			    memcmp(kv->key, at + 1, klen) == 0)
				break;
		if (kv->key == NULL) {
			sw_fmt_text(why, whysz, "unknown placeholder @%.*s@",
			    (int)klen, at + 1);
			return SW_EINVAL;
		}
		if ((e = sw_buf_puts(out, kv->value)) != SW_OK)
			return e;
		p = end + 1;
	}
	return sw_buf_puts(out, p);
}

sw_err
sw_read_file(const char *path, size_t max, struct sw_buf *out)
{
	char chunk[8192];
	size_t n;
	FILE *f;
	sw_err e = SW_OK;

	if ((f = fopen(path, "r")) == NULL)
		return SW_ENOTFOUND;
	out->max = max;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if ((e = sw_buf_add(out, chunk, n)) != SW_OK)
			break;
	if (ferror(f))
		e = SW_EINTERNAL;
	fclose(f);
	return e;
}

sw_err
sw_write_file(const char *path, const char *data, size_t len, int mode)
{
	char tmp[1024];
	ssize_t w;
	size_t off = 0;
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid()) >=
	    (int)sizeof(tmp))
		return SW_EINVAL;
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)) <
	    0)
		return SW_EINTERNAL;
	while (off < len) {
		if ((w = write(fd, data + off, len - off)) <= 0) {
			close(fd);
			unlink(tmp);
			return SW_EINTERNAL;
		}
		off += (size_t)w;
	}
	if (fsync(fd) != 0 || close(fd) != 0 || rename(tmp, path) != 0) {
		unlink(tmp);
		return SW_EINTERNAL;
	}
	return SW_OK;
}
