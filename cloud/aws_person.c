/*
 * aws_person.c: AWS contexts that act for a person: a session of the
 * configured person role, assumed with SourceIdentity = the person and
 * kept until shortly before it expires.  See aws_person.h.
 */
#include <string.h>
#include <time.h>

#include "cloud/aws_api.h"
#include "cloud/aws_person.h"
#include "cloud/aws_session.h"
#include "lib/buf.h"
#include "lib/limits.h"

#define PERSON_SLOTS 16
#define PERSON_SESSION_S 3600

/* Keyed "role person". */
static struct aws_session slots[PERSON_SLOTS];

static int
source_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || (c != '\0' && strchr("_+=,.@-", c));
}

void
aws_source_identity(const char *person, char *out, size_t outsz)
{
	size_t i, n = 0;

	if (outsz == 0)
		return;
	for (i = 0;
	     person[i] != '\0' && n < AWS_SOURCE_IDENTITY_MAX && n + 1 < outsz;
	     i++)
		out[n++] = source_char_ok(person[i]) ? person[i] : '-';
	while (n < AWS_SOURCE_IDENTITY_MIN && n + 1 < outsz)
		out[n++] = '_';
	out[n] = '\0';
}

/* A new session for the slot's person, set on its context. */
static sw_err
slot_renew(struct aws_session *p, struct aws_ctx *base,
    const struct sw_config *cfg, const char *role, const char *who,
    struct aws_error *err)
{
	struct aws_creds c;
	char session[AWS_SOURCE_IDENTITY_MAX + 1];
	sw_err rc;

	/* RoleSessionName has SourceIdentity's rules: "slipway-" and the
	 * person, cut to 64. */
	sw_fmt_text(session, sizeof(session), "slipway-%.56s", who);
	if ((rc = aws_sts_assume_role(
		 base, role, session, who, PERSON_SESSION_S, &c, err)) != SW_OK)
		return rc;
	if (!p->live) {
		if ((rc = sw_aws_setup(&p->ctx, cfg)) != SW_OK) {
			aws_ctx_free(&p->ctx);
			return rc;
		}
		p->ctx.clock = base->clock;
		p->live = 1;
	}
	if ((rc = creds_set_static(
		 &p->ctx.creds, c.access_key, c.secret_key, c.token)) != SW_OK)
		return rc;
	p->expires = c.expiration;
	return SW_OK;
}

sw_err
aws_person_ctx(struct aws_ctx *base, const struct sw_config *cfg,
    const char *person, struct aws_ctx **out, struct aws_error *err)
{
	const char *role = sw_config_person_role(cfg);
	struct aws_session *p;
	char who[AWS_SOURCE_IDENTITY_MAX + 1], key[AWS_SESSION_KEY_MAX];
	time_t now = time(NULL);
	sw_err rc;

	*out = base;
	if (role == NULL || person == NULL || person[0] == '\0')
		return SW_OK;
	aws_source_identity(person, who, sizeof(who));
	if (sw_fmt(key, sizeof(key), "%s %s", role, who) != SW_OK ||
	    (p = aws_session_get(slots, PERSON_SLOTS, key)) == NULL)
		return SW_EINVAL;
	if ((!p->live || aws_session_due(p, now)) &&
	    (rc = slot_renew(p, base, cfg, role, who, err)) != SW_OK) {
		if (!p->live)
			aws_session_drop(p);
		return rc;
	}
	p->used = now;
	*out = &p->ctx;
	return SW_OK;
}

void
aws_person_reset(void)
{
	aws_session_reset(slots, PERSON_SLOTS);
}
