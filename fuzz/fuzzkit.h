/*
 * fuzzkit.h: what the libFuzzer harnesses in fuzz/ share: splitting one
 * input into NUL-free fields, a handler table of no-op handlers for
 * every row of the operation table, and an invariant check that aborts
 * (a finding) when a Slipway answer is not valid UTF-8 JSON text.
 */
#ifndef SW_FUZZKIT_H
#define SW_FUZZKIT_H

#include <stddef.h>
#include <stdint.h>

#include "api/router.h"

/*
 * Split data at '\n' into at most n fields, copied into buf (bufsz
 * bytes, NUL-terminated each) with pointers in f[]; fields past the
 * input are "".  The last field keeps the rest of the input, newlines
 * included; its length goes to *lastlen.  Returns the number found.
 */
int fz_split(const uint8_t *data, size_t size, char *buf, size_t bufsz,
    const char **f, int n, size_t *lastlen);

/* A handler table: every operation of api/optable.c, each answering
 * 200 with its validated arguments.  Static storage. */
const struct sw_handler_row *fz_handlers(void);

/* abort() unless text[0..len) is valid UTF-8 and parses as JSON. */
void fz_assert_json(const char *text, size_t len, const char *what);

#endif
