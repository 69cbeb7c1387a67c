/*
 * plugins.h: a sysadmin's own FastCGI endpoint:
 * <state>/plugins.d/NAME.json is
 *   {"name": "NAME", "program": "/abs/path", "location": "/ext/NAME/",
 *    "workers": 1}
 * and gets a socket run/ext-NAME.sock, supervised workers, and an nginx
 * location rendered into ext.d/NAME.conf.  Its MCP tool is described
 * separately in tools.d/.
 */
#ifndef SW_CLI_PLUGINS_H
#define SW_CLI_PLUGINS_H

#include <limits.h>

struct plugin {
	char name[40];
	char program[PATH_MAX];
	char location[128];
	int workers;
};

/*
 * Read state_dir/plugins.d into plugins (at most max; *count of them)
 * and write state_dir/ext.d afresh; -1 (with a message on stderr) on a
 * bad file or too many plugins.
 */
int sw_plugins_load(
    const char *state_dir, struct plugin *plugins, int max, int *count);

#endif
