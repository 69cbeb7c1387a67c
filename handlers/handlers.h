/*
 * handlers.h: every REST handler, one file per resource family.  A
 * handler gets a request whose route, credentials and input are already
 * checked (lib/router.c) and reads its validated input from r->args.
 * It answers with sw_req_reply() or fails with sw_req_fail().
 */
#ifndef SW_HANDLERS_H
#define SW_HANDLERS_H

#include "lib/req.h"

/* handlers/system.c */
sw_err	h_health(struct sw_req *);
sw_err	h_version(struct sw_req *);
sw_err	h_openapi(struct sw_req *);
sw_err	h_login(struct sw_req *);
sw_err	h_logout(struct sw_req *);
sw_err	h_whoami(struct sw_req *);
sw_err	h_token_list(struct sw_req *);
sw_err	h_token_create(struct sw_req *);
sw_err	h_token_revoke(struct sw_req *);

/* handlers/operations.c */
sw_err	h_op_list(struct sw_req *);
sw_err	h_op_get(struct sw_req *);
sw_err	h_op_wait(struct sw_req *);
sw_err	h_op_retry(struct sw_req *);
sw_err	h_op_cancel(struct sw_req *);

/*
 * Common answer of every operation-starting handler: 202 with the
 * operation id, the status tool to poll and the poll interval.
 */
sw_err	h_accepted(struct sw_req *, const char *op_id, int existed);

#endif
