/*
 * fuzz_router.c: the REST router on arbitrary requests.  One input is
 * "method\nraw path\nquery\nbody": route matching on the raw path,
 * path-segment and query decoding, body parsing and field validation
 * of whichever row matched, as one request with an admin principal (so
 * every row's validation is reached; authentication has its own tests).
 * Invariant: the rendered answer is an HTTP head plus a body that is
 * valid UTF-8 JSON.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzzkit.h"
#include "lib/auth.h"
#include "lib/buf.h"
#include "api/req.h"
#include "api/router.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[1 << 17];
	struct sw_principal admin;
	struct sw_req r;
	struct sw_buf out;
	const char *f[4], *body;
	size_t blen;

	if (size > sizeof(buf) / 2)
		return 0;
	fz_split(data, size, buf, sizeof(buf), f, 4, &blen);
	memset(&admin, 0, sizeof(admin));
	admin.scope = SW_SCOPE_ADMIN;
	memcpy(admin.token_id, "0000000000000000", 17);
	memcpy(admin.name, "fuzz", 5);
	memset(&r, 0, sizeof(r));
	sw_buf_init(&r.headers, 16384);
	r.method = f[0][0] ? f[0] : "GET";
	r.uri = f[1][0] ? f[1] : "/";
	r.query = f[2][0] ? f[2] : NULL;
	r.content_type = "application/json";
	r.body = f[3];
	r.body_len = blen;
	r.principal = &admin;
	sw_route(&r, fz_handlers());
	sw_buf_init(&out, 1 << 20);
	if (sw_req_render(&r, &out) == SW_OK && strcmp(r.method, "HEAD") != 0) {
		body = strstr(sw_buf_str(&out), "\r\n\r\n");
		if (body == NULL)
			abort();
		body += 4;
		if (r.raw == NULL)
			fz_assert_json(body,
			    out.len - (size_t)(body - sw_buf_str(&out)),
			    "the answer");
	}
	sw_buf_free(&out);
	sw_req_free(&r);
	return 0;
}
