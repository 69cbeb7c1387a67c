/*
 * aws_person.h: AWS contexts that act for a person.  With a person role
 * configured (slipway.conf's person_role_arn), the calls made for a
 * person go through sts:AssumeRole of that role with SourceIdentity set
 * to the person, so CloudTrail names who asked, not Slipway's role.
 */
#ifndef SW_AWS_PERSON_H
#define SW_AWS_PERSON_H

#include <stddef.h>

#include "cloud/aws.h"
#include "lib/conf.h"

/* The longest SourceIdentity AWS takes (and the shortest). */
#define AWS_SOURCE_IDENTITY_MAX 64
#define AWS_SOURCE_IDENTITY_MIN 2

/*
 * person as a SourceIdentity: every character outside [A-Za-z0-9_+=,.@-]
 * becomes '-', cut to 64, padded with '_' to 2; into out (at least 65
 * bytes).  A name that would start with "aws:" cannot (':' is replaced).
 */
void aws_source_identity(const char *person, char *out, size_t outsz);

/*
 * The context to make person's calls with: base itself when no person
 * role is configured (or person is NULL or empty), else a context
 * signing with a session of the person role whose SourceIdentity is the
 * person (RoleSessionName "slipway-<person>").  Sessions are kept per
 * person and renewed SW_AWS_CREDS_ADVISORY seconds before they expire.
 * The context stays owned by this module (one cache per process, for one
 * thread).  err explains a refused AssumeRole.
 */
sw_err aws_person_ctx(struct aws_ctx *base, const struct sw_config *,
    const char *person, struct aws_ctx **out, struct aws_error *);

/* Forget every kept session (tests, configuration changes). */
void aws_person_reset(void);

#endif
