/*
 * arena.c: a bump allocator over a list of blocks from lib/alloc.h (so
 * the test build's allocation faults reach it).  Small requests share
 * a block of SW_ARENA_BLOCK bytes; a larger one gets a block of its own.
 * Nothing is freed alone: sw_arena_free releases every block at once.
 */
#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/alloc.h"
#include "lib/arena.h"

/* Bytes of a shared block (the header not counted). */
#define SW_ARENA_BLOCK 4096

struct sw_arena_blk {
	struct sw_arena_blk *next;
	size_t size; /* bytes after the header */
	size_t off; /* bytes of them handed out */
	alignas(max_align_t) unsigned char data[];
};

/* A new block of at least n bytes at the head of a; NULL if no memory. */
static struct sw_arena_blk *
arena_grow(struct sw_arena *a, size_t n)
{
	struct sw_arena_blk *b;
	size_t size = n > SW_ARENA_BLOCK ? n : SW_ARENA_BLOCK;

	if (size > SIZE_MAX - sizeof(*b))
		return NULL;
	if ((b = sw_malloc(sizeof(*b) + size)) == NULL)
		return NULL;
	b->size = size;
	b->off = 0;
	b->next = a->head;
	a->head = b;
	return b;
}

void *
sw_arena_alloc(struct sw_arena *a, size_t n)
{
	const size_t align = alignof(max_align_t);
	struct sw_arena_blk *b = a->head;
	size_t off;
	void *p;

	if (n == 0)
		n = 1;
	if (n > SIZE_MAX - align)
		return NULL;
	n = (n + align - 1) & ~(align - 1);
	off = b != NULL ? b->off : 0;
	if (b == NULL || b->size - off < n) {
		if ((b = arena_grow(a, n)) == NULL)
			return NULL;
		off = 0;
	}
	p = b->data + off;
	b->off = off + n;
	a->used += n;
	return p;
}

char *
sw_arena_strdup(struct sw_arena *a, const char *s)
{
	size_t n;
	char *p;

	if (s == NULL)
		return NULL;
	n = strlen(s) + 1;
	if ((p = sw_arena_alloc(a, n)) != NULL)
		memcpy(p, s, n);
	return p;
}

void
sw_arena_free(struct sw_arena *a)
{
	struct sw_arena_blk *b, *next;

	for (b = a->head; b != NULL; b = next) {
		next = b->next;
		free(b);
	}
	a->head = NULL;
	a->used = 0;
}
