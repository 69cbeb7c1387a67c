/*
 * test-http.c: the libcurl wrapper.  The plain-http policy, bodies and
 * headers both ways, the response size cap, timeouts, refused
 * connections, streaming with early stop, error bodies kept in stream
 * mode, and TLS with a CA pinned from memory.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cloud/http.h"
#include "t/tap.h"
#include "t/unit/awstest.h"

static char big[5000];
static char seen_ctype[128], seen_body[256], seen_method[16];

static void
handler(void *arg, const struct fake_req *req, struct fake_reply *rep)
{
	struct timespec ts = { 0, 600 * 1000 * 1000 };

	(void)arg;
	snprintf(seen_method, sizeof(seen_method), "%s", req->method);
	snprintf(seen_body, sizeof(seen_body), "%s", req->body);
	seen_ctype[0] = '\0';
	fake_header(req, "Content-Type", seen_ctype, sizeof(seen_ctype));
	if (strcmp(req->target, "/big") == 0) {
		rep->body = big;
		rep->body_len = sizeof(big);
	} else if (strcmp(req->target, "/slow") == 0) {
		nanosleep(&ts, NULL);
		rep->body = "late";
		rep->body_len = 4;
	} else if (strcmp(req->target, "/stream") == 0) {
		rep->body = "aaaa\nbbbb\ncccc\ndddd\n";
		rep->body_len = strlen(rep->body);
		rep->chunks = 4;
	} else if (strcmp(req->target, "/fail") == 0) {
		rep->status = 500;
		rep->body = "{\"message\":\"boom\"}";
		rep->body_len = strlen(rep->body);
	} else {
		snprintf(rep->headers, sizeof(rep->headers),
		    "X-Test: yes\r\nx-amzn-RequestId: abc\r\n");
		rep->body = "hello";
		rep->body_len = 5;
	}
}

struct sink {
	size_t bytes;
	int calls;
	int stop;
};

static int
on_chunk(void *arg, const char *data, size_t len)
{
	struct sink *s = arg;

	(void)data;
	s->bytes += len;
	s->calls++;
	return s->stop && s->calls >= 1;
}

static void
test_policy(void)
{
	ok(http_url_allowed("https://eks.us-west-2.amazonaws.com/x", 0),
	    "https anywhere");
	ok(!http_url_allowed("http://eks.us-west-2.amazonaws.com/", 0xff),
	    "plain http to a public host never");
	ok(!http_url_allowed("http://127.0.0.1:8080/", 0),
	    "loopback http needs the flag");
	ok(http_url_allowed("http://127.0.0.1:8080/", HTTP_ALLOW_LOOPBACK),
	    "loopback http with the flag");
	ok(http_url_allowed("http://localhost/", HTTP_ALLOW_LOOPBACK),
	    "localhost with the flag");
	ok(!http_url_allowed("http://127.0.0.1.evil.com/", HTTP_ALLOW_LOOPBACK),
	    "look-alike host refused");
	ok(!http_url_allowed("http://127.0.0.1@evil.com/", HTTP_ALLOW_LOOPBACK),
	    "user-info trick refused");
	ok(!http_url_allowed("http://169.254.169.254/", HTTP_ALLOW_LOOPBACK),
	    "IMDS needs the metadata flag");
	ok(http_url_allowed(
	       "http://169.254.170.23/v1/credentials", HTTP_ALLOW_METADATA),
	    "EKS pod identity agent with the flag");
	ok(http_url_allowed(
	       "http://[fd00:ec2::23]/v1/credentials", HTTP_ALLOW_METADATA),
	    "IPv6 pod identity agent");
	ok(!http_url_allowed("ftp://127.0.0.1/", 0xff), "other schemes never");
	ok(!http_url_allowed("file:///etc/passwd", 0xff), "file: never");
}

int
main(void)
{
	struct fake_server *srv, *tls;
	struct http_client c;
	struct http_request req;
	struct http_response resp;
	struct sink s;
	char base[64], tbase[64], *cert, *key;
	int port, before;
	sw_err rc;

	test_policy();
	memset(big, 'x', sizeof(big));
	if ((srv = fake_start(handler, NULL, NULL, NULL)) == NULL)
		skip_all("cannot start a test server");
	port = fake_port(srv);
	snprintf(base, sizeof(base), "http://127.0.0.1:%d", port);

	http_client_init(&c, 0);
	http_response_init(&resp, 1 << 20);
	http_request_init(&req, "GET", base, "/hello", "a=1");
	rc = http_perform(&c, &req, &resp);
	is_int(rc, SW_EFORBIDDEN, "loopback refused without the flag");
	is_int(fake_count(srv), 0, "nothing was sent");
	c.flags = HTTP_ALLOW_LOOPBACK;
	rc = http_perform(&c, &req, &resp);
	is_int(rc, SW_OK, "loopback allowed with the flag");
	is_int(resp.status, 200, "status");
	is_str(sw_buf_str(&resp.body), "hello", "body");
	is_str(http_headers_get(&resp.headers, "x-test"), "yes",
	    "response header, any case");
	is_str(http_headers_get(&resp.headers, "X-Amzn-RequestId"), "abc",
	    "request id header");

	/* A request past its send-by time is not sent. */
	before = fake_count(srv);
	c.send_by_ms = 1;
	rc = http_perform(&c, &req, &resp);
	ok(rc == SW_ECONFLICT && strstr(c.errmsg, "send-by") != NULL,
	    "past its send-by time: refused (%s)", c.errmsg);
	is_int(fake_count(srv), before, "and nothing was sent");
	c.send_by_ms = INT64_MAX;
	is_int(http_perform(&c, &req, &resp), SW_OK,
	    "before its send-by time: sent");
	c.send_by_ms = 0;
	http_request_free(&req);

	http_request_init(&req, "POST", base, "/post", NULL);
	http_request_set_body(&req, "k=v", 3);
	rc = http_perform(&c, &req, &resp);
	ok(rc == SW_OK && strcmp(seen_body, "k=v") == 0 &&
		strcmp(seen_method, "POST") == 0,
	    "POST body arrives");
	is_str(seen_ctype, "", "no invented Content-Type");
	http_headers_set(&req.headers, "Content-Type", "application/json");
	http_request_free(&req);
	http_request_init(&req, "PUT", base, "/put", NULL);
	http_headers_set(&req.headers, "Content-Type", "text/plain");
	rc = http_perform(&c, &req, &resp);
	ok(rc == SW_OK && strcmp(seen_method, "PUT") == 0 &&
		strcmp(seen_ctype, "text/plain") == 0,
	    "PUT with no body");
	http_request_free(&req);

	/* The cap. */
	c.max_body = 1000;
	http_response_free(&resp);
	http_response_init(&resp, 1000);
	http_request_init(&req, "GET", base, "/big", NULL);
	rc = http_perform(&c, &req, &resp);
	is_int(rc, SW_ETOOBIG, "body over the cap");
	http_request_free(&req);
	http_response_free(&resp);
	http_response_init(&resp, 1 << 20);

	/* Timeout. */
	c.timeout_ms = 200;
	http_request_init(&req, "GET", base, "/slow", NULL);
	rc = http_perform(&c, &req, &resp);
	is_int(rc, SW_ETIMEOUT, "slow server times out");
	http_request_free(&req);
	c.timeout_ms = 5000;

	/* Streaming. */
	memset(&s, 0, sizeof(s));
	http_request_init(&req, "GET", base, "/stream", NULL);
	rc = http_perform_stream(&c, &req, &resp, on_chunk, &s);
	ok(rc == SW_OK && s.bytes == 20 && s.calls >= 2,
	    "stream: 20 bytes in %d chunks", s.calls);
	memset(&s, 0, sizeof(s));
	s.stop = 1;
	rc = http_perform_stream(&c, &req, &resp, on_chunk, &s);
	ok(rc == SW_OK && s.calls == 1, "stream: callback stops it");
	http_request_free(&req);
	memset(&s, 0, sizeof(s));
	http_request_init(&req, "GET", base, "/fail", NULL);
	rc = http_perform_stream(&c, &req, &resp, on_chunk, &s);
	ok(rc == SW_OK && resp.status == 500 && s.calls == 0 &&
		strstr(sw_buf_str(&resp.body), "boom") != NULL,
	    "stream: error body kept, not streamed");
	http_request_free(&req);

	fake_stop(srv);
	http_request_init(&req, "GET", base, "/hello", NULL);
	rc = http_perform(&c, &req, &resp);
	is_int(rc, SW_EUNAVAIL, "connection refused -> SW_EUNAVAIL");
	http_request_free(&req);

	/* TLS with a pinned CA. */
	if (awstest_selfsigned(&cert, &key) == 0 &&
	    (tls = fake_start(handler, NULL, cert, key)) != NULL) {
		snprintf(tbase, sizeof(tbase), "https://127.0.0.1:%d",
		    fake_port(tls));
		http_request_init(&req, "GET", tbase, "/hello", NULL);
		rc = http_perform(&c, &req, &resp);
		is_int(rc, SW_EUNAVAIL, "TLS: untrusted without the pin");
		http_client_set_ca(&c, cert, strlen(cert));
		rc = http_perform(&c, &req, &resp);
		ok(rc == SW_OK && resp.status == 200 &&
			strcmp(sw_buf_str(&resp.body), "hello") == 0,
		    "TLS: trusted with the pinned CA");
		http_request_free(&req);
		fake_stop(tls);
		free(cert);
		free(key);
	} else
		skip(2, "no TLS server");
	http_response_free(&resp);
	http_client_free(&c);
	return tap_done();
}
