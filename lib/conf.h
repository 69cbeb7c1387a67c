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

/* True when origin (e.g. "http://127.0.0.1:3099") may make
 * state-changing requests with a session cookie. */
int	sw_config_origin_allowed(const struct sw_config *, const char *origin,
	    const char *host);

#endif
