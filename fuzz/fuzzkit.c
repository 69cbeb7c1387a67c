/*
 * fuzzkit.c: helpers of the harnesses (see fuzzkit.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzzkit.h"
#include "lib/json.h"
#include "api/optable.h"
#include "api/req.h"

int
fz_split(const uint8_t *data, size_t size, char *buf, size_t bufsz,
    const char **f, int n, size_t *lastlen)
{
	size_t i = 0, o = 0, start;
	int k;

	*lastlen = 0;
	for (k = 0; k < n; k++) {
		start = o;
		while (i < size && o + 1 < bufsz &&
		    (k == n - 1 || data[i] != '\n'))
			buf[o++] = (char)data[i++];
		if (i < size && data[i] == '\n' && k < n - 1)
			i++;
		if (o >= bufsz)
			o = bufsz - 1;
		buf[o] = '\0';
		f[k] = buf + start;
		if (k == n - 1)
			*lastlen = o - start;
		if (o + 1 < bufsz)
			o++;
	}
	return n;
}

static sw_err
fz_echo(struct sw_req *r)
{
	sw_req_reply(r, 200, json_object_get(r->args));
	return SW_OK;
}

const struct sw_handler_row *
fz_handlers(void)
{
	static struct sw_handler_row rows[256];
	size_t i;

	if (rows[0].op == NULL)
		for (i = 0; i < sw_optable_len && i + 1 < 256; i++) {
			rows[i].op = sw_optable[i].name;
			rows[i].fn = fz_echo;
		}
	return rows;
}

void
fz_assert_json(const char *text, size_t len, const char *what)
{
	json_object *o = NULL;
	char why[160];

	if (sw_text_bad(text, len) != NULL) {
		fprintf(stderr, "%s is not valid UTF-8 text\n", what);
		abort();
	}
	if (sw_json_parse(text, len, &o, why, sizeof(why)) != SW_OK) {
		fprintf(stderr, "%s is not JSON: %s\n", what, why);
		abort();
	}
	json_object_put(o);
}
