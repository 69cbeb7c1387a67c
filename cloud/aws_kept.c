/*
 * aws_kept.c: reads whose answers are kept in the database for every
 * worker, poller and replica (aws_call_kept in aws_api.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cloud/aws_api.h"
#include "lib/json.h"
#include "lib/ops.h"

sw_err
aws_call_kept(struct aws_ctx *aws, struct sw_db *db, enum aws_service svc,
    const char *op, json_object *in, json_object **out, struct aws_error *err,
    const struct aws_keep *keep)
{
	const char *account = keep->home != NULL ? keep->home : "self";
	struct sw_buf key;
	char *text = NULL, why[160];
	sw_err e;

	/* One account has one key, before its context learns its number
	 * and after; a member account's context has its own from the
	 * start. */
	if (aws->account[0] != '\0')
		account = aws->account;

	*out = NULL;
	sw_buf_init(&key, 0);
	if (sw_buf_printf(&key, "%s/%s/%s/%s ", account, aws->region,
		aws_service(svc)->id, op) != SW_OK ||
	    sw_buf_puts(&key, in ? sw_json_str(in) : "{}") != SW_OK)
		key.len = 0; /* read, and keep nothing */
	if (key.len > 0 && !keep->fresh &&
	    sw_fact_get(db, sw_buf_str(&key), &text) == SW_OK && text != NULL &&
	    sw_json_parse(text, strlen(text), out, why, sizeof(why)) == SW_OK) {
		free(text);
		sw_buf_free(&key);
		return SW_OK;
	}
	free(text);
	e = aws_call(aws, svc, op, in, out, err);
	if (e == SW_OK && key.len > 0)
		(void)sw_fact_put(
		    db, sw_buf_str(&key), sw_json_str(*out), keep->ms);
	sw_buf_free(&key);
	return e;
}
