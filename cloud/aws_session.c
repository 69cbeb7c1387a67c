/*
 * aws_session.c: a cache of AWS contexts kept by a text key, least
 * recently used first out.  See aws_session.h.
 */
#include <string.h>

#include "cloud/aws_session.h"
#include "lib/limits.h"

struct aws_session *
aws_session_get(struct aws_session *cache, size_t n, const char *key)
{
	struct aws_session *p, *old = &cache[0];

	if (strlen(key) >= sizeof(cache[0].key))
		return NULL;
	for (p = cache; p < cache + n; p++)
		if (p->live && strcmp(p->key, key) == 0)
			return p;
	for (p = cache; p < cache + n; p++) {
		if (!p->live) {
			old = p;
			break;
		}
		if (p->used < old->used)
			old = p;
	}
	aws_session_drop(old);
	memcpy(old->key, key, strlen(key) + 1);
	return old;
}

int
aws_session_due(const struct aws_session *p, time_t now)
{
	return now >= p->expires - SW_AWS_CREDS_ADVISORY;
}

void
aws_session_drop(struct aws_session *p)
{
	if (p->live)
		aws_ctx_free(&p->ctx);
	memset(p, 0, sizeof(*p));
}

void
aws_session_reset(struct aws_session *cache, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		aws_session_drop(&cache[i]);
}
