/*
 * awstest.h: helpers shared by the AWS client unit tests: finding the
 * read-only ../shared test data, reading files, and a tiny threaded
 * HTTP/1.1 server on 127.0.0.1 that answers from a callback and
 * records what it was sent, standing in for AWS, IMDS, container
 * credential and Kubernetes endpoints.
 */
#ifndef SW_AWSTEST_H
#define SW_AWSTEST_H

#include <stddef.h>

/* Path of ../shared next to the source tree, or NULL when absent. */
const char *awstest_shared(void);
/* Whole file, NUL-terminated, newly allocated; NULL when unreadable. */
char *awstest_slurp(const char *path, size_t *len);

/* One request as the fake server saw it (all strings owned). */
struct fake_req {
	char method[16];
	char target[4096]; /* path and query */
	char *headers; /* raw header block */
	char *body;
	size_t body_len;
};

/* What the handler answers.  body is borrowed until the reply is sent.
 * chunks > 1 splits the body into that many writes with a short pause
 * between them and no Content-Length (for streaming tests). */
struct fake_reply {
	int status;
	char headers[2048]; /* extra "Name: value\r\n" lines */
	const char *body;
	size_t body_len;
	int chunks;
};

typedef void (*fake_handler)(
    void *arg, const struct fake_req *, struct fake_reply *);

struct fake_server;

/* Start a server on an ephemeral loopback port; NULL on failure.
 * With cert_pem/key_pem set it speaks TLS. */
struct fake_server *fake_start(
    fake_handler, void *arg, const char *cert_pem, const char *key_pem);
int fake_port(const struct fake_server *);
/* Requests served so far. */
int fake_count(const struct fake_server *);
/* Header value from a recorded request (case-insensitive), into out. */
int fake_header(
    const struct fake_req *, const char *name, char *out, size_t outsz);
void fake_stop(struct fake_server *);

/* Make a self-signed P-256 certificate for 127.0.0.1/localhost; both
 * strings are newly allocated PEM.  0 on success. */
int awstest_selfsigned(char **cert_pem, char **key_pem);

#endif
