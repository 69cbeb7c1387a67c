/*
 * slipway.c: the launcher and admin CLI.
 *
 *   slipway start [--sandbox] [--port N] [--state-dir DIR] [--foreground]
 *                 [--workers N] [--speed N]
 *   slipway stop | status [--json]
 *   slipway token create --scope read|write|admin --name NAME
 *                        | --team TEAM --role ROLE --name NAME [--ttl S]
 *   slipway token list | token revoke --name NAME
 *   slipway doctor [--local] [--json] [--state-dir DIR]
 *   slipway api-manual
 *   slipway <verb> ...      the user CLI over a server's REST API
 *                           (client.c: get, describe, create, delete,
 *                           wait, plan, apply, export, every
 *                           operation's own verb; logs.c: logs [-f])
 *
 * `start` checks everything it can before starting anything (state
 * directory, port free, nginx configuration with nginx -t), then becomes
 * the supervisor of the whole stack: slipway-sandbox (with --sandbox),
 * the FastCGI workers, the poller and nginx.  It runs from the build
 * tree (programs found beside it) or installed (libexec/pkgdata).
 * The supervisor is supervise.c, the nginx template and files render.c,
 * plugins.d plugins.c, the token subcommands tokens.c, doctor doctor.c
 * and the slipway-api(7) page apiman.c.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgi/cgi.h"
#include "cli/apiman.h"
#include "cli/client.h"
#include "cli/doctor.h"
#include "cli/plugins.h"
#include "cli/render.h"
#include "cli/supervise.h"
#include "cli/tokens.h"
#include "config.h"
#include "lib/auth.h"
#include "lib/buf.h"
#include "lib/conf.h"
#include "lib/db.h"
#include "lib/json.h"
#include "lib/limits.h"
#include "lib/log.h"
#include "poller/poller.h"
#include "stream/stream.h"

struct opts {
	char state_dir[512];
	int port;
	int sandbox;
	int foreground;
	int workers;
	int speed;
	int json;
	int local;
	int port_set, workers_set; /* given on the command line */
	int listen_any; /* nginx on 0.0.0.0 (listen), else loopback */
	char scope[16];
	char name[SW_MAX_TOKEN_NAME + 1];
	char tools[SW_MAX_TOOL_CLASSES + 1]; /* token create --tools */
	char team[SW_MAX_TEAM + 1]; /* token create --team */
	char role[16]; /* token create --role */
	int ttl; /* token create --ttl */
};

/* Where programs and data live: build tree or installed. */
static char prog_dir[PATH_MAX]; /* build dir, or "" if installed */
static char libexec_dir[PATH_MAX]; /* installed programs */
static char pkgdata_dir[PATH_MAX]; /* installed data */
static struct opts O;
static struct sw_sup sup;
static struct plugin plugins[SW_MAX_PLUGINS];
static json_object *opconf; /* slipway.conf, or NULL */
static int nplugins;

static void
usage(void)
{
	fprintf(stderr,
	    "usage: slipway start [--sandbox] [--port N] [--state-dir DIR]"
	    " [--foreground] [--workers N] [--speed N]\n"
	    "       slipway stop [--state-dir DIR]\n"
	    "       slipway status [--json] [--state-dir DIR]\n"
	    "       slipway token create --scope read|write|admin --name NAME"
	    " [--tools CLASS,...]"
	    " [--state-dir DIR]\n"
	    "       slipway token create --team TEAM --role "
	    "viewer|operator|platform-admin --name NAME [--ttl SECONDS]\n"
	    "       slipway token list [--state-dir DIR]\n"
	    "       slipway token revoke --name NAME [--state-dir DIR]\n"
	    "       slipway doctor [--local] [--json] [--state-dir DIR]\n"
	    "       slipway api-manual\n"
	    "       slipway version [--json]\n"
	    "       slipway logs reopen [--state-dir DIR]\n"
	    "       slipway get|describe|create|delete|wait|<verb> ... "
	    "(slipway verbs)\n"
	    "       slipway plan -f FLEET.yaml | apply -f FLEET.yaml [--yes] "
	    "| export\n"
	    "       slipway context set|use|list, slipway completion bash\n");
	exit(2);
}

/* The launcher's and admin's commands; every other verb is a client's. */
static int
is_launcher_command(const char *cmd)
{
	static const char *const own[] = { "start", "stop", "status", "token",
		"doctor", "api-manual", "version", "logs", "-h", "--help",
		NULL };
	int i;

	for (i = 0; own[i] != NULL; i++)
		if (strcmp(cmd, own[i]) == 0)
			return 1;
	return 0;
}

/*
 * Installed under another root than the configured prefix (a staging
 * DESTDIR, a copied tree): when <exe>/../.. holds the installed programs
 * at the same place relative to it as the prefix does, use that root.
 */
/* The configured places of the installed programs and data. */
static void
configured_dirs(void)
{
	_Static_assert(sizeof(SW_PKGLIBEXECDIR) <= sizeof(libexec_dir) &&
		sizeof(SW_PKGDATADIR) <= sizeof(pkgdata_dir),
	    "prefix too long");
	memcpy(libexec_dir, SW_PKGLIBEXECDIR, sizeof(SW_PKGLIBEXECDIR));
	memcpy(pkgdata_dir, SW_PKGDATADIR, sizeof(SW_PKGDATADIR));
}

static void
find_installed(const char *exe)
{
	char root[PATH_MAX], probe[PATH_MAX + 64];
	size_t plen = strlen(SW_PREFIX);

	configured_dirs();
	if (strncmp(SW_PKGLIBEXECDIR, SW_PREFIX, plen) != 0 ||
	    strncmp(SW_PKGDATADIR, SW_PREFIX, plen) != 0 ||
	    strncmp(SW_BINDIR, SW_PREFIX, plen) != 0 ||
	    sw_fmt(root, sizeof(root), "%s", exe) != SW_OK)
		return;
	/* <root><bindir-rel>/slipway -> <root> */
	if (sw_fmt(probe, sizeof(probe), "%s/slipway", SW_BINDIR + plen) !=
		SW_OK ||
	    strlen(root) < strlen(probe) ||
	    strcmp(root + strlen(root) - strlen(probe), probe) != 0)
		return;
	root[strlen(root) - strlen(probe)] = '\0';
	if (sw_fmt(probe, sizeof(probe), "%s%s/slipway-api", root,
		SW_PKGLIBEXECDIR + plen) != SW_OK ||
	    access(probe, X_OK) != 0)
		return;
	if (sw_fmt(libexec_dir, sizeof(libexec_dir), "%s%s", root,
		SW_PKGLIBEXECDIR + plen) != SW_OK ||
	    sw_fmt(pkgdata_dir, sizeof(pkgdata_dir), "%s%s", root,
		SW_PKGDATADIR + plen) != SW_OK)
		configured_dirs();
}

static void
find_layout(void)
{
	char exe[PATH_MAX], probe[PATH_MAX + 32];
	ssize_t n;

	prog_dir[0] = '\0';
	configured_dirs();
	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) <= 0)
		return;
	exe[n] = '\0';
	find_installed(exe);
	/* <builddir>/cli/slipway -> <builddir> */
	if (sw_fmt(probe, sizeof(probe), "%s", dirname(dirname(exe))) !=
		SW_OK ||
	    sw_fmt(exe, sizeof(exe), "%s", probe) != SW_OK ||
	    sw_fmt(probe, sizeof(probe), "%s/cgi/slipway-api", exe) != SW_OK)
		return;
	if (access(probe, X_OK) == 0 &&
	    snprintf(prog_dir, sizeof(prog_dir), "%s", exe) >=
		(int)sizeof(prog_dir))
		prog_dir[0] = '\0';
}

/* Path of program name (in subdir of the build tree when there). */
static void
prog_path(char *out, size_t sz, const char *subdir, const char *name)
{
	int n;

	if (prog_dir[0] != '\0')
		n = snprintf(out, sz, "%s/%s/%s", prog_dir, subdir, name);
	else
		n = snprintf(out, sz, "%s/%s", libexec_dir, name);
	if (n < 0 || (size_t)n >= sz)
		out[0] = '\0'; /* too long: no program, found missing */
}

/* Path of a data file shipped with Slipway. */
static void
data_path(char *out, size_t sz, const char *rel)
{
	int n = snprintf(out, sz, "%s/%s",
	    prog_dir[0] != '\0' ? SW_SRCDIR : pkgdata_dir, rel);

	if (n < 0 || (size_t)n >= sz)
		out[0] = '\0'; /* too long: found missing */
}

/*
 * The operator's slipway.conf: $SLIPWAY_CONF, else <sysconfdir>/slipway/
 * slipway.conf (under the same root as the programs when installed
 * elsewhere).  A static buffer.
 */
static const char *
conf_file_path(void)
{
	static char path[PATH_MAX];
	const char *env = getenv("SLIPWAY_CONF");
	size_t plen = strlen(SW_PREFIX);
	int n;

	if (env != NULL && env[0] != '\0')
		return env;
	if (prog_dir[0] == '\0' && strcmp(pkgdata_dir, SW_PKGDATADIR) != 0 &&
	    strncmp(SW_SYSCONFDIR, SW_PREFIX, plen) == 0 &&
	    strlen(pkgdata_dir) > strlen(SW_PKGDATADIR) - plen)
		n = snprintf(path, sizeof(path), "%.*s%s/slipway/slipway.conf",
		    (int)(strlen(pkgdata_dir) - (strlen(SW_PKGDATADIR) - plen)),
		    pkgdata_dir, SW_SYSCONFDIR + plen);
	else
		n = snprintf(path, sizeof(path), "%s/slipway/slipway.conf",
		    SW_SYSCONFDIR);
	if (n < 0 || (size_t)n >= sizeof(path))
		path[0] = '\0';
	return path;
}

/*
 * Fold slipway.conf into the options (the command line wins) and the
 * environment the children inherit (endpoints, log format).  0, or -1
 * after saying why.
 */
static int
apply_conf_file(void)
{
	const char *path = conf_file_path(), *v;
	json_object *eps;
	char why[300], env[64];
	sw_err e;
	int i;

	e = sw_conf_file_load(path, &opconf, why, sizeof(why));
	if (e == SW_ENOTFOUND)
		return 0;
	if (e != SW_OK) {
		fprintf(stderr, "slipway: %s: %s\n", path, why);
		return -1;
	}
	if (!O.port_set && sw_json_get(opconf, "port") != NULL)
		O.port = (int)sw_json_get_int(opconf, "port", O.port);
	if ((v = sw_json_get_str(opconf, "listen")) != NULL &&
	    strcmp(v, "0.0.0.0") == 0)
		O.listen_any = 1;
	if (!O.workers_set && sw_json_get(opconf, "workers") != NULL)
		O.workers = (int)sw_json_get_int(opconf, "workers", O.workers);
	if ((v = sw_json_get_str(opconf, "log_format")) != NULL)
		setenv("SLIPWAY_LOG_FORMAT", v, 1);
	if (sw_json_get(opconf, "ledger_interval") != NULL &&
	    (v = json_object_get_string(
		 sw_json_get(opconf, "ledger_interval"))) != NULL)
		setenv("SLIPWAY_LEDGER_INTERVAL", v, 1);
	if (sw_json_get(opconf, "watch_interval") != NULL &&
	    (v = json_object_get_string(
		 sw_json_get(opconf, "watch_interval"))) != NULL)
		setenv("SLIPWAY_WATCH_INTERVAL", v, 1);
	if (sw_json_get(opconf, "watch_rate") != NULL &&
	    (v = json_object_get_string(sw_json_get(opconf, "watch_rate"))) !=
		NULL)
		setenv("SLIPWAY_WATCH_RATE", v, 1);
	if (sw_json_get(opconf, "training_plan_warn_before") != NULL &&
	    (v = json_object_get_string(
		 sw_json_get(opconf, "training_plan_warn_before"))) != NULL)
		setenv("SLIPWAY_TRAINING_PLAN_WARN_BEFORE", v, 1);
	eps = sw_json_get(opconf, "endpoints");
	if (O.sandbox || eps == NULL)
		return 0;
	if ((v = sw_json_get_str(eps, "*")) != NULL)
		setenv("AWS_ENDPOINT_URL", v, 1);
	for (i = 0; sw_conf_services[i] != NULL; i++) {
		if ((v = sw_json_get_str(eps, sw_conf_services[i])) == NULL)
			continue;
		if (sw_fmt(env, sizeof(env), "AWS_ENDPOINT_URL_%s",
			sw_conf_service_env[i]) != SW_OK) {
			fprintf(stderr,
			    "slipway: no room for the endpoint "
			    "of %s\n",
			    sw_conf_services[i]);
			return -1;
		}
		setenv(env, v, 1);
	}
	return 0;
}

/* SLIPWAY_STATE_DIR or ~/.slipway; -1 (said) when it does not fit. */
static int
default_state_dir(char *out, size_t sz)
{
	const char *env = getenv("SLIPWAY_STATE_DIR"), *home;

	if ((env != NULL && env[0] != '\0'
		    ? sw_fmt(out, sz, "%s", env)
		    : sw_fmt(out, sz, "%s/.slipway",
			  (home = getenv("HOME")) == NULL || home[0] == '\0'
			      ? "/tmp"
			      : home)) == SW_OK)
		return 0;
	fprintf(stderr, "slipway: the state directory is too long\n");
	return -1;
}

/* <state dir>/rel into out; -1 (said) when it does not fit. */
static int
state_path(char *out, size_t sz, const char *rel)
{
	if (sw_fmt(out, sz, "%s/%s", O.state_dir, rel) == SW_OK)
		return 0;
	fprintf(stderr, "slipway: %s/%s: path too long\n", O.state_dir, rel);
	return -1;
}

static int
mkdir_p(const char *path, int mode)
{
	char tmp[PATH_MAX], *p;

	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp))
		return -1;
	for (p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	if (mkdir(tmp, (mode_t)mode) != 0 && errno != EEXIST)
		return -1;
	return 0;
}

static pid_t
read_pid(const char *path)
{
	struct sw_buf b;
	long v = 0;
	char *end;

	sw_buf_init(&b, 64);
	if (sw_read_file(path, 64, &b) == SW_OK) {
		v = strtol(sw_buf_str(&b), &end, 10);
		if (end == sw_buf_str(&b) || v <= 0)
			v = 0;
	}
	sw_buf_free(&b);
	return (pid_t)v;
}

static pid_t
running_supervisor(void)
{
	char path[700];
	pid_t pid;

	if (state_path(path, sizeof(path), "run/slipway.pid") != 0)
		return 0;
	pid = read_pid(path);
	if (pid > 0 && kill(pid, 0) == 0)
		return pid;
	return 0;
}

static int
port_free(int port)
{
	struct sockaddr_in sa;
	int fd, ok, one = 1;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return 0;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(O.listen_any ? INADDR_ANY : INADDR_LOOPBACK);
	ok = bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	return ok;
}

static int
port_answers(int port)
{
	struct sockaddr_in sa;
	int fd, ok;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return 0;
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ok = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	return ok;
}

/*
 * A listening unix socket at path for FastCGI workers to share.  It is
 * close-on-exec: only the children it is given to (as fd 0, where dup2
 * clears the flag) inherit it, never the other programs or plugins.
 */
static int
unix_listen(const char *path, int mode)
{
	struct sockaddr_un sa;
	int fd, high;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "slipway: socket path too long: %s\n", path);
		return -1;
	}
	memcpy(sa.sun_path, path, strlen(path) + 1);
	unlink(path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return -1;
	if (fd <= 2) {
		/* Never 0-2: dup2(fd, 0) onto itself would keep the
		 * close-on-exec flag and the child would lose its socket. */
		high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		close(fd);
		if ((fd = high) < 0)
			return -1;
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    chmod(path, (mode_t)mode) != 0 || listen(fd, 128) != 0) {
		fprintf(stderr, "slipway: %s: %s\n", path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

static struct sw_child *
add_child(const char *name, const char *log)
{
	struct sw_child *c;

	if (sup.n >= SW_MAX_CHILDREN)
		return NULL;
	c = &sup.kids[sup.n];
	memset(c, 0, sizeof(*c));
	if (sw_fmt(c->name, sizeof(c->name), "%s", name) != SW_OK ||
	    sw_fmt(c->log, sizeof(c->log), "%s/logs/%s", O.state_dir, log) !=
		SW_OK) {
		fprintf(stderr, "slipway: %s/logs/%s: path too long\n",
		    O.state_dir, log);
		return NULL;
	}
	sup.n++;
	c->listen_fd = -1;
	c->stop_signal = SIGTERM;
	return c;
}

static char conf_path[PATH_MAX], errlog_path[700], api_prog[PATH_MAX],
    mcp_prog[PATH_MAX], poller_prog[PATH_MAX], stream_prog[PATH_MAX];

/* ---- worker pools ---------------------------------------------------- */

/*
 * A pool of processes the supervisor keeps running: FastCGI workers
 * sharing one socket, run/<name>.sock, or one server.  Every pool and
 * server but nginx is described here once, then started the same way.
 */
struct pool {
	char name[48]; /* the socket's; children <name>.<i> */
	const char *log; /* the children's log in logs/ */
	const char *argv[4]; /* the program and its options */
	int (*entry)(int, char *[]); /* its main, linked in: forked */
	int workers;
	int single; /* one child, named <name> */
	int no_socket; /* it listens on nothing of ours */
	int fd; /* the listening socket, or -1 */
};

/* api, wait, mcp, mcp-wait, the plugins', the poller, stream */
static struct pool pools[6 + SW_MAX_PLUGINS];
static int npools;

/* Append a pool; NULL when the table is full. */
static struct pool *
pool_add(const char *name, const char *log, int workers)
{
	struct pool *p;

	if (npools >= (int)(sizeof(pools) / sizeof(pools[0])))
		return NULL;
	p = &pools[npools++];
	memset(p, 0, sizeof(*p));
	if (sw_fmt(p->name, sizeof(p->name), "%s", name) != SW_OK) {
		npools--;
		return NULL;
	}
	p->log = log;
	p->workers = workers;
	p->fd = -1;
	return p;
}

/*
 * The stack's pools: the API's request and long-poll workers, MCP's
 * (it runs operation_wait in process: half its workers at most), each
 * plugin's, the poller and the WebSocket streams (on a socket kept
 * across its restarts like the FastCGI ones).  0, or -1 when the table
 * is full.
 */
static int
pools_describe(void)
{
	static char wait_slots[16], ext[SW_MAX_PLUGINS][48];
	struct pool *p;
	int i, mcp = access(mcp_prog, X_OK) == 0;
	int fork_only = getenv("SLIPWAY_EXEC_WORKERS") == NULL;

	npools = 0;
	if ((p = pool_add("api", "api.log", O.workers)) == NULL)
		return -1;
	p->argv[0] = api_prog;
	p->entry = fork_only ? sw_api_main : NULL;
	/* Long polls have their own pool (nginx: location ...:wait). */
	if ((p = pool_add("wait", "api.log", SW_WAIT_WORKERS)) == NULL)
		return -1;
	p->argv[0] = api_prog;
	p->argv[1] = "--wait";
	p->entry = fork_only ? sw_api_main : NULL;
	if (sw_fmt(wait_slots, sizeof(wait_slots), "%d",
		O.workers / SW_MCP_WAIT_SHARE > 0
		    ? O.workers / SW_MCP_WAIT_SHARE
		    : 1) != SW_OK)
		return -1;
	if (mcp) {
		if ((p = pool_add("mcp", "mcp.log", O.workers)) == NULL)
			return -1;
		p->argv[0] = mcp_prog;
		p->argv[1] = "--wait-slots";
		p->argv[2] = wait_slots;
		p->entry = fork_only ? sw_mcp_main : NULL;
		if ((p = pool_add(
			 "mcp-wait", "mcp.log", SW_MCP_WAIT_WORKERS)) == NULL)
			return -1;
		p->argv[0] = mcp_prog;
		p->argv[1] = "--wait-pool";
		p->entry = fork_only ? sw_mcp_main : NULL;
	}
	for (i = 0; i < nplugins; i++) {
		if (sw_fmt(ext[i], sizeof(ext[i]), "ext-%s", plugins[i].name) !=
			SW_OK ||
		    (p = pool_add(ext[i], "ext.log", plugins[i].workers)) ==
			NULL)
			return -1;
		p->argv[0] = plugins[i].program;
	}
	if (access(poller_prog, X_OK) == 0) {
		if ((p = pool_add("poller", "poller.log", 1)) == NULL)
			return -1;
		p->argv[0] = poller_prog;
		p->entry = fork_only ? sw_poller_main : NULL;
		p->single = p->no_socket = 1;
	}
	if (access(stream_prog, X_OK) == 0) {
		if ((p = pool_add("stream", "stream.log", 1)) == NULL)
			return -1;
		p->argv[0] = stream_prog;
		p->entry = fork_only ? sw_stream_main : NULL;
		p->single = 1;
	}
	return 0;
}

/* Open p's socket and add its children: 0, -1 on a socket that cannot
 * be opened (logged), -2 when the supervisor's table is full. */
static int
pool_start(struct pool *p)
{
	char path[700], name[sizeof(((struct sw_child *)0)->name)];
	struct sw_child *c;
	int i;

	if (!p->no_socket) {
		if (sw_fmt(path, sizeof(path), "%s/run/%s.sock", O.state_dir,
			p->name) != SW_OK) {
			sw_error("socket path too long in %s", O.state_dir);
			return -1;
		}
		if ((p->fd = unix_listen(path, 0600)) < 0)
			return -1;
	}
	for (i = 0; i < p->workers; i++) {
		if ((p->single ? sw_fmt(name, sizeof(name), "%s", p->name)
			       : sw_fmt(name, sizeof(name), "%s.%d", p->name,
				     i)) != SW_OK ||
		    (c = add_child(name, p->log)) == NULL)
			return -2;
		memcpy(c->argv, p->argv, sizeof(p->argv));
		c->entry = p->entry;
		c->listen_fd = p->fd;
	}
	return 0;
}

/* Close every pool's socket and remove it. */
static void
pools_close(void)
{
	char path[700];
	int i;

	for (i = 0; i < npools; i++) {
		if (pools[i].fd < 0)
			continue;
		close(pools[i].fd);
		pools[i].fd = -1;
		if (sw_fmt(path, sizeof(path), "%s/run/%s.sock", O.state_dir,
			pools[i].name) == SW_OK)
			unlink(path);
	}
}

/* ---- sandbox --------------------------------------------------------- */

/*
 * slipway.conf sandbox_join: the sandbox.json of a sandbox another
 * stack runs, which this one uses as its own (one more replica on the
 * same emulated AWS account and the same database); NULL when the line
 * is absent, or the file cannot be read (said on stderr, *bad set).
 */
static json_object *
sandbox_joined(int *bad)
{
	const char *path = sw_json_get_str(opconf, "sandbox_join");
	json_object *info = NULL;
	struct sw_buf b;
	char why[128];

	*bad = 0;
	if (path == NULL)
		return NULL;
	sw_buf_init(&b, 1 << 20);
	if (sw_read_file(path, 1 << 20, &b) != SW_OK ||
	    sw_json_parse(b.data ? b.data : "", b.len, &info, why,
		sizeof(why)) != SW_OK ||
	    sw_json_get_str(info, "aws_endpoint") == NULL) {
		fprintf(stderr,
		    "slipway: sandbox_join: cannot read the "
		    "sandbox's endpoint from %s\n",
		    path);
		json_object_put(info);
		info = NULL;
		*bad = 1;
	}
	sw_buf_free(&b);
	return info;
}

static char sandbox_dir[600], sandbox_prog[PATH_MAX],
    python3[] = SW_PYTHON3_PATH, speed_text[16], sandbox_port_text[8];

/*
 * Write the port of the sandbox's AWS endpoint ("http://127.0.0.1:40013")
 * into out as text; 0, or -1 when the endpoint names no valid port.
 */
static int
sandbox_port_of(const char *endpoint, char *out, size_t outsz)
{
	const char *colon;
	char *end;
	long v;

	if (endpoint == NULL || (colon = strrchr(endpoint, ':')) == NULL)
		return -1;
	errno = 0;
	v = strtol(colon + 1, &end, 10);
	if (errno != 0 || end == colon + 1 || (*end != '\0' && *end != '/') ||
	    v < 1 || v > 65535)
		return -1;
	if (snprintf(out, outsz, "%ld", v) >= (int)outsz)
		return -1;
	return 0;
}

/*
 * Start slipway-sandbox and wait for its sandbox.json; returns the
 * parsed file (new reference) or NULL.  The first start takes any free
 * port; the child's arguments then name that port, so a sandbox the
 * supervisor restarts (it died, or was killed) listens where config.json
 * and every worker already point.
 */
static json_object *
sandbox_start(void)
{
	struct timespec nap = { 0, 50 * 1000 * 1000 };
	struct sw_child *c;
	struct sw_buf b;
	json_object *info = NULL;
	char path[700], why[64];
	int i;

	if (state_path(sandbox_dir, sizeof(sandbox_dir), "sandbox") != 0 ||
	    mkdir_p(sandbox_dir, 0700) != 0)
		return NULL;
	data_path(
	    sandbox_prog, sizeof(sandbox_prog), "sandbox/slipway-sandbox");
	if (access(sandbox_prog, R_OK) != 0) {
		fprintf(stderr,
		    "slipway: the sandbox is not installed "
		    "(%s)\n",
		    sandbox_prog);
		return NULL;
	}
	if (state_path(path, sizeof(path), "sandbox/sandbox.json") != 0 ||
	    sw_fmt(speed_text, sizeof(speed_text), "%d", O.speed) != SW_OK)
		return NULL;
	unlink(path);
	if ((c = add_child("sandbox", "sandbox.log")) == NULL)
		return NULL;
	c->argv[0] = python3;
	c->argv[1] = sandbox_prog;
	c->argv[2] = "--state-dir";
	c->argv[3] = sandbox_dir;
	c->argv[4] = "--speed";
	c->argv[5] = speed_text;
	c->argv[6] = NULL;
	if (sw_child_start(c) != 0)
		return NULL;
	for (i = 0; i < 400; i++) {
		sw_buf_init(&b, 1 << 20);
		if (sw_read_file(path, 1 << 20, &b) == SW_OK &&
		    sw_json_parse(b.data ? b.data : "", b.len, &info, why,
			sizeof(why)) == SW_OK) {
			sw_buf_free(&b);
			if (sandbox_port_of(
				sw_json_get_str(info, "aws_endpoint"),
				sandbox_port_text,
				sizeof(sandbox_port_text)) != 0) {
				fprintf(stderr,
				    "slipway: the sandbox names no "
				    "port in %s\n",
				    path);
				json_object_put(info);
				return NULL;
			}
			c->argv[6] = "--port";
			c->argv[7] = sandbox_port_text;
			c->argv[8] = NULL;
			return info;
		}
		sw_buf_free(&b);
		if (waitpid(c->pid, NULL, WNOHANG) == c->pid) {
			c->pid = 0;
			fprintf(stderr,
			    "slipway: the sandbox exited at start;"
			    " see %s\n",
			    c->log);
			return NULL;
		}
		nanosleep(&nap, NULL);
	}
	fprintf(stderr, "slipway: the sandbox did not become ready; see %s\n",
	    c->log);
	return NULL;
}

/* ---- plugins ---------------------------------------------------------- */

/* ---- start ----------------------------------------------------------- */

/*
 * slipway.conf's member.* lines, with $SLIPWAY_MEMBER_ROLE_NAME and
 * $SLIPWAY_MEMBER_EXTERNAL_ID (the CloudFormation instance's) for the
 * keys it does not set.  New reference, NULL when there is nothing.
 */
static json_object *
member_of(void)
{
	json_object *m = sw_json_get(opconf, "member");
	const char *name = getenv("SLIPWAY_MEMBER_ROLE_NAME");
	const char *ext = getenv("SLIPWAY_MEMBER_EXTERNAL_ID");

	m = m != NULL ? json_object_get(m) : json_object_new_object();
	if (sw_json_get_str(m, "role_name") == NULL && name && name[0])
		sw_json_add_str(m, "role_name", name);
	if (sw_json_get_str(m, "external_id") == NULL && ext && ext[0])
		sw_json_add_str(m, "external_id", ext);
	if (json_object_object_length(m) == 0) {
		json_object_put(m);
		return NULL;
	}
	return m;
}

/*
 * The permissions boundary of the roles Slipway creates: slipway.conf's
 * iam_permissions_boundary, else $SLIPWAY_IAM_PERMISSIONS_BOUNDARY (the
 * CloudFormation template sets it), else none.  -1 when the variable
 * is not a policy ARN.
 */
static int
boundary_of(const char **out)
{
	const char *v = getenv("SLIPWAY_IAM_PERMISSIONS_BOUNDARY");

	*out = sw_json_get_str(opconf, "iam_permissions_boundary");
	if (*out != NULL || v == NULL || v[0] == '\0')
		return 0;
	if (!sw_conf_policy_arn_ok(v)) {
		fprintf(stderr,
		    "slipway: SLIPWAY_IAM_PERMISSIONS_BOUNDARY is "
		    "not a managed policy ARN\n");
		return -1;
	}
	*out = v;
	return 0;
}

static int
write_config(json_object *sandbox)
{
	const char *bound;
	json_object *cfg, *origins, *member;
	char path[700];
	const char *text;
	sw_err e;

	cfg = json_object_new_object();
	sw_json_add_int(cfg, "port", O.port);
	sw_json_add_str(cfg, "region",
	    sandbox && sw_json_get_str(sandbox, "region")
		? sw_json_get_str(sandbox, "region")
		: sw_json_get_str(opconf, "region")
		? sw_json_get_str(opconf, "region")
		: "us-west-2");
	if (sw_json_get_str(opconf, "log_format") != NULL)
		sw_json_add_str(
		    cfg, "log_format", sw_json_get_str(opconf, "log_format"));
	if (boundary_of(&bound) != 0) {
		json_object_put(cfg);
		return -1;
	}
	if (bound != NULL)
		sw_json_add_str(cfg, "iam_permissions_boundary", bound);
	if (sw_json_get_str(opconf, "database") != NULL)
		sw_json_add_str(
		    cfg, "database", sw_json_get_str(opconf, "database"));
	if (sw_json_get_str(opconf, "person_role_arn") != NULL)
		sw_json_add_str(cfg, "person_role_arn",
		    sw_json_get_str(opconf, "person_role_arn"));
	sw_json_add_bool(cfg, "sandbox", sandbox != NULL);
	sw_json_add_int(cfg, "workers", O.workers);
	origins = json_object_new_array();
	json_object_array_add(origins, sw_jsf("http://127.0.0.1:%d", O.port));
	json_object_array_add(origins, sw_jsf("http://localhost:%d", O.port));
	if (sw_json_get(opconf, "allowed_origins") != NULL) {
		json_object *more = sw_json_get(opconf, "allowed_origins");
		size_t k;

		for (k = 0; k < json_object_array_length(more); k++)
			json_object_array_add(origins,
			    json_object_get(
				json_object_array_get_idx(more, k)));
	}
	json_object_object_add(cfg, "allowed_origins", origins);
	json_object_object_add(
	    cfg, "internal_url", sw_jsf("http://127.0.0.1:%d", O.port));
	if (sw_json_get(opconf, "oidc") != NULL)
		json_object_object_add(
		    cfg, "oidc", json_object_get(sw_json_get(opconf, "oidc")));
	if (sw_json_get(opconf, "teams") != NULL)
		json_object_object_add(cfg, "teams",
		    json_object_get(sw_json_get(opconf, "teams")));
	if (sw_json_get(opconf, "team_iam") != NULL)
		json_object_object_add(cfg, "team_iam",
		    json_object_get(sw_json_get(opconf, "team_iam")));
	/* how member accounts are reached, and Slipway's own account */
	if ((member = member_of()) != NULL)
		json_object_object_add(cfg, "member", member);
	if (sw_json_get_str(opconf, "account_id") != NULL)
		sw_json_add_str(
		    cfg, "account_id", sw_json_get_str(opconf, "account_id"));
	/* team_access_set reads the team.* lines again when it runs */
	if (opconf != NULL && conf_file_path()[0] == '/')
		sw_json_add_str(cfg, "conf_file", conf_file_path());
	if (sw_json_get_str(opconf, "public_url") != NULL)
		sw_json_add_str(
		    cfg, "public_url", sw_json_get_str(opconf, "public_url"));
	if (sandbox != NULL)
		json_object_object_add(
		    cfg, "sandbox_info", json_object_get(sandbox));
	text = sw_json_pretty(cfg);
	e = state_path(path, sizeof(path), "config.json") != 0
	    ? SW_ETOOBIG
	    : sw_write_file(path, text, strlen(text), 0600);
	json_object_put(cfg);
	return e == SW_OK ? 0 : -1;
}

static int
render_nginx(char *conf, size_t confsz)
{
	char tmpl_path[PATH_MAX], static_dir[PATH_MAX], port[16], user[64];
	struct sw_buf tmpl, out;
	char why[128];
	int rc = -1;
	struct sw_kv vars[] = { { "STATE_DIR", O.state_dir },
		{ "STATIC_DIR", static_dir }, { "PORT", port },
		{ "LISTEN", O.listen_any ? "0.0.0.0" : "127.0.0.1" },
		{ "USER_LINE", user },
		{ "MIME_TYPES", "/etc/nginx/mime.types" },
		{ "FASTCGI_PARAMS", "/etc/nginx/fastcgi_params" },
		{ NULL, NULL } };

	data_path(tmpl_path, sizeof(tmpl_path), "nginx/slipway.conf.in");
	data_path(static_dir, sizeof(static_dir), "static");
	/* As root, nginx workers would otherwise become nobody and could not
	 * reach the sockets in the private state directory. */
	sw_buf_init(&tmpl, 1 << 20);
	sw_buf_init(&out, 1 << 20);
	if (sw_fmt(port, sizeof(port), "%d", O.port) != SW_OK ||
	    sw_fmt(user, sizeof(user), "%s",
		geteuid() == 0 ? "user root;" : "") != SW_OK)
		goto out;
	if (sw_read_file(tmpl_path, 1 << 20, &tmpl) != SW_OK) {
		fprintf(stderr, "slipway: cannot read %s\n", tmpl_path);
		goto out;
	}
	if (sw_render(sw_buf_str(&tmpl), vars, &out, why, sizeof(why)) !=
	    SW_OK) {
		fprintf(stderr, "slipway: %s: %s\n", tmpl_path, why);
		goto out;
	}
	if (state_path(conf, confsz, "nginx.conf") != 0)
		goto out;
	if (sw_write_file(conf, out.data, out.len, 0600) != SW_OK) {
		fprintf(stderr, "slipway: cannot write %s\n", conf);
		goto out;
	}
	rc = 0;
out:
	sw_buf_free(&tmpl);
	sw_buf_free(&out);
	return rc;
}

/* nginx -t: refuse to start on a configuration nginx rejects. */
static int
nginx_check(const char *conf)
{
	char errlog[700];
	const char *argv[] = { SW_NGINX_PATH, "-t", "-q", "-p", O.state_dir,
		"-c", conf, "-e", errlog, NULL };
	struct sw_child c;
	int status;

	memset(&c, 0, sizeof(c));
	memcpy(c.argv, argv, sizeof(argv));
	c.listen_fd = -1;
	if (state_path(errlog, sizeof(errlog), "logs/error.log") != 0 ||
	    state_path(c.log, sizeof(c.log), "logs/nginx-check.log") != 0 ||
	    sw_fmt(c.name, sizeof(c.name), "nginx -t") != SW_OK ||
	    sw_child_start(&c) != 0)
		return -1;
	if (waitpid(c.pid, &status, 0) != c.pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "slipway: nginx rejected %s; see %s\n", conf,
		    c.log);
		return -1;
	}
	return 0;
}

static int
stack_ready(struct sw_sup *s)
{
	struct timespec nap = { 0, 50 * 1000 * 1000 };
	char path[700];
	int i;

	for (i = 0; i < 300; i++) {
		if (port_answers(s->port)) {
			if (state_path(path, sizeof(path), "run/ready") != 0 ||
			    sw_write_file(path, "ok\n", 3, 0644) != SW_OK)
				sw_error(
				    "cannot write %s/run/ready", O.state_dir);
			return 0;
		}
		nanosleep(&nap, NULL);
	}
	sw_error("nginx did not start listening on port %d", s->port);
	return 1;
}

static int
cmd_start(void)
{
	char path[700], pidtext[32], dir[700];
	json_object *sbinfo = NULL, *joined;
	struct sw_child *c;
	struct sw_config cfg;
	struct sw_db *db = NULL;
	int i, rc, logfd, bad = 0;
	pid_t pid;

	if (running_supervisor() != 0) {
		fprintf(stderr,
		    "slipway: already running for %s (stop it "
		    "first)\n",
		    O.state_dir);
		return 1;
	}
	if (!port_free(O.port)) {
		fprintf(stderr, "slipway: port %d on %s is in use\n", O.port,
		    O.listen_any ? "0.0.0.0" : "127.0.0.1");
		return 1;
	}
	if (mkdir_p(O.state_dir, 0700) != 0) {
		fprintf(stderr, "slipway: cannot create %s: %s\n", O.state_dir,
		    strerror(errno));
		return 1;
	}
	chmod(O.state_dir, 0700);
	for (i = 0; i < 4; i++) {
		static const char *const sub[] = { "run", "logs", "tmp",
			"ext.d" };
		if (state_path(dir, sizeof(dir), sub[i]) != 0)
			return 1;
		if (mkdir_p(dir, 0700) != 0) {
			fprintf(stderr, "slipway: cannot create %s\n", dir);
			return 1;
		}
	}
	if (state_path(path, sizeof(path), "run/ready") != 0)
		return 1;
	unlink(path);
	/* Create or migrate the state store before any worker opens it:
	 * the configuration's PostgreSQL database, or state.db. */
	if (sw_json_get_str(opconf, "database") != NULL) {
		if (sw_db_open(sw_json_get_str(opconf, "database"), &db) !=
		    SW_OK) {
			fprintf(stderr,
			    "slipway: cannot open the configured "
			    "PostgreSQL database\n");
			return 1;
		}
		sw_db_close(db);
	} else {
		if (state_path(path, sizeof(path), "state.db") != 0)
			return 1;
		if (sw_db_open(path, &db) != SW_OK) {
			fprintf(stderr, "slipway: cannot open %s\n", path);
			return 1;
		}
		sw_db_close(db);
		/* A store created by an older build may still be 0644. */
		(void)chmod(path, 0600);
	}

	prog_path(api_prog, sizeof(api_prog), "cgi", "slipway-api");
	prog_path(mcp_prog, sizeof(mcp_prog), "cgi", "slipway-mcp");
	prog_path(poller_prog, sizeof(poller_prog), "poller", "slipway-poller");
	prog_path(stream_prog, sizeof(stream_prog), "stream", "slipway-stream");
	if (access(api_prog, X_OK) != 0) {
		fprintf(stderr, "slipway: missing %s\n", api_prog);
		return 1;
	}
	if (sw_plugins_load(O.state_dir, plugins, SW_MAX_PLUGINS, &nplugins) !=
	    0)
		return 1;
	joined = O.sandbox ? NULL : sandbox_joined(&bad);
	rc = bad || write_config(joined) != 0 ||
	    render_nginx(conf_path, sizeof(conf_path)) != 0 ||
	    nginx_check(conf_path) != 0;
	json_object_put(joined);
	if (rc)
		return 1;

	if (!O.foreground) {
		/* Parent waits for the stack to be ready, then reports. */
		if ((pid = fork()) < 0)
			return 1;
		if (pid > 0) {
			struct timespec nap = { 0, 50 * 1000 * 1000 };
			int status;

			if (state_path(path, sizeof(path), "run/ready") != 0)
				return 1;
			for (i = 0; i < 1200; i++) {
				if (access(path, F_OK) == 0) {
					printf(
					    "slipway: running at "
					    "http://127.0.0.1:%d/ (state %s)\n",
					    O.port, O.state_dir);
					return 0;
				}
				/* The first child exits at once (double
				 * fork); after that, watch the supervisor. */
				if (pid > 0 &&
				    waitpid(pid, &status, WNOHANG) == pid) {
					if (!WIFEXITED(status) ||
					    WEXITSTATUS(status) != 0)
						break;
					pid = 0;
				}
				if (pid == 0 && i > 20 &&
				    running_supervisor() == 0)
					break;
				nanosleep(&nap, NULL);
			}
			fprintf(stderr,
			    "slipway: start failed; see %s/logs/"
			    "slipway.log\n",
			    O.state_dir);
			return 1;
		}
		setsid();
		if ((pid = fork()) != 0)
			_exit(pid < 0 ? 1 : 0);
	}
	if (state_path(path, sizeof(path), "logs/slipway.log") != 0)
		return 1;
	if ((logfd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0640)) >= 0) {
		if (!O.foreground) {
			dup2(logfd, 1);
			int nul = open("/dev/null", O_RDONLY);
			if (nul >= 0) {
				dup2(nul, 0);
				close(nul);
			}
		}
		dup2(logfd, 2);
		close(logfd);
	}
	sw_log_init("slipway");
	sw_sup_block_signals();
	memset(&sup, 0, sizeof(sup));
	if (logfd >= 0 &&
	    sw_fmt(sup.log_path, sizeof(sup.log_path), "%s", path) == SW_OK)
		sw_log_follow(path);
	if (sw_fmt(sup.state_dir, sizeof(sup.state_dir), "%s", O.state_dir) !=
		SW_OK ||
	    state_path(sup.status_path, sizeof(sup.status_path),
		"run/status.json") != 0 ||
	    state_path(path, sizeof(path), "run/slipway.pid") != 0 ||
	    sw_fmt(pidtext, sizeof(pidtext), "%ld\n", (long)getpid()) !=
		SW_OK) {
		sw_error("the state directory %s is too long", O.state_dir);
		return 1;
	}
	sup.port = O.port;
	sup.sandbox = O.sandbox;
	(void)sw_write_file(path, pidtext, strlen(pidtext), 0644);
	setenv("SLIPWAY_STATE_DIR", O.state_dir, 1);

	if (O.sandbox) {
		if ((sbinfo = sandbox_start()) == NULL) {
			sw_sup_stop_all(&sup, 3000);
			return 1;
		}
		if (write_config(sbinfo) != 0) {
			sw_sup_stop_all(&sup, 3000);
			return 1;
		}
		json_object_put(sbinfo);
	}
	if (sw_config_load(O.state_dir, &cfg) != SW_OK) {
		sw_error("cannot read back config.json");
		sw_sup_stop_all(&sup, 3000);
		return 1;
	}
	sw_config_free(&cfg);

	if (pools_describe() != 0)
		goto full;
	for (i = 0; i < npools; i++) {
		if ((rc = pool_start(&pools[i])) == -2)
			goto full;
		if (rc != 0) {
			pools_close();
			sw_sup_stop_all(&sup, 3000);
			return 1;
		}
	}
	if (state_path(errlog_path, sizeof(errlog_path), "logs/error.log") !=
		0 ||
	    (c = add_child("nginx", "nginx.log")) == NULL)
		goto full;
	c->argv[0] = SW_NGINX_PATH;
	c->argv[1] = "-p";
	c->argv[2] = O.state_dir;
	c->argv[3] = "-c";
	c->argv[4] = conf_path;
	c->argv[5] = "-e";
	c->argv[6] = errlog_path;
	c->argv[7] = NULL;
	c->stop_signal = SIGQUIT;
	c->reopen_signal = SIGUSR1; /* nginx: reopen access/error.log */

	sw_info("starting on port %d with %d workers%s", O.port, O.workers,
	    O.sandbox ? " and the sandbox" : "");
	rc = sw_sup_run(&sup, stack_ready);
	pools_close();
	if (state_path(path, sizeof(path), "run/ready") == 0)
		unlink(path);
	if (state_path(path, sizeof(path), "run/slipway.pid") == 0)
		unlink(path);
	sw_info("stopped");
	return rc;
full:
	sw_error("more processes than the supervisor's table holds (%d)",
	    SW_MAX_CHILDREN);
	pools_close();
	sw_sup_stop_all(&sup, 3000);
	return 1;
}

/* ---- stop / status --------------------------------------------------- */

static int
cmd_stop(void)
{
	struct timespec nap = { 0, 50 * 1000 * 1000 };
	pid_t pid;
	int i;

	if ((pid = running_supervisor()) == 0) {
		printf("slipway: not running (%s)\n", O.state_dir);
		return 0;
	}
	kill(pid, SIGTERM);
	for (i = 0; i < 300; i++) {
		if (kill(pid, 0) != 0) {
			printf("slipway: stopped\n");
			return 0;
		}
		nanosleep(&nap, NULL);
	}
	fprintf(stderr, "slipway: supervisor %ld did not stop; killing it\n",
	    (long)pid);
	kill(pid, SIGKILL);
	return 1;
}

static int
cmd_status(void)
{
	char path[700], why[64];
	json_object *st = NULL, *cfg = NULL, *arr, *sb;
	struct sw_buf b;
	pid_t pid = running_supervisor();
	size_t i;

	sw_buf_init(&b, 1 << 20);
	if (pid == 0 ||
	    state_path(path, sizeof(path), "run/status.json") != 0 ||
	    sw_read_file(path, 1 << 20, &b) != SW_OK ||
	    sw_json_parse(sw_buf_str(&b), b.len, &st, why, sizeof(why)) !=
		SW_OK) {
		sw_buf_free(&b);
		if (O.json)
			printf("{\"running\":false,\"state_dir\":\"%s\"}\n",
			    O.state_dir);
		else
			printf("slipway: not running (%s)\n", O.state_dir);
		return 3;
	}
	sw_buf_free(&b);
	sw_json_add_bool(st, "running", 1);
	sw_buf_init(&b, 1 << 20);
	if (state_path(path, sizeof(path), "config.json") == 0 &&
	    sw_read_file(path, 1 << 20, &b) == SW_OK &&

	    sw_json_parse(sw_buf_str(&b), b.len, &cfg, why, sizeof(why)) ==
		SW_OK &&
	    (sb = sw_json_get(cfg, "sandbox_info")) != NULL) {
		json_object *pub = json_object_new_object();

		json_object_object_foreach(sb, k, v)
		{
			/* The control token stays in the private file. */
			if (strcmp(k, "control_token") == 0)
				continue;
			json_object_object_add(pub, k, json_object_get(v));
		}
		json_object_object_add(st, "sandbox_endpoints", pub);
	}
	sw_buf_free(&b);
	if (O.json) {
		printf("%s\n", sw_json_pretty(st));
	} else {
		printf(
		    "slipway: running at %s (supervisor pid %ld, state %s)\n",
		    sw_json_get_str(st, "url"), (long)pid, O.state_dir);
		arr = sw_json_get(st, "components");
		for (i = 0; arr && i < json_object_array_length(arr); i++) {
			json_object *k = json_object_array_get_idx(arr, i);

			printf("  %-10s pid %-7lld restarts %lld\n",
			    sw_json_get_str(k, "name"),
			    (long long)sw_json_get_int(k, "pid", 0),
			    (long long)sw_json_get_int(k, "restarts", 0));
		}
		if ((sb = sw_json_get(st, "sandbox_endpoints")) != NULL)
			printf("  sandbox AWS endpoint %s region %s\n",
			    sw_json_get_str(sb, "aws_endpoint")
				? sw_json_get_str(sb, "aws_endpoint")
				: "?",
			    sw_json_get_str(sb, "region")
				? sw_json_get_str(sb, "region")
				: "?");
	}
	json_object_put(st);
	json_object_put(cfg);
	return 0;
}

/*
 * After the log files were renamed (logrotate): the supervisor reopens
 * its own, has nginx reopen access.log and error.log and its children
 * theirs (cli/supervise.c, SIGUSR1).
 */
static int
cmd_logs_reopen(void)
{
	pid_t pid;

	if ((pid = running_supervisor()) == 0) {
		fprintf(stderr, "slipway: not running (%s)\n", O.state_dir);
		return 1;
	}
	if (kill(pid, SIGUSR1) != 0) {
		fprintf(stderr, "slipway: cannot signal %ld: %s\n", (long)pid,
		    strerror(errno));
		return 1;
	}
	return 0;
}

/* The version and what this build has built in (the test-only fault
 * hooks are off in a release build). */
static int
cmd_version(void)
{
#ifdef SW_FAULT_INJECTION
	const int faults = 1;
#else
	const int faults = 0;
#endif
	json_object *o;

	if (O.json) {
		o = sw_jo("name", sw_js(PACKAGE_NAME), "version",
		    sw_js(PACKAGE_VERSION), "fault_injection",
		    json_object_new_boolean(faults), NULL);
		printf("%s\n",
		    json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
		json_object_put(o);
	} else
		printf("%s %s\nfault injection (SLIPWAY_FAULT): %s\n",
		    PACKAGE_NAME, PACKAGE_VERSION,
		    faults ? "built in" : "not built in (ignored)");
	return 0;
}

static int
parse_int(const char *s, int lo, int hi, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "slipway: %s must be %d..%d\n", what, lo, hi);
		exit(2);
	}
	return (int)v;
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "state-dir", required_argument, NULL, 'd' },
		{ "port", required_argument, NULL, 'p' },
		{ "sandbox", no_argument, NULL, 's' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "workers", required_argument, NULL, 'w' },
		{ "speed", required_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'j' },
		{ "scope", required_argument, NULL, 'c' },
		{ "name", required_argument, NULL, 'n' },
		{ "local", no_argument, NULL, 'l' },
		{ "tools", required_argument, NULL, 'T' },
		{ "team", required_argument, NULL, 'm' },
		{ "role", required_argument, NULL, 'r' },
		{ "ttl", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }
	};
	const char *cmd, *sub = NULL;
	int ch, no_dir;

	sw_sup_keep_title_room(argc, argv);
	/* The state (tokens' hashes, operations) and the logs are private:
	 * every file Slipway or its children create is 0600. */
	(void)umask(077);
	if (argc < 2)
		usage();
	cmd = argv[1];
	/* Anything but the launcher's own commands is the user CLI's. */
	/* slipway logs reopen is the launcher's; any other logs the CLI's. */
	if (!is_launcher_command(cmd) ||
	    (strcmp(cmd, "logs") == 0 && argc >= 3 &&
		strcmp(argv[2], "reopen") != 0))
		return sw_cli_client(argc - 1, argv + 1);
	if (strcmp(cmd, "token") == 0 || strcmp(cmd, "logs") == 0) {
		if (argc < 3)
			usage();
		sub = argv[2];
		argv += 2;
		argc -= 2;
	} else {
		argv += 1;
		argc -= 1;
	}
	no_dir = default_state_dir(O.state_dir, sizeof(O.state_dir));
	O.port = SW_DEFAULT_PORT;
	O.workers = SW_DEFAULT_WORKERS;
	O.speed = 1;
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'd':
			if (strlen(optarg) >= 400) {
				fprintf(
				    stderr, "slipway: state dir too long\n");
				return 2;
			}
			if (optarg[0] != '/') {
				char cwd[PATH_MAX];

				if (getcwd(cwd, sizeof(cwd)) == NULL ||
				    sw_fmt(O.state_dir, sizeof(O.state_dir),
					"%s/%s", cwd, optarg) != SW_OK) {
					fprintf(stderr,
					    "slipway: state dir "
					    "too long\n");
					return 2;
				}
			} else if (sw_fmt(O.state_dir, sizeof(O.state_dir),
				       "%s", optarg) != SW_OK)
				return 2;
			no_dir = 0;
			break;
		case 'p':
			O.port = parse_int(optarg, 1, 65535, "--port");
			O.port_set = 1;
			break;
		case 's':
			O.sandbox = 1;
			break;
		case 'f':
			O.foreground = 1;
			break;
		case 'w':
			O.workers =
			    parse_int(optarg, 1, SW_MAX_WORKERS, "--workers");
			O.workers_set = 1;
			break;
		case 'S':
			O.speed = parse_int(optarg, 1, 100000, "--speed");
			break;
		case 'j':
			O.json = 1;
			break;
		case 'l':
			O.local = 1;
			break;
		case 'c':
			if (sw_fmt(O.scope, sizeof(O.scope), "%s", optarg) !=
			    SW_OK)
				usage();
			break;
		case 'n':
			if (sw_fmt(O.name, sizeof(O.name), "%s", optarg) !=
			    SW_OK)
				usage();
			break;
		case 'T':
			if (sw_fmt(O.tools, sizeof(O.tools), "%s", optarg) !=
			    SW_OK)
				usage();
			break;
		case 'm':
			if (sw_fmt(O.team, sizeof(O.team), "%s", optarg) !=
			    SW_OK)
				usage();
			break;
		case 'r':
			if (sw_fmt(O.role, sizeof(O.role), "%s", optarg) !=
			    SW_OK)
				usage();
			break;
		case 't':
			O.ttl = parse_int(optarg, 1, 31536000, "--ttl");
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (no_dir)
		return 2;
	find_layout();
	if (strcmp(cmd, "start") == 0) {
		if (apply_conf_file() != 0)
			return 1;
		return cmd_start();
	}
	if (strcmp(cmd, "stop") == 0)
		return cmd_stop();
	if (strcmp(cmd, "status") == 0)
		return cmd_status();
	if (strcmp(cmd, "api-manual") == 0)
		return sw_cli_api_manual(stdout);
	if (strcmp(cmd, "version") == 0)
		return cmd_version();
	if (strcmp(cmd, "logs") == 0) {
		if (strcmp(sub, "reopen") != 0)
			usage();
		return cmd_logs_reopen();
	}
	if (strcmp(cmd, "doctor") == 0) {
		char tmpl[PATH_MAX], actions[PATH_MAX];

		data_path(tmpl, sizeof(tmpl), "nginx/slipway.conf.in");
		if (prog_dir[0] != '\0') {
			if (sw_fmt(actions, sizeof(actions),
				"%s/cfn/iam-actions.txt", prog_dir) != SW_OK)
				return 1;
		} else

			data_path(actions, sizeof(actions), "iam-actions.txt");
		return sw_cli_doctor(
		    &(struct sw_doctor_opts){ .state_dir = O.state_dir,
			.local = O.local,
			.json = O.json,
			.nginx = SW_NGINX_PATH,
			.nginx_template = tmpl,
			.actions_file = actions,
			.conf_file = conf_file_path() });
	}
	if (strcmp(cmd, "token") == 0) {
		int rc = sw_cli_token(O.state_dir, sub,
		    &(struct sw_cli_tok){ .scope = O.scope,
			.name = O.name,
			.tools = O.tools,
			.team = O.team,
			.role = O.role,
			.ttl = O.ttl,
			.json = O.json });

		if (rc == 2)
			usage();
		return rc;
	}
	usage();
	return 2;
}
