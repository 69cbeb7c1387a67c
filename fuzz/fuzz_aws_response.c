/*
 * fuzz_aws_response.c: parsing of AWS answers for each protocol.  The
 * first byte picks the protocol (JSON, REST-JSON, query, EC2, REST-XML)
 * and the HTTP status; the rest is "x-amzn-ErrorType value\nbody".  The
 * error parser runs on every input, and XML bodies also go through
 * awsproto_xml_to_json (successful query/EC2/REST-XML answers).
 * Invariants: the error code and message are NUL-terminated inside
 * their buffers, and a converted document serialises.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzzkit.h"
#include "cloud/awsproto.h"
#include "cloud/http.h"
#include "lib/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const long statuses[] = { 400, 403, 404, 409, 429, 500, 503,
		301 };
	static char buf[1 << 17];
	struct http_response resp;
	struct aws_error err;
	enum aws_protocol proto;
	json_object *o = NULL;
	const char *f[2];
	size_t blen;

	if (size < 1 || size > sizeof(buf) / 2)
		return 0;
	proto = (enum aws_protocol)(data[0] % 5);
	fz_split(data + 1, size - 1, buf, sizeof(buf), f, 2, &blen);
	http_response_init(&resp, 1 << 20);
	resp.status = statuses[(data[0] >> 3) % 8];
	if (f[0][0] != '\0')
		(void)http_headers_add(&resp.headers, "x-amzn-ErrorType", f[0]);
	(void)sw_buf_add(&resp.body, f[1], blen);
	memset(&err, 0, sizeof(err));
	awsproto_parse_error(proto, &resp, &err);
	if (memchr(err.code, '\0', sizeof(err.code)) == NULL ||
	    memchr(err.message, '\0', sizeof(err.message)) == NULL)
		abort();
	(void)aws_error_sw(&err);
	if (proto >= AWS_PROTO_QUERY &&
	    awsproto_xml_to_json(f[1], blen, &o) == SW_OK) {
		(void)sw_json_str(o);
		json_object_put(o);
	}
	http_response_free(&resp);
	return 0;
}
