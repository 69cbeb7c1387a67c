/*
 * ledger.c: the usage ledger's rows in the state store (ledger.h).
 * The statements are rows of db.c's table.
 */
#include <string.h>

#include "lib/json.h"
#include "lib/ledger.h"

sw_err
sw_ledger_cursor(struct sw_db *db, const char *cluster, int64_t *at)
{
	struct sw_st *st;
	int rc;

	*at = -1;
	if ((st = sw_db_stmt(db, STMT_LEDGER_CURSOR)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, cluster);
	if ((rc = sw_db_step(st)) == SW_DB_ROW)
		*at = sw_col_int64(st, 0);
	sw_reset(st);
	return rc == SW_DB_ROW || rc == SW_DB_DONE ? SW_OK : sw_db_err(db, rc);
}

sw_err
sw_ledger_move(
    struct sw_db *db, const char *cluster, int64_t from, int64_t to, int *moved)
{
	struct sw_st *st;
	sw_err e;

	*moved = 0;
	if ((st = sw_db_stmt(db, STMT_LEDGER_MOVE)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, cluster);
	if (from < 0)
		sw_bind_null(st, 2);
	else
		sw_bind_int64(st, 2, from);
	sw_bind_int64(st, 3, to);
	if ((e = sw_db_exec(db, st)) != SW_OK)
		return e;
	*moved = sw_db_changes(db) == 1;
	return SW_OK;
}

sw_err
sw_ledger_add(struct sw_db *db, const struct sw_ledger_row *row)
{
	struct sw_st *st;

	if ((st = sw_db_stmt(db, STMT_LEDGER_ADD)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, row->day);
	sw_bind_text(st, 2, row->cluster);
	sw_bind_text(st, 3, row->group);
	sw_bind_text(st, 4, row->type);
	sw_bind_text(st, 5, row->team);
	sw_bind_text(st, 6, row->job);
	sw_bind_text(st, 7, row->kind);
	sw_bind_int64(st, 8, row->seconds);
	if (row->priced)
		sw_bind_int64(st, 9, row->usd_us);
	else
		sw_bind_null(st, 9);
	return sw_db_exec(db, st);
}

sw_err
sw_ledger_read(struct sw_db *db, const char *from, const char *to,
    const char *cluster, const char *team, json_object **items)
{
	static const char *const cols[] = { "day", "cluster", "instance_group",
		"instance_type", "team", "job", "kind" };
	struct sw_st *st;
	int rc, i;

	*items = NULL;
	if ((st = sw_db_stmt(db, STMT_LEDGER_READ)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, from);
	sw_bind_text(st, 2, to);
	if (cluster != NULL)
		sw_bind_text(st, 3, cluster);
	if (team != NULL)
		sw_bind_text(st, 4, team);
	*items = json_object_new_array();
	while ((rc = sw_db_step(st)) == SW_DB_ROW) {
		json_object *o = json_object_new_object();

		for (i = 0; i < 7; i++)
			json_object_object_add(
			    o, cols[i], sw_js(sw_col_text(st, i)));
		json_object_object_add(
		    o, "seconds", json_object_new_int64(sw_col_int64(st, 7)));
		json_object_object_add(o, "usd_us",
		    sw_col_null(st, 8)
			? NULL
			: json_object_new_int64(sw_col_int64(st, 8)));
		json_object_array_add(*items, o);
	}
	return sw_db_rows_end(db, st, rc, items);
}

sw_err
sw_cluster_names(struct sw_db *db, json_object **names)
{
	struct sw_st *st;
	int rc;

	*names = NULL;
	if ((st = sw_db_stmt(db, STMT_CLUSTER_NAMES)) == NULL)
		return SW_EDB;
	*names = json_object_new_array();
	while ((rc = sw_db_step(st)) == SW_DB_ROW)
		json_object_array_add(*names, sw_js(sw_col_text(st, 0)));
	return sw_db_rows_end(db, st, rc, names);
}

sw_err
sw_ledger_burn_clear(struct sw_db *db, const char *cluster)
{
	struct sw_st *st;

	if ((st = sw_db_stmt(db, STMT_BURN_CLEAR)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, cluster);
	return sw_db_exec(db, st);
}

sw_err
sw_ledger_burn_add(struct sw_db *db, const char *cluster, const char *team,
    int64_t usd_micro_hour, int64_t at)
{
	struct sw_st *st;

	if ((st = sw_db_stmt(db, STMT_BURN_ADD)) == NULL)
		return SW_EDB;
	sw_bind_text(st, 1, cluster);
	sw_bind_text(st, 2, team);
	sw_bind_int64(st, 3, usd_micro_hour);
	sw_bind_int64(st, 4, at);
	return sw_db_exec(db, st);
}
