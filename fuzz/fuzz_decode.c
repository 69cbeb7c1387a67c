/*
 * fuzz_decode.c: percent-decoding of query strings and path segments
 * (lib/url.c), the segment rules and the UTF-8 checks (lib/json.c).
 * Invariants: a decoded string has no NUL and fits its buffer;
 * sw_utf8_dup keeps the length and always gives valid UTF-8.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "api/router.h"
#include "lib/url.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char out[512], *s, *clean;
	size_t n;

	if (size > 4096)
		return 0;
	if (sw_url_decode((const char *)data, size, out, sizeof(out)) == 0) {
		n = strlen(out);
		if (n >= sizeof(out))
			abort();
		(void)sw_path_segment_bad(out);
		(void)sw_text_bad(out, n);
	}
	if ((s = malloc(size + 1)) == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	n = strlen(s);
	(void)sw_path_segment_bad(s);
	if ((clean = sw_utf8_dup(s)) != NULL) {
		if (strlen(clean) != n || sw_text_bad(clean, n) != NULL)
			abort();
		if (sw_text_bad(s, n) == NULL && strcmp(clean, s) != 0)
			abort();
		free(clean);
	}
	free(s);
	return 0;
}
