/*
 * client.h: the user CLI, `slipway <verb>`, over a server's REST API
 * (client.c, and logs.c for `slipway logs`): argv from the verb on; the
 * exit code.
 */
#ifndef SW_CLI_CLIENT_H
#define SW_CLI_CLIENT_H

#include <json-c/json.h>

int sw_cli_client(int argc, char **argv);

/* Send operation name with args (field -> text) and body (borrowed, or
 * NULL) as the context's person; the exit code, *doc the answer (a
 * problem printed on stderr). */
int sw_cli_call(const char *name, json_object *args, json_object *body,
    const char *context, json_object **doc);

/* The context's server and token (borrowed from *all, the caller puts
 * it); 0, or -1 with why on stderr. */
int sw_cli_target(const char *context, const char **server, const char **token,
    json_object **all);

/* slipway logs [-f] job|endpoint NAME --cluster C (logs.c). */
int sw_cli_logs(int argc, char **argv);

#endif
