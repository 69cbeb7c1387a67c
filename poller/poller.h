/*
 * poller.h: slipway-poller's entry, its program's main (poller/main.c)
 * and what the launcher (cli/slipway.c) calls in the process it forks.
 */
#ifndef SW_POLLER_H
#define SW_POLLER_H

int sw_poller_main(int argc, char *argv[]);

#endif
