/*
 * aws_member.c: AWS contexts for clusters in another account or region:
 * one context per (account, region), signing with a session of the
 * member role of that account (sts:AssumeRole with the external id),
 * renewed shortly before it expires.  See aws_member.h.
 */
#include <string.h>
#include <time.h>

#include "cloud/aws_api.h"
#include "cloud/aws_member.h"
#include "cloud/aws_session.h"
#include "lib/buf.h"
#include "lib/limits.h"

#define MEMBER_SLOTS 16
#define MEMBER_SESSION_S 3600
#define MEMBER_SESSION_NAME "slipway"

/* Keyed "account region"; Slipway's own account is "". */
static struct aws_session slots[MEMBER_SLOTS];

static int
own_account(const struct sw_config *cfg, const char *account)
{
	const char *home = sw_config_account(cfg);

	return account == NULL || account[0] == '\0' ||
	    (home != NULL && strcmp(home, account) == 0);
}

int
aws_member_is_home(const struct aws_ctx *base, const struct sw_config *cfg,
    const char *account, const char *region)
{
	return own_account(cfg, account) &&
	    (region == NULL || region[0] == '\0' ||
		strcmp(region, base->region) == 0);
}

/* The slot's context in its region, signing with base's credentials. */
static sw_err
slot_setup(struct aws_session *p, struct aws_ctx *base,
    const struct sw_config *cfg, const char *account, const char *region)
{
	sw_err rc;

	if ((rc = sw_aws_setup(&p->ctx, cfg)) != SW_OK ||
	    (rc = sw_fmt(p->ctx.region, sizeof(p->ctx.region), "%s", region)) !=
		SW_OK) {
		aws_ctx_free(&p->ctx);
		return rc;
	}
	p->ctx.clock = base->clock;
	if (account[0] == '\0')
		memcpy(p->ctx.account, base->account, sizeof(p->ctx.account));
	else if ((rc = sw_fmt(p->ctx.account, sizeof(p->ctx.account), "%s",
		      account)) != SW_OK) {
		aws_ctx_free(&p->ctx);
		return rc;
	}
	p->live = 1;
	return SW_OK;
}

/* A new session of the member role for the slot's account. */
static sw_err
slot_renew(struct aws_session *p, struct aws_ctx *base,
    const struct sw_config *cfg, const char *role, struct aws_error *err)
{
	struct aws_creds c;
	sw_err rc;

	if ((rc = aws_sts_assume_role_ext(base, role, MEMBER_SESSION_NAME, NULL,
		 sw_config_member_external_id(cfg), MEMBER_SESSION_S, &c,
		 err)) != SW_OK)
		return rc;
	if ((rc = creds_set_static(
		 &p->ctx.creds, c.access_key, c.secret_key, c.token)) != SW_OK)
		return rc;
	p->expires = c.expiration;
	return SW_OK;
}

sw_err
aws_member_ctx(struct aws_ctx *base, const struct sw_config *cfg,
    const char *account, const char *region, struct aws_ctx **out, char *role,
    size_t rolesz, struct aws_error *err)
{
	struct aws_session *p;
	char arn[2049], key[AWS_SESSION_KEY_MAX];
	int own = own_account(cfg, account);
	time_t now = time(NULL);
	sw_err rc;

	*out = base;
	if (role != NULL && rolesz > 0)
		role[0] = '\0';
	if (aws_member_is_home(base, cfg, account, region))
		return SW_OK;
	if (region == NULL || region[0] == '\0')
		region = base->region;
	if (!own &&
	    (rc = sw_config_member_role(cfg, account, arn, sizeof(arn))) !=
		SW_OK)
		return rc;
	if (!own && role != NULL && sw_fmt(role, rolesz, "%s", arn) != SW_OK)
		role[0] = '\0';
	if (own)
		account = "";
	if (sw_fmt(key, sizeof(key), "%s %s", account, region) != SW_OK ||
	    (p = aws_session_get(slots, MEMBER_SLOTS, key)) == NULL)
		return SW_EINVAL;
	if (!p->live &&
	    (rc = slot_setup(p, base, cfg, account, region)) != SW_OK) {
		aws_session_drop(p);
		return rc;
	}
	if (!own && aws_session_due(p, now) &&
	    (rc = slot_renew(p, base, cfg, arn, err)) != SW_OK) {
		aws_session_drop(p);
		return rc;
	}
	p->used = now;
	*out = &p->ctx;
	return SW_OK;
}

sw_err
aws_member_enter(struct aws_ctx *ctx, const struct sw_config *cfg,
    const char *account, const char *region, struct aws_error *err)
{
	struct aws_creds c;
	char arn[2049];
	sw_err rc;

	if (region != NULL && region[0] != '\0' &&
	    (rc = sw_fmt(ctx->region, sizeof(ctx->region), "%s", region)) !=
		SW_OK)
		return rc;
	if (own_account(cfg, account))
		return SW_OK;
	if ((rc = sw_config_member_role(cfg, account, arn, sizeof(arn))) !=
		SW_OK ||
	    (rc = aws_sts_assume_role_ext(ctx, arn, MEMBER_SESSION_NAME, NULL,
		 sw_config_member_external_id(cfg), MEMBER_SESSION_S, &c,
		 err)) != SW_OK)
		return rc;
	if ((rc = sw_fmt(ctx->account, sizeof(ctx->account), "%s", account)) !=
	    SW_OK)
		return rc;
	return creds_set_static(
	    &ctx->creds, c.access_key, c.secret_key, c.token);
}

void
aws_member_reset(void)
{
	aws_session_reset(slots, MEMBER_SLOTS);
}
