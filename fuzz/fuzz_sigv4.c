/*
 * fuzz_sigv4.c: SigV4 canonicalisation.  One input is
 * "method\npath\nquery\nheader name\nheader value\nflags\nbody"; the
 * request is signed (header and presigned query forms) with fixed keys
 * and the canonical request is rebuilt from the debug output.
 * Invariants: signing a request it accepted never fails half way (a
 * signature of 64 hex digits), and signing twice gives one signature.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzzkit.h"
#include "cloud/http.h"
#include "cloud/sigv4.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
sign(const char **f, const char *body, size_t blen, int presign, char sig[65])
{
	struct sigv4_params p = {
		.access_key = "AKIDEXAMPLE",
		.secret_key = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
		.session_token = "token",
		.region = "us-west-2",
		.service = "sagemaker",
		.when = 1700000000,
		.flags = (unsigned)(f[5][0] & 0x0f),
		.expires = 60,
	};
	struct http_request req;
	struct sigv4_debug dbg;
	sw_err e;

	memset(&dbg, 0, sizeof(dbg));
	if (http_request_init(&req, f[0][0] ? f[0] : "GET",
		"https://api.sagemaker.us-west-2.amazonaws.com",
		f[1][0] == '/' ? f[1] : "/", f[2][0] ? f[2] : NULL) != SW_OK)
		return -1;
	if (f[3][0] != '\0')
		(void)http_headers_add(&req.headers, f[3], f[4]);
	(void)http_request_set_body(&req, body, blen);
	e = presign ? sigv4_presign(&req, &p, &dbg)
		    : sigv4_sign(&req, &p, &dbg);
	if (e == SW_OK) {
		if (strlen(dbg.signature) != 64 ||
		    strspn(dbg.signature, "0123456789abcdef") != 64)
			abort();
		memcpy(sig, dbg.signature, 65);
	}
	sigv4_debug_free(&dbg);
	http_request_free(&req);
	return e == SW_OK ? 0 : -1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[1 << 16];
	const char *f[7];
	char a[65], b[65];
	size_t blen;
	int presign;

	if (size > sizeof(buf) / 2)
		return 0;
	fz_split(data, size, buf, sizeof(buf), f, 7, &blen);
	for (presign = 0; presign < 2; presign++) {
		if (sign(f, f[6], blen, presign, a) != 0)
			continue;
		if (sign(f, f[6], blen, presign, b) != 0 || strcmp(a, b) != 0)
			abort();
	}
	return 0;
}
