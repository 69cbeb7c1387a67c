/*
 * notify.c: notification subscriptions and the outbox's deliveries
 * (lib/notify.h).  Nothing here sends: the poller does
 * (poller/notify.c).  A subscription's fields depend on its target, a
 * rule the operation table cannot say by itself: each is checked here
 * and a refusal names the field.  So is who may make or delete one:
 * the team rule (lib/teams.h) for the team it is limited to (an
 * operator of that team) or, for one of every team, a platform row's
 * (a platform-admin); its owner, who made it, may always delete it.
 */
#include <stdio.h>
#include <string.h>

#include "handlers/handlers.h"
#include "cloud/http.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "lib/notify.h"
#include "lib/teams.h"

/* 400 naming field and the rule it breaks. */
static sw_err
refuse(struct sw_req *r, const char *field, const char *rule, const char *why)
{
	sw_ferr_add(&r->ferrs, field, rule, "%s", why);
	return sw_req_fail(r, SW_EINVAL, "%s: %s", field, why);
}

/* The members a target takes; any other target's is refused. */
static sw_err
target_fields_ok(struct sw_req *r, const char *target)
{
	static const struct {
		const char *field, *target;
	} owner[] = {
		{ "url", "webhook" },
		{ "secret", "webhook" },
		{ "format", "webhook" },
		{ "topic_arn", "sns" },
		{ "event_bus", "eventbridge" },
	};
	char why[96];
	size_t i;

	for (i = 0; i < sizeof(owner) / sizeof(owner[0]); i++) {
		if (sw_json_get(r->args, owner[i].field) == NULL ||
		    strcmp(owner[i].target, target) == 0)
			continue;
		sw_fmt_text(
		    why, sizeof(why), "is only for target %s", owner[i].target);
		return refuse(r, owner[i].field, "conflict", why);
	}
	return SW_OK;
}

/* The webhook's rules: a URL Slipway may reach, and a secret. */
static sw_err
webhook_ok(struct sw_req *r)
{
	const char *url = sw_json_get_str(r->args, "url");

	if (url == NULL)
		return refuse(r, "url", "required",
		    "is required for target "
		    "webhook");
	if (!http_url_allowed(url, HTTP_ALLOW_LOOPBACK))
		return refuse(r, "url", "https",
		    "must be https (plain http "
		    "only to 127.0.0.1, localhost or [::1]), with no "
		    "user-info");
	if (sw_json_get_str(r->args, "secret") == NULL)
		return refuse(r, "secret", "required",
		    "is required for "
		    "target webhook: receivers check the signature with it");
	return SW_OK;
}

/* A topic or bus ARN names a region: the one Slipway's AWS client
 * calls (SNS and EventBridge answer only for their own region). */
static sw_err
arn_region_ok(struct sw_req *r, const char *field)
{
	const char *arn = sw_json_get_str(r->args, field), *p;
	char why[128];
	size_t len;

	if (arn == NULL || strncmp(arn, "arn:", 4) != 0 ||
	    (p = strchr(arn + 4, ':')) == NULL ||
	    (p = strchr(p + 1, ':')) == NULL)
		return SW_OK;
	len = strlen(r->cfg->region);
	if (strncmp(p + 1, r->cfg->region, len) == 0 && p[1 + len] == ':')
		return SW_OK;
	sw_fmt_text(why, sizeof(why),
	    "must be in region %s, where Slipway "
	    "calls AWS",
	    r->cfg->region);
	return refuse(r, field, "region", why);
}

/* The events array as a comma list into buf. */
static sw_err
kinds_of(struct sw_req *r, char *buf, size_t sz)
{
	json_object *a = sw_json_get(r->args, "events");
	size_t i, len = 0;
	const char *k;
	int n;

	buf[0] = '\0';
	for (i = 0; i < json_object_array_length(a); i++) {
		k = json_object_get_string(json_object_array_get_idx(a, i));
		n = snprintf(buf + len, sz - len, "%s%s", len ? "," : "", k);
		if (n < 0 || (size_t)n >= sz - len)
			return refuse(r, "events", "maxLength", "too many");
		len += (size_t)n;
	}
	return SW_OK;
}

/* Where the target sends, from the member that names it. */
static const char *
address_of(struct sw_req *r, const char *target)
{
	if (strcmp(target, "webhook") == 0)
		return sw_json_get_str(r->args, "url");
	if (strcmp(target, "sns") == 0)
		return sw_json_get_str(r->args, "topic_arn");
	return sw_json_get_str(r->args, "event_bus") ?: "default";
}

/* May the caller make a subscription of team (NULL: of every team)?
 * SW_OK, or a 403 naming the rule. */
static sw_err
sub_allowed(struct sw_req *r, const char *op, const char *team)
{
	struct sw_rule_row row = {
		.name = op,
		.scope = SW_SCOPE_WRITE,
		.touch = team != NULL ? SW_TOUCH_TEAM : SW_TOUCH_PLATFORM,
	};
	const char *why;
	char buf[320];

	if ((why = sw_team_rule(
		 r->cfg, &r->who, &row, team, buf, sizeof(buf))) == NULL)
		return SW_OK;
	sw_ferr_add(&r->ferrs, "team", "team-rule", "%s", why);
	return sw_req_fail(r, SW_EFORBIDDEN, "%s", why);
}

sw_err
h_subscription_create(struct sw_req *r)
{
	struct sw_sub_new n;
	json_object *list;
	char kinds[256];
	sw_err e;

	memset(&n, 0, sizeof(n));
	n.name = sw_json_get_str(r->args, "name");
	n.target = sw_json_get_str(r->args, "target");
	n.team = sw_json_get_str(r->args, "team");
	if (sub_allowed(r, "subscription_create", n.team) != SW_OK)
		return r->err;
	if (target_fields_ok(r, n.target) != SW_OK)
		return r->err;
	if (strcmp(n.target, "webhook") == 0 && webhook_ok(r) != SW_OK)
		return r->err;
	if (strcmp(n.target, "sns") == 0 &&
	    sw_json_get_str(r->args, "topic_arn") == NULL)
		return refuse(r, "topic_arn", "required",
		    "is required for "
		    "target sns");
	if (arn_region_ok(r, "topic_arn") != SW_OK ||
	    arn_region_ok(r, "event_bus") != SW_OK)
		return r->err;
	if (kinds_of(r, kinds, sizeof(kinds)) != SW_OK)
		return r->err;
	n.address = address_of(r, n.target);
	n.secret = sw_json_get_str(r->args, "secret");
	n.format = sw_json_get_str(r->args, "format") ?: "slipway";
	n.kinds = kinds;
	n.cluster = sw_json_get_str(r->args, "cluster");
	n.created_by = r->who.name;
	if ((e = sw_sub_create(r->db, &n)) == SW_ECONFLICT)
		return sw_req_fail(
		    r, e, "a subscription named '%s' exists", n.name);
	if (e != SW_OK)
		return sw_req_fail(r, e, "cannot record the subscription");
	if ((e = sw_sub_list(r->db, n.name, &list)) != SW_OK)
		return sw_req_fail(r, e, "cannot read the subscription back");
	sw_req_reply(
	    r, 201, json_object_get(json_object_array_get_idx(list, 0)));
	json_object_put(list);
	return SW_OK;
}

sw_err
h_subscription_list(struct sw_req *r)
{
	json_object *list;
	sw_err e;

	if ((e = sw_sub_list(r->db, NULL, &list)) != SW_OK)
		return sw_req_fail(r, e, "cannot list subscriptions");
	sw_req_reply(r, 200, sw_jo("items", list, NULL));
	return SW_OK;
}

sw_err
h_subscription_delete(struct sw_req *r)
{
	const char *name = sw_json_get_str(r->args, "name");
	json_object *list = NULL, *sub;
	sw_err e;

	if ((e = sw_sub_list(r->db, name, &list)) == SW_ENOTFOUND)
		return sw_req_fail(r, e, "no subscription named '%s'", name);
	if (e != SW_OK)
		return sw_req_fail(r, e, "cannot read the subscription");
	sub = json_object_array_get_idx(list, 0);
	if (strcmp(sw_json_get_str(sub, "created_by") ?: "", r->who.name) !=
		0 &&
	    sub_allowed(r, "subscription_delete",
		sw_json_get_str(sub, "team")) != SW_OK) {
		json_object_put(list);
		return r->err;
	}
	json_object_put(list);
	if ((e = sw_sub_delete(r->db, name)) == SW_ENOTFOUND)
		return sw_req_fail(r, e, "no subscription named '%s'", name);
	if (e != SW_OK)
		return sw_req_fail(r, e, "cannot delete the subscription");
	sw_req_reply(
	    r, 200, sw_jo("name", sw_js(name), "deleted", sw_jb(1), NULL));
	return SW_OK;
}

sw_err
h_delivery_list(struct sw_req *r)
{
	json_object *list;
	sw_err e;

	e = sw_delivery_list(r->db, sw_json_get_str(r->args, "state"),
	    sw_json_get_str(r->args, "subscription"),
	    sw_json_get_int(r->args, "before", 0),
	    (int)sw_json_get_int(r->args, "limit", 100), &list);
	if (e != SW_OK)
		return sw_req_fail(r, e, "cannot list deliveries");
	sw_req_reply(r, 200, sw_jo("items", list, NULL));
	return SW_OK;
}
