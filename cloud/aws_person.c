/*
 * aws_person.c: AWS contexts that act for a person: a session of the
 * configured person role, assumed with SourceIdentity = the person and
 * kept until shortly before it expires.  See aws_person.h.
 */
#include <string.h>
#include <time.h>

#include "cloud/aws_api.h"
#include "cloud/aws_person.h"
#include "lib/buf.h"
#include "lib/limits.h"

#define PERSON_SLOTS		16
#define PERSON_SESSION_S	3600

struct person_slot {
	char		 role[2049];
	char		 who[AWS_SOURCE_IDENTITY_MAX + 1];
	struct aws_ctx	 ctx;
	time_t		 expires;
	time_t		 used;
	int		 live;		/* ctx is set up */
};

static struct person_slot slots[PERSON_SLOTS];

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
	for (i = 0; person[i] != '\0' && n < AWS_SOURCE_IDENTITY_MAX &&
	    n + 1 < outsz; i++)
		out[n++] = source_char_ok(person[i]) ? person[i] : '-';
	while (n < AWS_SOURCE_IDENTITY_MIN && n + 1 < outsz)
		out[n++] = '_';
	out[n] = '\0';
}

/* The slot kept for role and who, else a free one, else the one used
 * longest ago (its context is freed). */
static struct person_slot *
slot_for(const char *role, const char *who)
{
	struct person_slot *p, *old = &slots[0];

	for (p = slots; p < slots + PERSON_SLOTS; p++)
		if (p->live && strcmp(p->role, role) == 0 &&
		    strcmp(p->who, who) == 0)
			return p;
	for (p = slots; p < slots + PERSON_SLOTS; p++) {
		if (!p->live)
			return p;
		if (p->used < old->used)
			old = p;
	}
	aws_ctx_free(&old->ctx);
	memset(old, 0, sizeof(*old));
	return old;
}

/* A new session for the slot's person, set on its context. */
static sw_err
slot_renew(struct person_slot *p, struct aws_ctx *base,
    const struct sw_config *cfg, struct aws_error *err)
{
	struct aws_creds c;
	char session[AWS_SOURCE_IDENTITY_MAX + 1];
	sw_err rc;

	/* RoleSessionName has SourceIdentity's rules: "slipway-" and the
	 * person, cut to 64. */
	sw_fmt_text(session, sizeof(session), "slipway-%.56s", p->who);
	if ((rc = aws_sts_assume_role(base, p->role, session, p->who,
	    PERSON_SESSION_S, &c, err)) != SW_OK)
		return rc;
	if (!p->live) {
		if ((rc = sw_aws_setup(&p->ctx, cfg)) != SW_OK) {
			aws_ctx_free(&p->ctx);
			return rc;
		}
		p->ctx.clock = base->clock;
		p->live = 1;
	}
	if ((rc = creds_set_static(&p->ctx.creds, c.access_key, c.secret_key,
	    c.token)) != SW_OK)
		return rc;
	p->expires = c.expiration;
	return SW_OK;
}

sw_err
aws_person_ctx(struct aws_ctx *base, const struct sw_config *cfg,
    const char *person, struct aws_ctx **out, struct aws_error *err)
{
	const char *role = sw_config_person_role(cfg);
	struct person_slot *p;
	char who[AWS_SOURCE_IDENTITY_MAX + 1];
	time_t now = time(NULL);
	sw_err rc;

	*out = base;
	if (role == NULL || person == NULL || person[0] == '\0')
		return SW_OK;
	if (strlen(role) >= sizeof(p->role))
		return SW_EINVAL;
	aws_source_identity(person, who, sizeof(who));
	p = slot_for(role, who);
	if (!p->live) {
		if (sw_fmt(p->role, sizeof(p->role), "%s", role) != SW_OK ||
		    sw_fmt(p->who, sizeof(p->who), "%s", who) != SW_OK)
			return SW_EINVAL;
	}
	if (!p->live || now >= p->expires - SW_AWS_CREDS_ADVISORY) {
		if ((rc = slot_renew(p, base, cfg, err)) != SW_OK) {
			if (!p->live)
				memset(p, 0, sizeof(*p));
			return rc;
		}
	}
	p->used = now;
	*out = &p->ctx;
	return SW_OK;
}

void
aws_person_reset(void)
{
	struct person_slot *p;

	for (p = slots; p < slots + PERSON_SLOTS; p++) {
		if (p->live)
			aws_ctx_free(&p->ctx);
		memset(p, 0, sizeof(*p));
	}
}
