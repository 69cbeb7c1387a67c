/*
 * url.h: the one hex and percent codec.  Hex for digests, random ids
 * and session ids; percent-encoding for paths, query strings and form
 * bodies (router, MCP, the AWS and Kubernetes clients, the signer) and
 * percent-decoding for query strings, path segments and the URL-encoded
 * documents IAM returns.  Plugins use sw_url_decode and sw_url_encode.
 */
#ifndef SW_URL_H
#define SW_URL_H

#include <stddef.h>
#include <sys/types.h>

#include "lib/buf.h"

/* Flags of sw_pct_encode and sw_pct_decode. */
#define SW_PCT_FORM 0x1 /* a space is '+' (and '+' a space) */
#define SW_PCT_KEEP_SLASH 0x2 /* encode: '/' is written as it is */
#define SW_PCT_LENIENT \
	0x4 /* decode: a '%' without two hex
					 * digits is kept as it is, and a
					 * decoded NUL is kept */

/* The value of hex digit c (either case), -1 if c is none. */
int sw_hex_digit(int c);

/* The n bytes at in as 2n lowercase hex digits into out, NUL-terminated
 * (out holds 2n + 1). */
void sw_hex_encode(const void *in, size_t n, char *out);

/* 2n hex digits at in into n bytes at out; -1 on a character that is
 * not a hex digit. */
int sw_hex_decode(const char *in, size_t n, unsigned char *out);

/* Append s[0..len) to b percent-encoded: all but RFC 3986's unreserved
 * characters (ASCII, whatever the locale), in uppercase hex; flags
 * SW_PCT_FORM and SW_PCT_KEEP_SLASH.  SW_ETOOBIG when b's cap is
 * reached, and what is in b then must not be sent. */
sw_err sw_pct_encode(
    struct sw_buf *b, const char *s, size_t len, unsigned flags);

/* s[0..len) percent-encoded as sw_pct_encode does, into out (which
 * holds 3 * len); the length written, no NUL added. */
size_t sw_pct_encode_to(char *out, const char *s, size_t len, unsigned flags);

/* Percent-decode src[0..len) into dst, NUL-terminated; the length
 * decoded.  -1 when dst is too small, and unless SW_PCT_LENIENT on a
 * bad escape or a decoded NUL.  Flags SW_PCT_FORM and SW_PCT_LENIENT. */
ssize_t sw_pct_decode(
    const char *src, size_t len, char *dst, size_t dstsz, unsigned flags);

/* A query string's key or value: sw_pct_decode with SW_PCT_FORM; 0 or
 * -1. */
int sw_url_decode(const char *src, size_t len, char *dst, size_t dstsz);

/* Append s to b percent-encoded (sw_pct_encode without flags). */
sw_err sw_url_encode(struct sw_buf *b, const char *s);

#endif
