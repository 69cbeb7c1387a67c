/*
 * stream.h: slipway-stream's entry, its program's main (stream/main.c)
 * and what the launcher (cli/slipway.c) calls in the process it forks.
 */
#ifndef SW_STREAM_H
#define SW_STREAM_H

int sw_stream_main(int argc, char *argv[]);

#endif
