/*
 * mcp_rest.c: how slipway-mcp reaches a plugin tool's /ext/NAME FastCGI
 * program (tools.d): libcurl to nginx's internal URL (loopback only,
 * fixed by the configuration, never by a request), plain HTTP, no
 * proxies, no redirects, bounded time and size.  The caller's
 * Authorization header is forwarded as is, so the plugin can check it.
 * Tools of the operation table never come here: they run the router in
 * process (mcp/mcp_tools.c).
 */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>

#include "lib/buf.h"
#include "config.h"
#include "mcp/mcp.h"

static size_t
on_body(char *data, size_t size, size_t n, void *arg)
{
	struct sw_buf *b = arg;

	if (sw_buf_add(b, data, size * n) != SW_OK)
		return 0; /* over the cap: abort the transfer */
	return size * n;
}

/* Header values are copied into curl's list: refuse CR/LF smuggling. */
static int
header_safe(const char *v)
{
	for (; *v != '\0'; v++)
		if ((unsigned char)*v < 0x20 && *v != '\t')
			return 0;
	return 1;
}

sw_err
sw_mcp_rest_curl(void *arg, const char *method, const char *target,
    const char *authorization, const char *body, long *status,
    struct sw_buf *resp)
{
	struct sw_mcp *m = arg;
	struct curl_slist *h = NULL;
	char url[SW_MAX_PATH + SW_MAX_QUERY + 160], line[4200];
	CURLcode rc;
	CURL *c;
	sw_err e = SW_OK;

	*status = 0;
	if (m->curl == NULL) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		if ((m->curl = curl_easy_init()) == NULL)
			return SW_ENOMEM;
	}
	c = m->curl;
	curl_easy_reset(c);
	if (sw_fmt(url, sizeof(url), "%s%s", m->base_url, target) != SW_OK)
		return SW_EINVAL;
	if (authorization != NULL) {
		if (!header_safe(authorization) ||
		    sw_fmt(line, sizeof(line), "Authorization: %s",
			authorization) != SW_OK)
			return SW_EINVAL;
		h = curl_slist_append(h, line);
	}
	h = curl_slist_append(h,
	    "Accept: application/json, "
	    "application/problem+json");
	h = curl_slist_append(h, "Expect:");
	if (body != NULL) {
		h = curl_slist_append(h, "Content-Type: application/json");
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(
		    c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
	} else if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, "");
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)0);
	}
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "slipway-mcp/" PACKAGE_VERSION);
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http");
#else
	curl_easy_setopt(c, CURLOPT_PROTOCOLS, (long)CURLPROTO_HTTP);
#endif
	curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(
	    c, CURLOPT_CONNECTTIMEOUT, (long)SW_HTTP_CONNECT_TIMEOUT);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, (long)SW_MCP_REST_TIMEOUT);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, resp);
	rc = curl_easy_perform(c);
	if (rc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	else if (rc == CURLE_OPERATION_TIMEDOUT)
		e = SW_ETIMEOUT;
	else if (rc == CURLE_WRITE_ERROR)
		e = SW_ETOOBIG;
	else if (rc == CURLE_COULDNT_CONNECT)
		e = SW_EUNAVAIL;
	else
		e = SW_EUPSTREAM;
	curl_slist_free_all(h);
	return e;
}

void
sw_mcp_rest_cleanup(struct sw_mcp *m)
{
	if (m->curl != NULL) {
		curl_easy_cleanup(m->curl);
		m->curl = NULL;
		curl_global_cleanup();
	}
}
