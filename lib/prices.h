/*
 * prices.h: the state store's cache of hourly prices read from the
 * AWS Price List API.  A row says what AWS listed for one instance
 * type of one service in one region: a price in millionths of a US
 * dollar per hour, or that it lists none ("unknown", never zero), with
 * the catalogue's publication date and when Slipway read it.
 */
#ifndef SW_PRICES_H
#define SW_PRICES_H

#include <stdint.h>

#include "lib/db.h"
#include "lib/err.h"

struct sw_price {
	int known; /* 0: AWS lists no price */
	int64_t usd_micro; /* per hour, when known */
	char sku[32];
	char published[32]; /* the catalogue's publicationDate */
	int64_t fetched_ms; /* when Slipway read it */
};

/* The cached price: SW_OK, or SW_ENOTFOUND when none was read. */
sw_err sw_price_get(struct sw_db *, const char *service, const char *region,
    const char *instance_type, struct sw_price *out);
/* Record what the Price List API said (p->fetched_ms is set here). */
sw_err sw_price_put(struct sw_db *, const char *service, const char *region,
    const char *instance_type, struct sw_price *p);

#endif
