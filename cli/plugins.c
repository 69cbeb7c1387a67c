/*
 * plugins.c: a sysadmin's own FastCGI endpoints (see plugins.h): read
 * <state>/plugins.d/NAME.json, check each, and render the nginx location
 * of each into ext.d/NAME.conf.  The launcher then gives each a socket
 * and supervised workers.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/plugins.h"
#include "cli/render.h"
#include "lib/buf.h"
#include "lib/conf.h"
#include "lib/json.h"
#include "lib/limits.h"

static int
plugin_name_ok(const char *n)
{
	size_t i, len = strlen(n);

	if (len == 0 || len > 32)
		return 0;
	for (i = 0; i < len; i++)
		if (!((n[i] >= 'a' && n[i] <= 'z') ||
			(n[i] >= '0' && n[i] <= '9') || n[i] == '-'))
			return 0;
	return 1;
}

int
sw_plugins_load(
    const char *state_dir, struct plugin *plugins, int max, int *count)
{
	char dir[700], path[PATH_MAX + 8], why[64];
	struct dirent *de;
	struct sw_buf b, conf;
	json_object *o;
	DIR *d;
	int rc = 0, nplugins = 0;

	/* ext.d is ours: start it afresh. */
	if (sw_fmt(dir, sizeof(dir), "%s/ext.d", state_dir) != SW_OK) {
		fprintf(stderr, "slipway: %s: path too long\n", state_dir);
		return -1;
	}
	if ((d = opendir(dir)) != NULL) {
		while ((de = readdir(d)) != NULL)
			if (strstr(de->d_name, ".conf") != NULL &&
			    sw_fmt(path, sizeof(path), "%s/%s", dir,
				de->d_name) == SW_OK)
				unlink(path);
		closedir(d);
	}
	if (sw_fmt(dir, sizeof(dir), "%s/plugins.d", state_dir) != SW_OK ||
	    (d = opendir(dir)) == NULL)
		return 0;
	while (rc == 0 && (de = readdir(d)) != NULL) {
		struct plugin *p;
		const char *name, *prog, *loc;
		size_t n = strlen(de->d_name);

		if (n < 6 || strcmp(de->d_name + n - 5, ".json") != 0)
			continue;
		if (nplugins == max) {
			fprintf(stderr, "slipway: too many plugins\n");
			rc = -1;
			break;
		}
		sw_buf_init(&b, 65536);
		o = NULL;
		if (sw_fmt(path, sizeof(path), "%s/%s", dir, de->d_name) !=
			SW_OK ||
		    sw_read_file(path, 65536, &b) != SW_OK ||
		    sw_json_parse(
			sw_buf_str(&b), b.len, &o, why, sizeof(why)) != SW_OK) {
			fprintf(stderr, "slipway: %s: not valid JSON\n", path);
			sw_buf_free(&b);
			rc = -1;
			break;
		}
		sw_buf_free(&b);
		name = sw_json_get_str(o, "name");
		prog = sw_json_get_str(o, "program");
		loc = sw_json_get_str(o, "location");
		if (name == NULL || !plugin_name_ok(name) || prog == NULL ||
		    prog[0] != '/' || access(prog, X_OK) != 0 || loc == NULL ||
		    strncmp(loc, "/ext/", 5) != 0 || strlen(loc) > 100 ||
		    strspn(loc, "abcdefghijklmnopqrstuvwxyz0123456789-_/") !=
			strlen(loc)) {
			fprintf(stderr,
			    "slipway: %s: needs name [a-z0-9-], an "
			    "executable absolute program and a location "
			    "under /ext/\n",
			    path);
			json_object_put(o);
			rc = -1;
			break;
		}
		p = &plugins[nplugins];
		if (sw_fmt(p->name, sizeof(p->name), "%s", name) != SW_OK ||
		    sw_fmt(p->program, sizeof(p->program), "%s", prog) !=
			SW_OK ||
		    sw_fmt(p->location, sizeof(p->location), "%s", loc) !=
			SW_OK) {
			fprintf(stderr,
			    "slipway: %s: a name, program or "
			    "location too long\n",
			    path);
			json_object_put(o);
			rc = -1;
			break;
		}
		nplugins++;
		p->workers = (int)sw_json_get_int(o, "workers", 1);
		if (p->workers < 1 || p->workers > SW_MAX_PLUGIN_WORKERS)
			p->workers = 1;
		json_object_put(o);
		sw_buf_init(&conf, 4096);
		sw_buf_printf(&conf,
		    "# rendered by slipway from plugins.d/%s\n"
		    "location %s {\n"
		    "\tinclude /etc/nginx/fastcgi_params;\n"
		    "\tfastcgi_param HTTP_PROXY \"\";\n"
		    "\tfastcgi_param SW_HTTP_HOST $http_host;\n"
		    "\tfastcgi_pass unix:%s/run/ext-%s.sock;\n"
		    "}\n",
		    de->d_name, p->location, state_dir, p->name);
		if (sw_fmt(path, sizeof(path), "%s/ext.d/%s.conf", state_dir,
			p->name) != SW_OK ||
		    sw_write_file(path, conf.data, conf.len, 0600) != SW_OK)
			rc = -1;

		sw_buf_free(&conf);
	}
	closedir(d);
	*count = nplugins;
	return rc;
}
