/*
 * fuzz_mcp.c: the JSON-RPC / MCP envelope of slipway-mcp on arbitrary
 * bodies and MCP headers: one input is
 * "MCP-Protocol-Version\nMcp-Method\nMcp-Name\nbody", posted with a
 * valid admin token (a SQLite store in a temporary directory) so every
 * method, both eras and tools/call reach the in-process router, whose
 * handlers here only echo.  Invariant: a JSON answer is valid UTF-8
 * JSON text.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz/fuzzkit.h"
#include "lib/auth.h"
#include "lib/conf.h"
#include "lib/db.h"
#include "lib/json.h"
#include "mcp/mcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct sw_config cfg;
static struct sw_db *db;
static struct sw_mcp mcp;
static char bearer[SW_TOKEN_LEN + 8];

static void
setup(void)
{
	char dir[] = "/tmp/sw-fuzz-mcp-XXXXXX", path[64], tok[SW_TOKEN_LEN];

	if (mkdtemp(dir) == NULL)
		abort();
	snprintf(path, sizeof(path), "%s/state.db", dir);
	if (sw_db_open(path, &db) != SW_OK ||
	    sw_token_create(db, "fuzz", SW_SCOPE_ADMIN, tok) != SW_OK)
		abort();
	snprintf(bearer, sizeof(bearer), "Bearer %s", tok);
	memset(&cfg, 0, sizeof(cfg));
	cfg.root = sw_jo(
	    "allowed_origins", sw_ja(sw_js("http://127.0.0.1:3099")), NULL);
	memset(&mcp, 0, sizeof(mcp));
	mcp.cfg = &cfg;
	mcp.db = db;
	mcp.handlers = fz_handlers();
	mcp.now = 1700000000;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[1 << 17];
	struct sw_mcp_http in;
	struct sw_mcp_answer out;
	const char *f[4];
	size_t blen;

	if (db == NULL)
		setup();
	if (size > sizeof(buf) / 2)
		return 0;
	fz_split(data, size, buf, sizeof(buf), f, 4, &blen);
	memset(&in, 0, sizeof(in));
	in.method = "POST";
	in.authorization = bearer;
	in.host = "127.0.0.1:3099";
	in.content_type = "application/json";
	in.accept = "application/json, text/event-stream";
	in.protocol_version = f[0][0] ? f[0] : NULL;
	in.mcp_method = f[1][0] ? f[1] : NULL;
	in.mcp_name = f[2][0] ? f[2] : NULL;
	in.body = f[3];
	in.body_len = blen;
	sw_mcp_answer_init(&out);
	sw_mcp_handle(&mcp, &in, &out);
	if (out.content_type != NULL &&
	    strcmp(out.content_type, "application/json") == 0 &&
	    out.body.len > 0)
		fz_assert_json(
		    sw_buf_str(&out.body), out.body.len, "the MCP answer");
	sw_mcp_answer_free(&out);
	return 0;
}
