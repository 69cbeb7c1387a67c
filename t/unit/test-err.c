/* test-err.c: every sw_err maps to a status, a slug and a JSON-RPC code. */
#include <string.h>

#include "lib/err.h"
#include "t/tap.h"

int
main(void)
{
	int e, distinct = 1;

	for (e = 0; e < SW_ERR__MAX; e++) {
		const struct sw_err_info *i = sw_err_info((sw_err)e);

		ok(i->http_status >= 200 && i->http_status < 600 &&
			i->slug != NULL && i->title != NULL,
		    "error %d has status %d and slug %s", e, i->http_status,
		    i->slug);
	}
	for (e = 1; e < SW_ERR__MAX; e++) {
		int f;

		for (f = e + 1; f < SW_ERR__MAX; f++)
			if (strcmp(sw_err_slug((sw_err)e),
				sw_err_slug((sw_err)f)) == 0)
				distinct = 0;
	}
	ok(distinct, "problem type slugs are distinct");
	is_int(sw_err_http_status(SW_EINVAL), 400, "EINVAL is 400");
	is_int(sw_err_http_status(SW_EUNAUTH), 401, "EUNAUTH is 401");
	is_int(sw_err_http_status(SW_EFORBIDDEN), 403, "EFORBIDDEN is 403");
	is_int(sw_err_http_status(SW_ETOOBIG), 413, "ETOOBIG is 413");
	is_int(sw_err_http_status((sw_err)999), 500,
	    "out-of-range error maps to 500");
	return tap_done();
}
