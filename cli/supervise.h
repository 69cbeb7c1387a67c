/*
 * supervise.h: the launcher's process supervisor.  It starts every
 * component as a child, replaces any that dies (within
 * SW_RESPAWN_DELAY_MS, backing off if one keeps crashing), logs each
 * event, rewrites run/status.json, and on SIGTERM stops them all and
 * reaps them so no process is left behind.  A supervisor that dies
 * without stopping them (SIGKILL, a crash) takes them along: each child
 * has the kernel send it its stop signal when its parent dies.  On
 * SIGUSR1 (`slipway logs reopen`, after logrotate renamed the files)
 * it reopens its own log and passes the signal on to the children that
 * reopen theirs on it (nginx); the others follow a renamed log by
 * themselves (lib/log.c, SLIPWAY_LOG_FILE).
 *
 * The workers linked into the launcher (cgi/cgi.h, poller/poller.h,
 * stream/stream.h) are forked and not executed: the pages their
 * libraries write when loaded (relocations, about 2 MiB a process) stay
 * shared with the launcher, so each worker costs only what it writes
 * itself.  SLIPWAY_EXEC_WORKERS set executes each worker's own program
 * instead (a replaced or instrumented build).
 */
#ifndef SW_SUPERVISE_H
#define SW_SUPERVISE_H

#include <stdint.h>
#include <sys/types.h>

#include "lib/limits.h"

/* Everything `slipway start` may run at its largest: api and mcp workers,
 * the two wait pools, every plugin's workers, the sandbox, the poller and
 * nginx. */
#define SW_MAX_CHILDREN \
	(2 * SW_MAX_WORKERS + SW_WAIT_WORKERS + SW_MCP_WAIT_WORKERS + \
	    SW_MAX_PLUGINS * SW_MAX_PLUGIN_WORKERS + 3)

struct sw_child {
	char name[32]; /* "api.0", "nginx", "sandbox"... */
	const char *argv[16]; /* NULL-terminated; strings borrowed */
	/* A worker linked into this program: the child runs entry(argv)
	 * where it was forked, in place of executing argv[0]. */
	int (*entry)(int argc, char *argv[]);
	int listen_fd; /* becomes fd 0 in the child, or -1 */
	char log[600]; /* stdout+stderr go here */
	int stop_signal; /* SIGTERM unless set */
	int reopen_signal; /* passed on by SIGUSR1, or 0 */
	pid_t pid; /* 0 when not running */
	int restarts;
	int quick_exits; /* consecutive deaths soon after start */
	int64_t started_ms;
	int64_t due_ms; /* respawn time when pid == 0 */
};

struct sw_sup {
	struct sw_child kids[SW_MAX_CHILDREN];
	int n;
	char status_path[600];
	char state_dir[512];
	int port;
	int sandbox;
	char log_path[700]; /* the supervisor's own (stderr) */
};

/* Start one child now; 0 on success. */
int sw_child_start(struct sw_child *);
/* Keep where this program's arguments and environment lie, from argv[0]
 * on: a forked worker writes the name ps shows there.  Call first in
 * main, before getopt reorders argv. */
void sw_sup_keep_title_room(int argc, char *argv[]);
/* Write run/status.json describing every child. */
void sw_sup_write_status(struct sw_sup *, const char *phase);
/* Block SIGCHLD/SIGTERM/SIGINT/SIGHUP/SIGUSR1 so sw_sup_run can wait for them;
 * call before the first sw_child_start. */
void sw_sup_block_signals(void);
/* Supervise until SIGTERM/SIGINT, then stop every child.  ready() is
 * called once after the children are started and may return non-zero
 * to abort start-up. */
int sw_sup_run(struct sw_sup *, int (*ready)(struct sw_sup *));
/* Send sig to every running child and reap them, waiting at most
 * grace_ms before SIGKILL. */
void sw_sup_stop_all(struct sw_sup *, int grace_ms);

#endif
