/*
 * fuzz_resyntax.c: the RE2 syntax check (lib/resyntax.c) that a
 * training job's log_pattern passes before it reaches the training
 * operator.  The input is the pattern, cut at its first NUL as a C
 * string is.
 * Invariants: the answer is 0 or -1; a refusal says why, in words that
 * are valid UTF-8 when the pattern is and that fit the buffer, a short
 * one included (the words are quoted to users in JSON); the same
 * pattern gets the same answer; and the pass stays linear (libFuzzer's
 * -timeout catches a pattern that is not).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"
#include "lib/resyntax.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char pat[4097], why[256], small[40];
	int rc, rc2;
	size_t n;

	if (size >= sizeof(pat))
		return 0;
	memcpy(pat, data, size);
	pat[size] = '\0';
	n = strlen(pat);
	memset(why, 0x55, sizeof(why));
	rc = sw_re_check(pat, why, sizeof(why));
	if (rc != 0 && rc != -1)
		abort();
	if (rc == 0)
		return 0;
	if (why[0] == '\0' || memchr(why, '\0', sizeof(why)) == NULL)
		abort();
	rc2 = sw_re_check(pat, small, sizeof(small));
	if (rc2 != rc || strlen(small) >= sizeof(small) ||
	    strncmp(small, why, strlen(small)) != 0)
		abort();
	if (sw_text_bad(pat, n) == NULL &&
	    (sw_text_bad(why, strlen(why)) != NULL ||
		sw_text_bad(small, strlen(small)) != NULL))
		abort();
	return 0;
}
