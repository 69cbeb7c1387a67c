/*
 * prices.c: one instance type's hourly price, cached (prices.h).
 * 24 hours for a price AWS lists, 1 hour for "AWS lists none".
 */
#include <string.h>

#include "cloud/aws_api.h"
#include "lib/buf.h"
#include "lib/log.h"
#include "pipelines/prices.h"

#define KNOWN_TTL_MS (24LL * 3600 * 1000) /* the catalogue changes */
#define UNKNOWN_TTL_MS (3600LL * 1000) /* ask again sooner */

void
sw_price_hour(struct sw_db *db, struct aws_ctx *aws, const char *itype,
    struct sw_price *p, const char **why)
{
	struct aws_price ap;
	struct aws_error err;
	const char *region = aws->region;
	int cached;
	int64_t age;

	*why = NULL;
	cached = sw_price_get(db, SW_PRICE_HYPERPOD, region, itype, p) == SW_OK;
	age = sw_now_ms() - p->fetched_ms;
	if (cached && age < (p->known ? KNOWN_TTL_MS : UNKNOWN_TTL_MS))
		goto out;
	memset(&err, 0, sizeof(err));
	if (aws_price_hourly(
		aws, SW_PRICE_HYPERPOD, region, itype, &ap, &err) != SW_OK) {
		sw_warn("price of %s in %s: %s: %s", itype, region, err.code,
		    err.message);
		if (!cached) {
			*why = "the Price List API did not answer";
			return;
		}
		goto out;
	}
	memset(p, 0, sizeof(*p));
	p->known = ap.known;
	p->usd_micro = ap.usd_micro;
	sw_fmt_text(p->sku, sizeof(p->sku), "%s", ap.sku);
	sw_fmt_text(p->published, sizeof(p->published), "%s", ap.published);
	if (sw_price_put(db, SW_PRICE_HYPERPOD, region, itype, p) != SW_OK)
		sw_warn("cannot cache the price of %s in %s", itype, region);
out:
	if (!p->known)
		*why = "AWS lists no on-demand price for this type";
}
