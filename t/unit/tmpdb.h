/* tmpdb.h: a throw-away state database for unit tests: a new state.db,
 * or the empty PostgreSQL database $SW_TEST_DATABASE names
 * (t/85-postgresql.t runs the tests on both engines). */
#ifndef SW_TMPDB_H
#define SW_TMPDB_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/db.h"

static char tmpdb_dir[64];

static struct sw_db *
tmpdb_open(void)
{
	struct sw_db *db = NULL;
	char path[128];
	const char *url = getenv("SW_TEST_DATABASE");

	if (url != NULL && url[0] != '\0')
		return sw_db_open(url, &db) == SW_OK ? db : NULL;
	snprintf(tmpdb_dir, sizeof(tmpdb_dir), "/tmp/sw-test-XXXXXX");
	if (mkdtemp(tmpdb_dir) == NULL)
		return NULL;
	snprintf(path, sizeof(path), "%s/state.db", tmpdb_dir);
	if (sw_db_open(path, &db) != SW_OK)
		return NULL;
	return db;
}

static void
tmpdb_close(struct sw_db *db)
{
	static const char *const sfx[] = { "", "-wal", "-shm" };
	char path[160];
	int i;

	sw_db_close(db);
	if (tmpdb_dir[0] == '\0')
		return;
	for (i = 0; i < 3; i++) {
		snprintf(
		    path, sizeof(path), "%s/state.db%s", tmpdb_dir, sfx[i]);
		unlink(path);
	}
	rmdir(tmpdb_dir);
}

#endif
