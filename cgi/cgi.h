/*
 * cgi.h: the FastCGI workers' entries.  Each is its program's main
 * (cgi/api-main.c, cgi/mcp-main.c); the launcher (cli/slipway.c) also
 * calls them in the processes it forks, so every worker shares the
 * launcher's loaded libraries.  argv[0] is the program's name.
 */
#ifndef SW_CGI_H
#define SW_CGI_H

/* slipway-api [--wait]: the REST worker (cgi/api.c). */
int sw_api_main(int argc, char *argv[]);

/* slipway-mcp [--wait-slots N | --wait-pool]: the MCP worker (cgi/mcp.c). */
int sw_mcp_main(int argc, char *argv[]);

#endif
