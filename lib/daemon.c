/*
 * daemon.c: the start-up every long-running program shares (see
 * daemon.h).
 */
#include <signal.h>
#include <string.h>

#include "lib/daemon.h"
#include "lib/log.h"

int
sw_daemon_start(const char *procname, struct sw_config *cfg, struct sw_db **db)
{
	const char *dir;

	sw_log_init(procname);
	memset(cfg, 0, sizeof(*cfg));
	*db = NULL;
	if ((dir = sw_config_state_dir(NULL)) == NULL) {
		sw_error("SLIPWAY_STATE_DIR is not set");
		return -1;
	}
	if (sw_config_load(dir, cfg) != SW_OK) {
		sw_error("cannot read the configuration in %s", dir);
		return -1;
	}
	if (sw_db_open(cfg->db_path, db) != SW_OK) {
		sw_error("cannot open %s", cfg->db_path);
		sw_config_free(cfg);
		*db = NULL;
		return -1;
	}
	return 0;
}

void
sw_daemon_signals(void (*on_term)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}
