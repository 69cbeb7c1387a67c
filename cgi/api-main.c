/*
 * api-main.c: slipway-api as a program of its own.  `slipway start`
 * calls sw_api_main in a process it forks instead (cgi/cgi.h).
 */
#include "cgi/cgi.h"

int
main(int argc, char *argv[])
{
	return sw_api_main(argc, argv);
}
