/*
 * aws_member.h: AWS contexts for the clusters that live outside
 * Slipway's own account and region.  A cluster names its account and
 * region; another account is reached through sts:AssumeRole of Slipway's
 * role there (slipway.conf member.*, cfn/member-role.yaml), with the
 * configured external id, and the session is kept until shortly before
 * it expires.
 */
#ifndef SW_AWS_MEMBER_H
#define SW_AWS_MEMBER_H

#include "cloud/aws.h"
#include "lib/conf.h"

/*
 * The context for calls into account and region (NULL or "": Slipway's
 * own, the account of its credentials and the configured region): base
 * itself when both are its own; else a context kept by this module (one
 * cache per process, for one thread) in that region, signing with
 * base's credentials for Slipway's own account or with a session of the
 * member role of another.  err explains a refused AssumeRole, and
 * role (at least 2049 bytes, or NULL) receives the role asked for.
 */
sw_err aws_member_ctx(struct aws_ctx *base, const struct sw_config *,
    const char *account, const char *region, struct aws_ctx **out, char *role,
    size_t rolesz, struct aws_error *);

/*
 * The same for one context of the caller's own, set up (sw_aws_setup)
 * and not kept: moved to region, and for another account signing with a
 * new session of its member role (one hour, not renewed).  For a thread
 * of its own (the stream's log followers).
 */
sw_err aws_member_enter(struct aws_ctx *ctx, const struct sw_config *,
    const char *account, const char *region, struct aws_error *);

/* True when account and region (NULL or "") are Slipway's own. */
int aws_member_is_home(const struct aws_ctx *base, const struct sw_config *,
    const char *account, const char *region);

/* Forget every kept context (tests, configuration changes). */
void aws_member_reset(void);

#endif
