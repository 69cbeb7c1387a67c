/*
 * url.h: percent-decoding, shared by the router (query strings), the
 * pipelines and handlers (IAM returns policy documents URL-encoded) and
 * plugins.
 */
#ifndef SW_URL_H
#define SW_URL_H

#include <stddef.h>

/* Percent-decode src[0..len) into dst (NUL-terminated); -1 if bad, a
 * decoded NUL included, or when dst is too small. */
int	sw_url_decode(const char *src, size_t len, char *dst, size_t dstsz);

#endif
