/*
 * router.h: the REST pipeline every request goes through, in order:
 * route (operation table) -> authenticate -> authorize (scope, Origin)
 * -> read and parse the body -> validate path, query and body against
 * the row's field tables -> call the handler.  A failure at any step
 * ends the request with the matching problem document; handlers only
 * ever see validated input in req->args.
 */
#ifndef SW_ROUTER_H
#define SW_ROUTER_H

#include "lib/req.h"

/* Run the pipeline; the answer is left in r for sw_req_render(). */
void	sw_route(struct sw_req *r);

/* Percent-decode src[0..len) into dst (NUL-terminated); -1 if bad. */
int	sw_url_decode(const char *src, size_t len, char *dst, size_t dstsz);

#endif
