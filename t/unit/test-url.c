/*
 * test-url.c: lib/url.c, the one hex and percent codec: hex both ways,
 * percent-encoding of paths, query values and form bodies, and the
 * strict (router, IAM documents) and lenient (the signer) decoders.
 */
#include <string.h>

#include "lib/buf.h"
#include "lib/url.h"
#include "t/tap.h"

static void
test_hex(void)
{
	const unsigned char raw[] = { 0x00, 0x0f, 0xa5, 0xff };
	unsigned char back[4];
	char out[9];

	sw_hex_encode(raw, sizeof(raw), out);
	is_str(out, "000fa5ff", "hex encode is lowercase, NUL-terminated");
	ok(sw_hex_decode("000FA5ff", 4, back) == 0 && memcmp(back, raw, 4) == 0,
	    "hex decode reads either case");
	ok(sw_hex_decode("0g", 1, back) == -1, "a non-hex digit is refused");
	is_int(sw_hex_digit('b'), 11, "digit b");
	is_int(sw_hex_digit('F'), 15, "digit F");
	is_int(sw_hex_digit('/'), -1, "'/' is no digit");
}

/* s encoded with flags, as a string for comparing. */
static const char *
enc(struct sw_buf *b, const char *s, unsigned flags)
{
	sw_buf_reset(b);
	if (sw_pct_encode(b, s, strlen(s), flags) != SW_OK)
		return "(error)";
	return sw_buf_str(b);
}

static void
test_encode(void)
{
	struct sw_buf b;
	char big[1000], out[3 * 1000 + 1];
	size_t n;

	sw_buf_init(&b, 0);
	is_str(enc(&b, "a b/c~\xe1\x88\xb4", 0), "a%20b%2Fc~%E1%88%B4",
	    "all but unreserved is escaped, uppercase hex");
	is_str(enc(&b, "a b/c", SW_PCT_KEEP_SLASH), "a%20b/c",
	    "a kept slash stays");
	is_str(enc(&b, "a b+c", SW_PCT_FORM), "a+b%2Bc",
	    "a form body writes a space as '+'");
	memset(big, ' ', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ok(strlen(enc(&b, big, 0)) == 3 * (sizeof(big) - 1),
	    "a value longer than one chunk is encoded whole");
	n = sw_pct_encode_to(out, "x/y", 3, 0);
	out[n] = '\0';
	is_str(out, "x%2Fy", "encoding into an array");
	sw_buf_free(&b);
	sw_buf_init(&b, 4);
	ok(sw_pct_encode(&b, "a b", 3, 0) == SW_ETOOBIG,
	    "past the buffer's cap is SW_ETOOBIG");
	sw_buf_free(&b);
}

static void
test_decode(void)
{
	char out[16];

	ok(sw_url_decode("a+b%2Fc", 7, out, sizeof(out)) == 0 &&
		strcmp(out, "a b/c") == 0,
	    "a query value: '+' is a space");
	ok(sw_pct_decode("a+b%2fc", 7, out, sizeof(out), 0) == 5 &&
		strcmp(out, "a+b/c") == 0,
	    "a path segment: '+' stays");
	ok(sw_url_decode("a%2", 3, out, sizeof(out)) == -1,
	    "a cut escape is refused");
	ok(sw_url_decode("a%zz", 4, out, sizeof(out)) == -1,
	    "a non-hex escape is refused");
	ok(sw_url_decode("a%00b", 5, out, sizeof(out)) == -1,
	    "a decoded NUL is refused");
	ok(sw_url_decode("abcdef", 6, out, 6) == -1,
	    "a buffer one byte short is refused");
	ok(sw_url_decode("abcdef", 6, out, 7) == 0, "an exact fit is taken");
	ok(sw_pct_decode("%zz%4", 5, out, sizeof(out), SW_PCT_LENIENT) == 5 &&
		strcmp(out, "%zz%4") == 0,
	    "lenient: a bad escape stays as it is");
	ok(sw_pct_decode("a%00b", 5, out, sizeof(out), SW_PCT_LENIENT) == 3 &&
		out[1] == '\0' && out[2] == 'b',
	    "lenient: a decoded NUL is kept");
}

int
main(void)
{
	test_hex();
	test_encode();
	test_decode();
	return tap_done();
}
