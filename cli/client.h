/*
 * client.h: the user CLI, `slipway <verb>`, over a server's REST API
 * (client.c): argv from the verb on; the exit code.
 */
#ifndef SW_CLI_CLIENT_H
#define SW_CLI_CLIENT_H

int	sw_cli_client(int argc, char **argv);

#endif
