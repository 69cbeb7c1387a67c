/*
 * config.h: the runtime configuration every process reads from
 * <state-dir>/config.json, written by `slipway start`.  Holds the port,
 * region, allowed browser origins and the AWS endpoint overrides (the
 * sandbox's loopback URL, or none for real AWS).  Endpoints are
 * configuration only: no request can point Slipway at another host.
 */
#ifndef SW_CONF_H
#define SW_CONF_H

#include <json-c/json.h>

#include "lib/err.h"

struct sw_config {
	char		 state_dir[512];
	char		 db_path[600];
	int		 port;
	char		 region[32];
	int		 sandbox;		/* backend is slipway-sandbox */
	json_object	*root;			/* whole file; owned */
};

/* Directory from $SLIPWAY_STATE_DIR, or dflt when unset. */
const char *sw_config_state_dir(const char *dflt);

/* Load <dir>/config.json; a missing file gives defaults. */
sw_err	sw_config_load(const char *dir, struct sw_config *);
void	sw_config_free(struct sw_config *);

/* True when origin (e.g. "http://127.0.0.1:3099") is one of the
 * configured allowed_origins, exactly: it may make state-changing
 * requests with a session cookie.  host is not consulted. */
int	sw_config_origin_allowed(const struct sw_config *, const char *origin,
	    const char *host);

/* True when a Host header may reach us (DNS rebinding): absent, a
 * loopback name (localhost, 127.0.0.1, [::1], any port) or the host of
 * an allowed origin. */
int	sw_config_host_allowed(const struct sw_config *, const char *host);

#endif
