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
	sqlite3_stmt *st;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((st = sw_db_stmt(db, STMT_PRICE_GET)) == NULL)
		return SW_EDB;
	sqlite3_bind_text(st, 1, service, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, region, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, instance_type, -1, SQLITE_STATIC);
	rc = sw_db_step(st);
	if (rc == SQLITE_ROW) {
		out->known = sqlite3_column_type(st, 0) != SQLITE_NULL;
		out->usd_micro = sqlite3_column_int64(st, 0);
		sw_fmt_text(out->sku, sizeof(out->sku), "%s",
		    sw_col_text(st, 1));
		sw_fmt_text(out->published, sizeof(out->published), "%s",
		    sw_col_text(st, 2));
		out->fetched_ms = sqlite3_column_int64(st, 3);
	}
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return SW_ENOTFOUND;
	return rc == SQLITE_ROW ? SW_OK : sw_db_err(db, rc);
}

sw_err
sw_price_put(struct sw_db *db, const char *service, const char *region,
    const char *instance_type, struct sw_price *p)
{
	sqlite3_stmt *st;
	int rc;

	if ((st = sw_db_stmt(db, STMT_PRICE_PUT)) == NULL)
		return SW_EDB;
	p->fetched_ms = sw_now_ms();
	sqlite3_bind_text(st, 1, service, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, region, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, instance_type, -1, SQLITE_STATIC);
	if (p->known)
		sqlite3_bind_int64(st, 4, p->usd_micro);
	else
		sqlite3_bind_null(st, 4);
	sqlite3_bind_text(st, 5, p->sku, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, p->published, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, p->fetched_ms);
	rc = sw_db_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? SW_OK : sw_db_err(db, rc);
}
