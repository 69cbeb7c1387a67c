/*
 * tokens.h: the token subcommands of the slipway CLI.
 */
#ifndef SW_CLI_TOKENS_H
#define SW_CLI_TOKENS_H

/*
 * `slipway token SUB` on state_dir/state.db: create (scope_name, name,
 * and tools: the MCP tool classes it is limited to, "" for none;
 * prints the token only), list (json: as JSON) or revoke (name).  The
 * exit status: 0 done, 1 refused or failed (a message on stderr), 2 an
 * unknown subcommand.
 */
int	sw_cli_token(const char *state_dir, const char *sub,
	    const char *scope_name, const char *name, const char *tools,
	    int json);

#endif
