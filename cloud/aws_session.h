/*
 * aws_session.h: a small cache of AWS contexts kept by a text key, each
 * signing with a session of its own that is renewed shortly before it
 * expires.  The member accounts' contexts (aws_member.c, keyed by
 * account and region) and the people's (aws_person.c, keyed by role and
 * person) are two caches of this kind.
 */
#ifndef SW_AWS_SESSION_H
#define SW_AWS_SESSION_H

#include <stddef.h>
#include <time.h>

#include "cloud/aws.h"

/* A role ARN (2,048), a separator and a SourceIdentity (64). */
#define AWS_SESSION_KEY_MAX 2200

struct aws_session {
	char key[AWS_SESSION_KEY_MAX];
	struct aws_ctx ctx;
	time_t expires; /* 0: the base's credentials */
	time_t used;
	int live; /* ctx is set up */
};

/*
 * The cache's entry for key: the live one kept for it, else a free one,
 * else the one used longest ago, dropped.  An entry that is not live
 * comes back zeroed with its key set.  NULL if key is too long.
 */
struct aws_session *aws_session_get(
    struct aws_session *cache, size_t n, const char *key);

/* True when the entry's session must be renewed before it is used. */
int aws_session_due(const struct aws_session *, time_t now);

/* Free an entry's context and zero it. */
void aws_session_drop(struct aws_session *);

/* Drop every entry of a cache. */
void aws_session_reset(struct aws_session *cache, size_t n);

#endif
