/*
 * main.c: slipway-stream as a program of its own.  `slipway start`
 * calls sw_stream_main in a process it forks instead (stream/stream.h).
 */
#include "stream/stream.h"

int
main(int argc, char *argv[])
{
	return sw_stream_main(argc, argv);
}
