/*
 * awstest.c: see awstest.h.  The fake server handles one connection at
 * a time on its own thread and closes it after each reply, which is
 * all the unit tests need and keeps the code short.
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "t/unit/awstest.h"

struct fake_server {
	int fd;
	int port;
	volatile int stop;
	int count;
	pthread_t thread;
	fake_handler fn;
	void *arg;
	SSL_CTX *ssl;
};

const char *
awstest_shared(void)
{
	static char path[4096];
	struct stat st;
	const char *src = getenv("SW_SRCDIR");
	char here[2048], *slash;

	if (src != NULL && *src != '\0') {
		snprintf(path, sizeof(path), "%s/../shared", src);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return path;
	}
#ifdef SW_SRCDIR
	snprintf(path, sizeof(path), "%s/../shared", SW_SRCDIR);
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return path;
#endif
	/* This file is t/unit/awstest.c: shared is three levels up. */
	snprintf(here, sizeof(here), "%s", __FILE__);
	if ((slash = strrchr(here, '/')) != NULL) {
		*slash = '\0';
		snprintf(path, sizeof(path), "%s/../../../shared", here);
		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return path;
	}
	return NULL;
}

char *
awstest_slurp(const char *path, size_t *lenp)
{
	FILE *f;
	char *buf = NULL, *nb;
	size_t len = 0, cap = 0, n;

	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	for (;;) {
		if (cap - len < 4096) {
			cap = cap ? cap * 2 : 8192;
			if ((nb = realloc(buf, cap + 1)) == NULL) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	fclose(f);
	buf[len] = '\0';
	if (lenp != NULL)
		*lenp = len;
	return buf;
}

static int
fake_io_read(SSL *ssl, int fd, char *p, size_t n)
{
	if (ssl != NULL)
		return SSL_read(ssl, p, (int)n);
	return (int)read(fd, p, n);
}

static int
fake_io_write(SSL *ssl, int fd, const char *p, size_t n)
{
	size_t off = 0;
	int w;

	while (off < n) {
		if (ssl != NULL)
			w = SSL_write(ssl, p + off, (int)(n - off));
		else
			w = (int)write(fd, p + off, n - off);
		if (w <= 0)
			return -1;
		off += (size_t)w;
	}
	return 0;
}

int
fake_header(const struct fake_req *r, const char *name, char *out, size_t outsz)
{
	const char *p = r->headers;
	size_t nlen = strlen(name), vlen;

	while (p != NULL && *p != '\0') {
		if (strncasecmp(p, name, nlen) == 0 && p[nlen] == ':') {
			p += nlen + 1;
			while (*p == ' ')
				p++;
			vlen = strcspn(p, "\r\n");
			if (vlen >= outsz)
				vlen = outsz - 1;
			memcpy(out, p, vlen);
			out[vlen] = '\0';
			return 1;
		}
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	}
	return 0;
}

static void
fake_serve(struct fake_server *s, int cfd)
{
	struct fake_req req;
	struct fake_reply rep;
	SSL *ssl = NULL;
	char *buf = NULL, *end, *nb, hdr[4096], cl[32];
	size_t len = 0, cap = 65536, need, hlen, i, off, piece;
	int n;

	memset(&req, 0, sizeof(req));
	memset(&rep, 0, sizeof(rep));
	if (s->ssl != NULL) {
		if ((ssl = SSL_new(s->ssl)) == NULL)
			goto out;
		SSL_set_fd(ssl, cfd);
		if (SSL_accept(ssl) != 1)
			goto out;
	}
	if ((buf = malloc(cap + 1)) == NULL)
		goto out;
	for (;;) {
		buf[len] = '\0';
		if ((end = strstr(buf, "\r\n\r\n")) != NULL)
			break;
		if (len == cap)
			goto out;
		if ((n = fake_io_read(ssl, cfd, buf + len, cap - len)) <= 0)
			goto out;
		len += (size_t)n;
	}
	hlen = (size_t)(end - buf) + 4;
	if (sscanf(buf, "%15s %4095s", req.method, req.target) != 2)
		goto out;
	if ((req.headers = strndup(buf, hlen)) == NULL)
		goto out;
	need = 0;
	if (fake_header(&req, "Content-Length", cl, sizeof(cl)))
		need = strtoul(cl, NULL, 10);
	while (len < hlen + need) {
		if (len == cap) {
			cap *= 2;
			if ((nb = realloc(buf, cap + 1)) == NULL)
				goto out;
			buf = nb;
		}
		if ((n = fake_io_read(ssl, cfd, buf + len, cap - len)) <= 0)
			goto out;
		len += (size_t)n;
	}
	if ((req.body = malloc(need + 1)) == NULL)
		goto out;
	memcpy(req.body, buf + hlen, need);
	req.body[need] = '\0';
	req.body_len = need;

	rep.status = 200;
	s->fn(s->arg, &req, &rep);
	s->count++;
	if (rep.body == NULL)
		rep.body = "";
	if (rep.chunks > 1)
		snprintf(hdr, sizeof(hdr),
		    "HTTP/1.1 %d X\r\n%s"
		    "Connection: close\r\n\r\n",
		    rep.status, rep.headers);
	else
		snprintf(hdr, sizeof(hdr),
		    "HTTP/1.1 %d X\r\n%s"
		    "Content-Length: %zu\r\nConnection: close\r\n\r\n",
		    rep.status, rep.headers, rep.body_len);
	if (fake_io_write(ssl, cfd, hdr, strlen(hdr)) == -1)
		goto out;
	if (strcmp(req.method, "HEAD") == 0)
		goto out;
	if (rep.chunks <= 1) {
		fake_io_write(ssl, cfd, rep.body, rep.body_len);
		goto out;
	}
	piece = rep.body_len / (size_t)rep.chunks + 1;
	for (off = 0, i = 0; off < rep.body_len; i++) {
		/* Far enough apart that a loaded machine still reads
		 * them as separate pieces. */
		struct timespec ts = { 0, 100 * 1000 * 1000 };

		n = (int)(rep.body_len - off < piece ? rep.body_len - off
						     : piece);
		if (fake_io_write(ssl, cfd, rep.body + off, (size_t)n) == -1)
			break;
		off += (size_t)n;
		nanosleep(&ts, NULL);
	}
out:
	if (ssl != NULL) {
		SSL_shutdown(ssl);
		SSL_free(ssl);
	}
	free(buf);
	free(req.headers);
	free(req.body);
}

static void *
fake_loop(void *arg)
{
	struct fake_server *s = arg;
	struct pollfd pfd;
	int cfd;

	while (!s->stop) {
		pfd.fd = s->fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 50) <= 0)
			continue;
		if ((cfd = accept(s->fd, NULL, NULL)) == -1)
			continue;
		fake_serve(s, cfd);
		close(cfd);
	}
	return NULL;
}

struct fake_server *
fake_start(
    fake_handler fn, void *arg, const char *cert_pem, const char *key_pem)
{
	struct fake_server *s;
	struct sockaddr_in sin;
	socklen_t slen = sizeof(sin);
	BIO *bio;
	X509 *x = NULL;
	EVP_PKEY *pk = NULL;
	int one = 1;

	/* A client that hangs up early must not kill the test. */
	signal(SIGPIPE, SIG_IGN);
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	s->fn = fn;
	s->arg = arg;
	if (cert_pem != NULL) {
		if ((s->ssl = SSL_CTX_new(TLS_server_method())) == NULL)
			goto fail;
		bio = BIO_new_mem_buf(cert_pem, -1);
		x = PEM_read_bio_X509(bio, NULL, NULL, NULL);
		BIO_free(bio);
		bio = BIO_new_mem_buf(key_pem, -1);
		pk = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
		BIO_free(bio);
		if (x == NULL || pk == NULL ||
		    SSL_CTX_use_certificate(s->ssl, x) != 1 ||
		    SSL_CTX_use_PrivateKey(s->ssl, pk) != 1)
			goto fail;
		X509_free(x);
		EVP_PKEY_free(pk);
		x = NULL;
		pk = NULL;
	}
	if ((s->fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		goto fail;
	setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s->fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(s->fd, 16) == -1 ||
	    getsockname(s->fd, (struct sockaddr *)&sin, &slen) == -1)
		goto fail;
	s->port = ntohs(sin.sin_port);
	if (pthread_create(&s->thread, NULL, fake_loop, s) != 0)
		goto fail;
	return s;
fail:
	X509_free(x);
	EVP_PKEY_free(pk);
	if (s->ssl != NULL)
		SSL_CTX_free(s->ssl);
	if (s->fd > 0)
		close(s->fd);
	free(s);
	return NULL;
}

int
fake_port(const struct fake_server *s)
{
	return s->port;
}

int
fake_count(const struct fake_server *s)
{
	return s->count;
}

void
fake_stop(struct fake_server *s)
{
	if (s == NULL)
		return;
	s->stop = 1;
	pthread_join(s->thread, NULL);
	close(s->fd);
	if (s->ssl != NULL)
		SSL_CTX_free(s->ssl);
	free(s);
}

static char *
awstest_bio_str(BIO *bio)
{
	char *p, *out;
	long n;

	n = BIO_get_mem_data(bio, &p);
	if (n <= 0 || (out = malloc((size_t)n + 1)) == NULL)
		return NULL;
	memcpy(out, p, (size_t)n);
	out[n] = '\0';
	return out;
}

int
awstest_selfsigned(char **cert_pem, char **key_pem)
{
	EVP_PKEY *pk = NULL;
	X509 *x = NULL;
	X509_NAME *name;
	X509_EXTENSION *ext;
	X509V3_CTX v3;
	BIO *cb = NULL, *kb = NULL;
	int rc = -1;

	*cert_pem = *key_pem = NULL;
	if ((pk = EVP_EC_gen("P-256")) == NULL || (x = X509_new()) == NULL)
		goto out;
	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
	X509_gmtime_adj(X509_getm_notBefore(x), -3600);
	X509_gmtime_adj(X509_getm_notAfter(x), 86400);
	X509_set_pubkey(x, pk);
	name = X509_get_subject_name(x);
	X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
	    (const unsigned char *)"127.0.0.1", -1, -1, 0);
	X509_set_issuer_name(x, name);
	X509V3_set_ctx(&v3, x, x, NULL, NULL, 0);
	if ((ext = X509V3_EXT_conf_nid(NULL, &v3, NID_subject_alt_name,
		 "IP:127.0.0.1,DNS:localhost")) == NULL)
		goto out;
	X509_add_ext(x, ext, -1);
	X509_EXTENSION_free(ext);
	if ((ext = X509V3_EXT_conf_nid(
		 NULL, &v3, NID_basic_constraints, "critical,CA:TRUE")) == NULL)
		goto out;
	X509_add_ext(x, ext, -1);
	X509_EXTENSION_free(ext);
	if (X509_sign(x, pk, EVP_sha256()) == 0)
		goto out;
	cb = BIO_new(BIO_s_mem());
	kb = BIO_new(BIO_s_mem());
	if (cb == NULL || kb == NULL || PEM_write_bio_X509(cb, x) != 1 ||
	    PEM_write_bio_PrivateKey(kb, pk, NULL, NULL, 0, NULL, NULL) != 1)
		goto out;
	*cert_pem = awstest_bio_str(cb);
	*key_pem = awstest_bio_str(kb);
	if (*cert_pem != NULL && *key_pem != NULL)
		rc = 0;
out:
	BIO_free(cb);
	BIO_free(kb);
	X509_free(x);
	EVP_PKEY_free(pk);
	return rc;
}
