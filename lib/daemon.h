/*
 * daemon.h: what each of Slipway's long-running programs (the API and
 * MCP workers, the poller, the stream server) does first, written once:
 * log under its name, read <state-dir>/config.json and open the state
 * store; and how each asks to be stopped.
 */
#ifndef SW_DAEMON_H
#define SW_DAEMON_H

#include "lib/conf.h"
#include "lib/db.h"

/*
 * Log as procname, load the configuration of $SLIPWAY_STATE_DIR into
 * cfg and open its state store into *db.  0; or -1, logged, with
 * nothing left to free.
 */
int sw_daemon_start(
    const char *procname, struct sw_config *cfg, struct sw_db **db);

/* SIGTERM and SIGINT call on_term; a write to a closed pipe is an error
 * returned, not a signal. */
void sw_daemon_signals(void (*on_term)(int));

#endif
