/*
 * supervise.c: see supervise.h.  Signals are blocked and taken
 * synchronously with sigtimedwait(), so there are no handlers racing
 * with the main loop; the loop also wakes every 100 ms to start any
 * child whose respawn delay has passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/render.h"
#include "cli/supervise.h"
#include "lib/buf.h"
#include "lib/db.h"
#include "lib/json.h"
#include "lib/limits.h"
#include "lib/log.h"
#include "lib/metrics.h"

void
sw_sup_block_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

/*
 * In a new child: the kernel sends it its stop signal when the
 * supervisor dies, however it dies.  A supervisor already gone before
 * the request took (getppid() is no longer the one that forked) means
 * no signal will come: exit now.  nginx's master, taking SIGTERM, stops
 * its own workers.
 */
static void
child_dies_with_parent(const struct sw_child *c, pid_t parent)
{
	if (prctl(PR_SET_PDEATHSIG,
		c->stop_signal == SIGQUIT ? SIGTERM
		    : c->stop_signal      ? c->stop_signal
					  : SIGTERM) != 0 ||
	    getppid() != parent)
		_exit(125);
}

/* From argv[0] to the end of the last string of the environment that
 * follows it: the room a forked worker's name has. */
static char *title_at;
static size_t title_room;

void
sw_sup_keep_title_room(int argc, char *argv[])
{
	char *end;
	int i;

	if (argc < 1 || argv[0] == NULL)
		return;
	end = argv[0];
	for (i = 0; i < argc; i++)
		if (argv[i] == end)
			end = argv[i] + strlen(argv[i]) + 1;
	for (i = 0; environ[i] != NULL; i++)
		if (environ[i] == end)
			end = environ[i] + strlen(environ[i]) + 1;
	title_at = argv[0];
	title_room = (size_t)(end - argv[0]);
}

/*
 * In a forked worker: its name, "slipway-api --wait", where ps and
 * /proc/PID/cmdline read it (the launcher's arguments, then its
 * environment, which moves to the heap first) and in /proc/PID/comm.
 */
static void
title_set(char *const argv[])
{
	/* kept here: setenv() may replace the array with one of its own */
	static char **env;
	char *base;
	struct sw_buf t;
	size_t n, i;

	for (n = 0; environ[n] != NULL; n++)
		;
	if ((env = calloc(n + 1, sizeof(*env))) == NULL)
		return;
	for (i = 0; i < n; i++)
		if ((env[i] = strdup(environ[i])) == NULL)
			return;
	environ = env;
	base = strrchr(argv[0], '/');
	base = base != NULL ? base + 1 : argv[0];
	(void)prctl(PR_SET_NAME, base);
	if (title_at == NULL || title_room < 2)
		return;
	sw_buf_init(&t, title_room - 1);
	(void)sw_buf_puts(&t, base);
	for (i = 1; argv[i] != NULL; i++)
		(void)sw_buf_printf(&t, " %s", argv[i]);
	memset(title_at, 0, title_room);
	memcpy(title_at, sw_buf_str(&t), t.len);
	sw_buf_free(&t);
}

/*
 * In a forked worker, what exec would have done: every descriptor but
 * 0, 1 and 2 closed (the launcher's other sockets are not the worker's),
 * the program's name; then its main.
 */
static int
run_entry(const struct sw_child *c)
{
	char *argv[sizeof(c->argv) / sizeof(c->argv[0])];
	int argc, fd;

	for (argc = 0; c->argv[argc] != NULL; argc++)
		argv[argc] = (char *)(uintptr_t)c->argv[argc];
	argv[argc] = NULL;
	if (close_range(3, ~0U, 0) != 0)
		for (fd = 3; fd < 1024; fd++)
			(void)close(fd);
	return c->entry(argc, argv);
}

int
sw_child_start(struct sw_child *c)
{
	sigset_t none;
	pid_t pid, parent = getpid();
	int fd;

	fflush(NULL); /* nothing buffered is written twice */

	if ((pid = fork()) < 0) {
		sw_error("fork for %s: %s", c->name, strerror(errno));
		return -1;
	}
	if (pid == 0) {
		child_dies_with_parent(c, parent);
		if (c->entry != NULL)
			title_set((char *const *)(uintptr_t)c->argv);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGPIPE, SIG_DFL);
		setpgid(0, 0);
		if (c->listen_fd >= 0) {
			if (dup2(c->listen_fd, 0) < 0)
				_exit(126);
		} else if ((fd = open("/dev/null", O_RDONLY)) >= 0) {
			dup2(fd, 0);
			if (fd > 0)
				close(fd);
		}
		if ((fd = open(c->log, O_WRONLY | O_CREAT | O_APPEND, 0640)) >=
		    0) {
			dup2(fd, 1);
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
		/* lib/log.c reopens it when logrotate renamed it. */
		setenv("SLIPWAY_LOG_FILE", c->log, 1);
		if (c->entry != NULL)
			exit(run_entry(c));
		execv(c->argv[0], (char *const *)(uintptr_t)c->argv);
		fprintf(stderr, "exec %s: %s\n", c->argv[0], strerror(errno));
		_exit(127);
	}
	c->pid = pid;
	c->started_ms = sw_now_ms();
	return 0;
}

void
sw_sup_write_status(struct sw_sup *s, const char *phase)
{
	json_object *o, *arr, *k;
	const char *text;
	int i;

	o = json_object_new_object();
	sw_json_add_str(o, "phase", phase);
	sw_json_add_int(o, "supervisor_pid", getpid());
	sw_json_add_int(o, "port", s->port);
	json_object_object_add(
	    o, "url", sw_jsf("http://127.0.0.1:%d", s->port));

	sw_json_add_str(o, "state_dir", s->state_dir);
	sw_json_add_bool(o, "sandbox", s->sandbox);
	sw_json_add_int(o, "updated_ms", sw_now_ms());
	arr = json_object_new_array();
	for (i = 0; i < s->n; i++) {
		k = json_object_new_object();
		sw_json_add_str(k, "name", s->kids[i].name);
		sw_json_add_int(k, "pid", s->kids[i].pid);
		sw_json_add_bool(k, "running", s->kids[i].pid > 0);
		sw_json_add_int(k, "restarts", s->kids[i].restarts);
		sw_json_add_int(k, "started_ms", s->kids[i].started_ms);
		sw_json_add_str(k, "log", s->kids[i].log);
		json_object_array_add(arr, k);
	}
	json_object_object_add(o, "components", arr);
	text = sw_json_pretty(o);
	(void)sw_write_file(s->status_path, text, strlen(text), 0644);
	json_object_put(o);
}

static struct sw_child *
child_by_pid(struct sw_sup *s, pid_t pid)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->kids[i].pid == pid)
			return &s->kids[i];
	return NULL;
}

static void
describe_exit(int status, char *buf, size_t sz)
{
	if (WIFSIGNALED(status))
		sw_fmt_text(buf, sz, "killed by signal %d", WTERMSIG(status));
	else
		sw_fmt_text(
		    buf, sz, "exited with status %d", WEXITSTATUS(status));
}

/* Reap children; schedule a respawn for each one that died. */
static int
reap(struct sw_sup *s, int respawn)
{
	struct sw_child *c;
	char how[64];
	int status, n = 0;
	int64_t now = sw_now_ms(), delay;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if ((c = child_by_pid(s, pid)) == NULL)
			continue;
		n++;
		describe_exit(status, how, sizeof(how));
		/* Each child leads its own process group: take down what it
		 * left behind (nginx workers holding the port, say). */
		kill(-pid, SIGKILL);
		c->pid = 0;
		if (!respawn)
			continue;
		/* Quick repeated deaths back off up to 5 s. */
		c->quick_exits =
		    now - c->started_ms < 2000 ? c->quick_exits + 1 : 0;
		delay = SW_RESPAWN_DELAY_MS;
		if (c->quick_exits > 3)
			delay = c->quick_exits > 8
			    ? 5000
			    : SW_RESPAWN_DELAY_MS << (c->quick_exits - 3);
		c->due_ms = now + delay;
		sw_warn("component %s (pid %ld) %s; restarting in %lld ms",
		    c->name, (long)pid, how, (long long)delay);
	}
	return n;
}

static int
start_due(struct sw_sup *s)
{
	int64_t now = sw_now_ms();
	int i, n = 0;

	for (i = 0; i < s->n; i++) {
		struct sw_child *c = &s->kids[i];

		if (c->pid != 0 || c->due_ms == 0 || c->due_ms > now)
			continue;
		if (sw_child_start(c) == 0) {
			c->restarts++;
			sw_metric_add("slipway_worker_restarts_total", 1,
			    "component", c->name, NULL);
			c->due_ms = 0;
			sw_info("component %s restarted as pid %ld "
				"(restart %d)",
			    c->name, (long)c->pid, c->restarts);
			n++;
		} else
			c->due_ms = now + 1000;
	}
	return n;
}

void
sw_sup_stop_all(struct sw_sup *s, int grace_ms)
{
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	int64_t deadline = sw_now_ms() + grace_ms;
	int i, alive;

	for (i = s->n - 1; i >= 0; i--) {
		s->kids[i].due_ms = 0;
		if (s->kids[i].pid > 0)
			kill(s->kids[i].pid,
			    s->kids[i].stop_signal ? s->kids[i].stop_signal
						   : SIGTERM);
	}
	for (;;) {
		(void)reap(s, 0);
		for (alive = 0, i = 0; i < s->n; i++)
			alive += s->kids[i].pid > 0;
		if (alive == 0)
			return;
		if (sw_now_ms() >= deadline)
			break;
		nanosleep(&nap, NULL);
	}
	for (i = 0; i < s->n; i++)
		if (s->kids[i].pid > 0) {
			sw_warn("component %s did not stop; killing it",
			    s->kids[i].name);
			kill(-s->kids[i].pid, SIGKILL);
			kill(s->kids[i].pid, SIGKILL);
		}
	while (reap(s, 0) > 0 || waitpid(-1, NULL, 0) > 0)
		;
	for (i = 0; i < s->n; i++)
		s->kids[i].pid = 0;
}

/* SIGUSR1: logrotate renamed the logs. */
static void
reopen_logs(struct sw_sup *s)
{
	int i;

	if (s->log_path[0] != '\0')
		sw_log_reopen();
	for (i = 0; i < s->n; i++)
		if (s->kids[i].pid > 0 && s->kids[i].reopen_signal != 0)
			kill(s->kids[i].pid, s->kids[i].reopen_signal);
	sw_info("log files reopened");
}

int
sw_sup_run(struct sw_sup *s, int (*ready)(struct sw_sup *))
{
	struct timespec tick = { 0, 100 * 1000 * 1000 };
	sigset_t set;
	int sig, i;

	for (i = 0; i < s->n; i++)
		if (s->kids[i].pid == 0 && sw_child_start(&s->kids[i]) != 0) {
			sw_sup_stop_all(s, 3000);
			return 1;
		}
	sw_sup_write_status(s, "starting");
	if (ready != NULL && ready(s) != 0) {
		sw_sup_stop_all(s, 3000);
		sw_sup_write_status(s, "failed");
		return 1;
	}
	sw_sup_write_status(s, "running");
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	for (;;) {
		sig = sigtimedwait(&set, NULL, &tick);
		if (sig == SIGTERM || sig == SIGINT)
			break;
		if (sig == SIGUSR1)
			reopen_logs(s);
		if (reap(s, 1) + start_due(s) > 0)
			sw_sup_write_status(s, "running");
	}
	sw_info("stopping %d components", s->n);
	sw_sup_write_status(s, "stopping");
	sw_sup_stop_all(s, 8000);
	sw_sup_write_status(s, "stopped");
	return 0;
}
