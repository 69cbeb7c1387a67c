/*
 * sigv4.h: AWS Signature Version 4 (AWS4-HMAC-SHA256) for requests
 * built with cloud/http.h: signing into the Authorization header, and
 * presigning into the query string (X-Amz-*), with session tokens and
 * the S3 differences (no path normalisation, no second URI-encoding,
 * an x-amz-content-sha256 header, UNSIGNED-PAYLOAD).
 */
#ifndef SW_SIGV4_H
#define SW_SIGV4_H

#include <time.h>

#include "lib/err.h"
#include "cloud/http.h"

/* The payload hash literal S3 accepts instead of a SHA-256. */
#define SIGV4_UNSIGNED_PAYLOAD "UNSIGNED-PAYLOAD"

/* sigv4_params.flags */
#define SIGV4_NO_NORMALIZE 0x01 /* keep "." "..", "//" (S3) */
#define SIGV4_NO_DOUBLE_ENCODE 0x02 /* canonical URI = wire path (S3) */
#define SIGV4_CONTENT_SHA256 0x04 /* add x-amz-content-sha256 (S3) */
#define SIGV4_OMIT_TOKEN 0x08 /* add the token after signing */
/* What S3 needs, in one flag set. */
#define SIGV4_S3 \
	(SIGV4_NO_NORMALIZE | SIGV4_NO_DOUBLE_ENCODE | SIGV4_CONTENT_SHA256)

/* Inputs to one signature; all strings borrowed. */
struct sigv4_params {
	const char *access_key;
	const char *secret_key;
	const char *session_token; /* NULL or "" when none */
	const char *region; /* "us-west-2" */
	const char *service; /* signing name: "sagemaker" */
	time_t when; /* signing time (UTC epoch) */
	unsigned flags; /* SIGV4_* */
	const char *payload_hash; /* NULL: SHA-256 of the body */
	long expires; /* presign: X-Amz-Expires seconds */
};

/* What the signer computed, for tests and debug logs; owned by the
 * caller, released with sigv4_debug_free(). */
struct sigv4_debug {
	char *canonical_request;
	char *string_to_sign;
	char signature[65];
};

/*
 * Sign req in place: sets X-Amz-Date, X-Amz-Security-Token,
 * x-amz-content-sha256 (with SIGV4_CONTENT_SHA256) and Authorization.
 * req must carry its Host header (http_request_init adds it).  dbg may
 * be NULL; when not, its strings are newly allocated.
 */
sw_err sigv4_sign(struct http_request *req, const struct sigv4_params *,
    struct sigv4_debug *dbg);
/*
 * Presign req in place: appends X-Amz-Algorithm, -Credential, -Date,
 * -Expires, -SignedHeaders, -Security-Token and -Signature to its query.
 * Every header of req is signed (host and any extra ones, e.g.
 * x-k8s-aws-id); they are not part of the URL.
 */
sw_err sigv4_presign(struct http_request *req, const struct sigv4_params *,
    struct sigv4_debug *dbg);
void sigv4_debug_free(struct sigv4_debug *);

/* Lower-case hex SHA-256 of len bytes into out[65]. */
void sigv4_sha256_hex(const void *, size_t len, char out[65]);

#endif
