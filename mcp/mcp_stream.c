/*
 * mcp_stream.c: answers written as Server-Sent Events (see mcp.h).
 *
 * A POST whose work sends notifications (progress, log messages) first,
 * and the legacy GET stream, are answered text/event-stream: the CGI
 * headers, then one "event: message" per JSON-RPC message, each flushed
 * through the answer's stream function as it is made.  nginx is told
 * not to buffer (X-Accel-Buffering: no), so each event reaches the
 * client when it is written.
 */
#include <string.h>

#include "lib/json.h"
#include "mcp/mcp.h"

int
sw_mcp_sse_begin(struct sw_mcp_answer *a)
{
	struct sw_buf h;
	sw_err e;

	if (a->stream == NULL || a->stream_broken)
		return -1;
	if (a->streamed)
		return 0;
	sw_buf_init(&h, 16384);
	e = sw_buf_printf(&h,
	    "Status: 200\r\n"
	    "Cache-Control: no-store\r\n"
	    "X-Accel-Buffering: no\r\n"
	    "Content-Type: text/event-stream\r\n"
	    "%s\r\n",
	    sw_buf_str(&a->headers));
	if (e == SW_OK)
		e = a->stream(a->stream_arg, h.data, h.len);
	sw_buf_free(&h);
	if (e != SW_OK) {
		a->stream_broken = 1;
		return -1;
	}
	a->streamed = 1;
	a->status = 200;
	return 0;
}

sw_err
sw_mcp_sse_send(struct sw_mcp_answer *a, json_object *msg, const char *id)
{
	struct sw_buf ev;
	sw_err e;

	if (!a->streamed || a->stream_broken)
		return SW_EUNAVAIL;
	sw_buf_init(&ev, SW_MCP_MAX_ANSWER);
	if (msg == NULL)
		e = sw_buf_puts(&ev, ": keep-alive\n\n");
	else
		/* json-c writes no raw newline: one data line. */
		e = sw_buf_printf(&ev, "%s%s%sevent: message\ndata: %s\n\n",
		    id ? "id: " : "", id ? id : "", id ? "\n" : "",
		    sw_json_str(msg));
	if (e == SW_OK)
		e = a->stream(a->stream_arg, ev.data, ev.len);
	sw_buf_free(&ev);
	if (e != SW_OK)
		a->stream_broken = 1;
	return e;
}
