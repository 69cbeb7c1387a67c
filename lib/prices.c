/*
 * prices.c: the cache of hourly prices in the state store (prices.h).
 * The statements are rows of db.c's table.
 */
#include <string.h>

#include "lib/db.h"
#include "lib/buf.h"
#include "lib/prices.h"

sw_err
sw_price_get(struct sw_db *db, const char *service, const char *region,
    const char *instance_type, struct sw_price *out)
{
	struct sw_st *st;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((st = sw_db_stmt(db, STMT_PRICE_GET)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, service);
	sw_bind_text(st, 2, region);
	sw_bind_text(st, 3, instance_type);
	rc = sw_db_step(st);
	if (rc == SW_DB_ROW) {
		out->known = !sw_col_null(st, 0);
		out->usd_micro = sw_col_int64(st, 0);
		sw_fmt_text(
		    out->sku, sizeof(out->sku), "%s", sw_col_text(st, 1));
		sw_fmt_text(out->published, sizeof(out->published), "%s",
		    sw_col_text(st, 2));
		out->fetched_ms = sw_col_int64(st, 3);
	}
	sw_reset(st);
	if (rc == SW_DB_DONE)
		return SW_ENOTFOUND;
	return rc == SW_DB_ROW ? SW_OK : sw_db_err(db, rc);
}

sw_err
sw_price_put(struct sw_db *db, const char *service, const char *region,
    const char *instance_type, struct sw_price *p)
{
	struct sw_st *st;
	int rc;

	if ((st = sw_db_stmt(db, STMT_PRICE_PUT)) == NULL)
		return SW_EDB;
	p->fetched_ms = sw_now_ms();
	sw_bind_text(st, 1, service);
	sw_bind_text(st, 2, region);
	sw_bind_text(st, 3, instance_type);
	if (p->known)
		sw_bind_int64(st, 4, p->usd_micro);
	else
		sw_bind_null(st, 4);
	sw_bind_text(st, 5, p->sku);
	sw_bind_text(st, 6, p->published);
	sw_bind_int64(st, 7, p->fetched_ms);
	rc = sw_db_step(st);
	sw_reset(st);
	return rc == SW_DB_DONE ? SW_OK : sw_db_err(db, rc);
}
