/*
 * test-arena.c: lib/arena.c and the step's sw_keep on top of it: every
 * copy is whole and stays valid, however many a step keeps and however
 * long they are, until the step's arena is freed.
 */
#include <stdio.h>
#include <string.h>

#include "lib/arena.h"
#include "pipelines/pipeline.h"
#include "t/tap.h"

#define NKEEP 40
#define LONG 700

int
main(void)
{
	struct sw_arena a = SW_ARENA_INIT;
	struct sw_step s;
	const char *kept[NKEEP];
	char want[NKEEP][LONG + 16], big[20000];
	int i, same = 1;
	char *p, *q;

	p = sw_arena_strdup(&a, "hello");
	q = sw_arena_alloc(&a, 3);
	is_str(p, "hello", "a copy reads back");
	ok(q != NULL && q != p, "a second allocation is apart");
	ok(((size_t)q % sizeof(void *)) == 0, "allocations are aligned");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	p = sw_arena_strdup(&a, big);
	ok(p != NULL && strlen(p) == sizeof(big) - 1,
	    "a string larger than a block is kept whole");
	ok(sw_arena_strdup(&a, NULL) == NULL, "NULL stays NULL");
	sw_arena_free(&a);
	ok(a.head == NULL && a.used == 0, "free empties the arena");

	memset(&s, 0, sizeof(s));
	for (i = 0; i < NKEEP; i++) {
		memset(want[i], 'a' + i % 26, LONG);
		snprintf(want[i] + LONG, 16, "-%d", i);
		kept[i] = sw_keep(&s, want[i]);
	}
	for (i = 0; i < NKEEP; i++)
		if (kept[i] == NULL || strcmp(kept[i], want[i]) != 0)
			same = 0;
	ok(same, "%d kept strings of %d bytes are all whole and distinct",
	    NKEEP, LONG);
	ok(sw_keep(&s, NULL) == NULL, "sw_keep(NULL) is NULL");
	sw_step_release(&s);
	ok(s.arena.head == NULL, "the step's arena is freed in one place");
	return tap_done();
}
