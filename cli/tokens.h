/*
 * tokens.h: the token subcommands of the slipway CLI.
 */
#ifndef SW_CLI_TOKENS_H
#define SW_CLI_TOKENS_H

/* What `slipway token` was given ("" or 0: not given). */
struct sw_cli_tok {
	const char *scope, *name;
	const char *tools; /* MCP tool classes it is limited to */
	const char *team, *role; /* a service account's */
	int ttl; /* seconds until it expires */
	int json; /* list as JSON */
};

/*
 * `slipway token SUB` on state_dir/state.db: create (scope and name, or
 * a service account's team, role and name, the scope its role's;
 * tools, ttl; prints the token only), list (json: as JSON) or revoke
 * (name).  The exit status: 0 done, 1 refused or failed (a message on
 * stderr), 2 an unknown subcommand.
 */
int sw_cli_token(
    const char *state_dir, const char *sub, const struct sw_cli_tok *o);

#endif
