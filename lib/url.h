/*
 * url.h: percent-encoding and -decoding, shared by the router (query strings), the
 * pipelines and handlers (IAM returns policy documents URL-encoded) and
 * plugins.
 */
#ifndef SW_URL_H
#define SW_URL_H

#include <stddef.h>

#include "lib/buf.h"

/* Percent-decode src[0..len) into dst (NUL-terminated); -1 if bad, a
 * decoded NUL included, or when dst is too small. */
int	sw_url_decode(const char *src, size_t len, char *dst, size_t dstsz);

/* Append s to b percent-encoded (all but RFC 3986's unreserved
 * characters); SW_ETOOBIG when b's cap is reached, and what is in b
 * then must not be sent. */
sw_err	sw_url_encode(struct sw_buf *b, const char *s);

#endif
