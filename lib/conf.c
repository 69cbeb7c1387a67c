/*
 * config.c: read <state-dir>/config.json (see config.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "lib/conf.h"
#include "lib/json.h"
#include "lib/limits.h"
#include "lib/log.h"

const char *
sw_config_state_dir(const char *dflt)
{
	const char *d = getenv("SLIPWAY_STATE_DIR");

	return d != NULL && d[0] != '\0' ? d : dflt;
}

sw_err
sw_config_load(const char *dir, struct sw_config *c)
{
	char path[600], why[128];
	FILE *f;
	char *text = NULL;
	long len;
	sw_err e = SW_OK;

	memset(c, 0, sizeof(*c));
	snprintf(c->state_dir, sizeof(c->state_dir), "%s", dir);
	snprintf(c->db_path, sizeof(c->db_path), "%s/state.db", dir);
	c->port = SW_DEFAULT_PORT;
	snprintf(c->region, sizeof(c->region), "us-west-2");
	snprintf(path, sizeof(path), "%s/config.json", dir);
	if ((f = fopen(path, "r")) == NULL) {
		c->root = json_object_new_object();
		return SW_OK;
	}
	if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 ||
	    len > SW_MAX_BODY || fseek(f, 0, SEEK_SET) != 0 ||
	    (text = malloc((size_t)len + 1)) == NULL ||
	    fread(text, 1, (size_t)len, f) != (size_t)len) {
		e = SW_EINTERNAL;
		goto out;
	}
	if ((e = sw_json_parse(text, (size_t)len, &c->root, why,
	    sizeof(why))) != SW_OK) {
		sw_error("%s: %s", path, why);
		goto out;
	}
	c->port = (int)sw_json_get_int(c->root, "port", SW_DEFAULT_PORT);
	if (sw_json_get_str(c->root, "region") != NULL)
		snprintf(c->region, sizeof(c->region), "%s",
		    sw_json_get_str(c->root, "region"));
	c->sandbox = sw_json_get_bool(c->root, "sandbox", 0);
out:
	free(text);
	fclose(f);
	if (c->root == NULL)
		c->root = json_object_new_object();
	return e;
}

void
sw_config_free(struct sw_config *c)
{
	json_object_put(c->root);
	c->root = NULL;
}

int
sw_config_origin_allowed(const struct sw_config *c, const char *origin,
    const char *host)
{
	json_object *list = sw_json_get(c->root, "allowed_origins");
	size_t i;

	/* Exactly the configured origins.  The Host header is not a
	 * witness: a request forging both would pass a comparison. */
	(void)host;
	if (origin == NULL)
		return 0;
	if (list == NULL || !json_object_is_type(list, json_type_array))
		return 0;
	for (i = 0; i < json_object_array_length(list); i++) {
		json_object *o = json_object_array_get_idx(list, i);

		if (json_object_is_type(o, json_type_string) &&
		    strcmp(json_object_get_string(o), origin) == 0)
			return 1;
	}
	return 0;
}

/* host[:port] names the loopback interface. */
static int
host_is_loopback(const char *h)
{
	static const char *const names[] = { "localhost", "127.0.0.1",
	    "[::1]", NULL };
	size_t i, n;

	for (i = 0; names[i] != NULL; i++) {
		n = strlen(names[i]);
		if (strncasecmp(h, names[i], n) == 0 && (h[n] == '\0' ||
		    (h[n] == ':' && h[n + 1] != '\0' &&
		    strspn(h + n + 1, "0123456789") == strlen(h + n + 1))))
			return 1;
	}
	return 0;
}

int
sw_config_host_allowed(const struct sw_config *c, const char *host)
{
	json_object *list = sw_json_get(c->root, "allowed_origins");
	size_t i;

	if (host == NULL || host_is_loopback(host))
		return 1;
	for (i = 0; list != NULL && json_object_is_type(list,
	    json_type_array) && i < json_object_array_length(list); i++) {
		const char *o = json_object_get_string(
		    json_object_array_get_idx(list, i));
		const char *p = o ? strstr(o, "://") : NULL;

		if (p != NULL && strcasecmp(p + 3, host) == 0)
			return 1;
	}
	return 0;
}
