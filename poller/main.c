/*
 * main.c: slipway-poller as a program of its own.  `slipway start`
 * calls sw_poller_main in a process it forks instead (poller/poller.h).
 */
#include "poller/poller.h"

int
main(int argc, char *argv[])
{
	return sw_poller_main(argc, argv);
}
