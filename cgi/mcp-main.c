/*
 * mcp-main.c: slipway-mcp as a program of its own.  `slipway start`
 * calls sw_mcp_main in a process it forks instead (cgi/cgi.h).
 */
#include "cgi/cgi.h"

int
main(int argc, char *argv[])
{
	return sw_mcp_main(argc, argv);
}
