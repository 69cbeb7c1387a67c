/*
 * arena.h: memory that lives as long as one unit of work and is freed
 * in one place when it ends (nginx's pools).  A pipeline step keeps the
 * strings it reads out of response documents here (sw_keep), so they
 * outlive the documents without a fixed-size slot to truncate or
 * overwrite them.
 *
 *	struct sw_arena a = SW_ARENA_INIT;
 *	const char *st = sw_arena_strdup(&a, json_status);
 *	...
 *	sw_arena_free(&a);	every copy at once
 */
#ifndef SW_ARENA_H
#define SW_ARENA_H

#include <stddef.h>

struct sw_arena_blk;

struct sw_arena {
	struct sw_arena_blk *head; /* newest block first */
	size_t used; /* bytes handed out, all blocks */
};

#define SW_ARENA_INIT \
	{ \
		NULL, 0 \
	}

/* n bytes (aligned for any type) that stay valid until sw_arena_free;
 * NULL when out of memory. */
void *sw_arena_alloc(struct sw_arena *, size_t n);
/* A copy of s in the arena (the whole string, never cut); NULL for
 * NULL or when out of memory. */
char *sw_arena_strdup(struct sw_arena *, const char *s);
/* Free every block; the arena is empty and may be used again. */
void sw_arena_free(struct sw_arena *);

#endif
