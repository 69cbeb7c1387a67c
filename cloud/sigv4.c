/*
 * sigv4.c: AWS Signature Version 4 with OpenSSL (see sigv4.h).
 *
 * The signer builds the canonical request (method, canonical URI,
 * sorted canonical query, sorted and trimmed headers, signed header
 * list, payload hash), hashes it into the string to sign, derives the
 * signing key from the secret, date, region and service, and writes the
 * HMAC either into Authorization or into X-Amz-Signature.  The rules
 * follow the AWS test suites in testdata/sigv4 (see its README).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include "lib/buf.h"
#include "lib/alloc.h"
#include "lib/limits.h"
#include "lib/url.h"
#include "cloud/sigv4.h"

#define SIGV4_ALGO "AWS4-HMAC-SHA256"

/* Headers a signer leaves alone: proxies and clients may change them. */
static const char *const sigv4_skip_headers[] = { "authorization", "user-agent",
	"x-amzn-trace-id", "expect", "transfer-encoding", "connection",
	"amz-sdk-invocation-id", "amz-sdk-request", NULL };

struct sigv4_pair {
	char *key; /* canonical (encoded or lower-cased) */
	char *value;
	size_t order; /* input position, for a stable sort */
};

struct sigv4_pairs {
	struct sigv4_pair *v;
	size_t n;
	size_t cap;
};

static void
sigv4_pairs_free(struct sigv4_pairs *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		free(p->v[i].key);
		free(p->v[i].value);
	}
	free(p->v);
	memset(p, 0, sizeof(*p));
}

/* Add a pair; key and value are taken over (freed here on failure). */
static sw_err
sigv4_pairs_take(struct sigv4_pairs *p, char *key, char *value)
{
	struct sigv4_pair *nv;
	size_t ncap;

	if (key == NULL || value == NULL)
		goto fail;
	if (p->n == p->cap) {
		ncap = p->cap ? p->cap * 2 : 16;
		if ((nv = sw_realloc(p->v, ncap * sizeof(*nv))) == NULL)
			goto fail;
		p->v = nv;
		p->cap = ncap;
	}
	p->v[p->n].key = key;
	p->v[p->n].value = value;
	p->v[p->n].order = p->n;
	p->n++;
	return SW_OK;
fail:
	free(key);
	free(value);
	return SW_ENOMEM;
}

static int
sigv4_pair_cmp(const void *a, const void *b)
{
	const struct sigv4_pair *x = a, *y = b;
	int c;

	if ((c = strcmp(x->key, y->key)) != 0)
		return c;
	return strcmp(x->value, y->value);
}

static int
sigv4_pair_cmp_stable(const void *a, const void *b)
{
	const struct sigv4_pair *x = a, *y = b;
	int c;

	if ((c = strcmp(x->key, y->key)) != 0)
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

void
sigv4_sha256_hex(const void *data, size_t len, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	if (EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL) != 1 ||
	    mdlen != 32) {
		out[0] = '\0';
		return;
	}
	sw_hex_encode(md, 32, out);
}

/*
 * One HMAC-SHA256 context for a whole signature.  The one-shot HMAC()
 * fetches the MAC and the digest from the provider store and builds and
 * frees a context on every call (five calls a signature); here they are
 * fetched once and the context is only keyed again for each step.
 */
struct sigv4_mac {
	EVP_MAC *mac;
	EVP_MAC_CTX *ctx;
	int keyed; /* the digest parameter is set */
};

static sw_err
sigv4_mac_init(struct sigv4_mac *m)
{
	memset(m, 0, sizeof(*m));
	if ((m->mac = EVP_MAC_fetch(NULL, "HMAC", NULL)) == NULL ||
	    (m->ctx = EVP_MAC_CTX_new(m->mac)) == NULL)
		return SW_EINTERNAL;
	return SW_OK;
}

static void
sigv4_mac_free(struct sigv4_mac *m)
{
	EVP_MAC_CTX_free(m->ctx);
	EVP_MAC_free(m->mac);
	memset(m, 0, sizeof(*m));
}

static sw_err
sigv4_hmac(struct sigv4_mac *m, const void *key, size_t klen, const char *msg,
    unsigned char out[32])
{
	static char sha256[] = "SHA256"; /* OSSL_PARAM wants char * */
	OSSL_PARAM params[2];
	size_t len = 0;

	params[0] =
	    OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, sha256, 0);
	params[1] = OSSL_PARAM_construct_end();
	if (EVP_MAC_init(m->ctx, key, klen, m->keyed ? NULL : params) != 1 ||
	    EVP_MAC_update(m->ctx, (const unsigned char *)msg, strlen(msg)) !=
		1 ||
	    EVP_MAC_final(m->ctx, out, &len, 32) != 1 || len != 32)
		return SW_EINTERNAL;
	m->keyed = 1;
	return SW_OK;
}

/*
 * Decode %XY escapes of s[0..len) ('+' stays '+'; a '%' that is no
 * escape stays too), then re-encode.  One allocation: the encoded
 * worst case (every byte escaped) and, after it, the decoded text.
 */
static char *
sigv4_query_canon(const char *s, size_t len)
{
	char *out, *raw;
	ssize_t n;

	if (len > SW_MAX_UPSTREAM_BODY ||
	    (out = sw_malloc(4 * len + 2)) == NULL)
		return NULL;
	raw = out + 3 * len + 1;
	if ((n = sw_pct_decode(s, len, raw, len + 1, SW_PCT_LENIENT)) < 0) {
		free(out);
		return NULL;
	}
	out[sw_pct_encode_to(out, raw, (size_t)n, 0)] = '\0';
	return out;
}

/* Split an encoded query string into canonical pairs. */
static sw_err
sigv4_query_pairs(struct sigv4_pairs *p, const char *q)
{
	const char *end, *eq;
	size_t len;
	sw_err rc;

	while (q != NULL && *q != '\0') {
		len = strcspn(q, "&");
		end = q + len;
		if (len > 0) {
			eq = memchr(q, '=', len);
			if (eq == NULL)
				eq = end;
			rc = sigv4_pairs_take(p,
			    sigv4_query_canon(q, (size_t)(eq - q)),
			    sigv4_query_canon(eq < end ? eq + 1 : end,
				eq < end ? (size_t)(end - eq - 1) : 0));
			if (rc != SW_OK)
				return rc;
		}
		q = *end == '&' ? end + 1 : end;
	}
	return SW_OK;
}

/* Remove ".", ".." and empty segments; keep a trailing slash. */
static sw_err
sigv4_normalize(struct sw_buf *out, const char *path)
{
	const char *seg, *p = path;
	size_t len, *stack = NULL, depth = 0, n = 0;
	int trailing = 0;
	sw_err rc = SW_OK;

	for (seg = path; *seg != '\0'; seg++)
		if (*seg == '/')
			n++;
	if ((stack = sw_calloc(n + 1, sizeof(*stack))) == NULL)
		return SW_ENOMEM;
	sw_buf_reset(out);
	while (*p != '\0') {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		seg = p;
		len = strcspn(p, "/");
		p += len;
		trailing = *p == '/' || (len == 1 && seg[0] == '.') ||
		    (len == 2 && seg[0] == '.' && seg[1] == '.');
		if (len == 0 || (len == 1 && seg[0] == '.'))
			continue;
		if (len == 2 && seg[0] == '.' && seg[1] == '.') {
			if (depth > 0)
				out->len = stack[--depth];
			if (out->data != NULL)
				out->data[out->len] = '\0';
			continue;
		}
		stack[depth++] = out->len;
		if ((rc = sw_buf_putc(out, '/')) != SW_OK ||
		    (rc = sw_buf_add(out, seg, len)) != SW_OK)
			goto out;
	}
	if (out->len == 0 || trailing)
		rc = sw_buf_putc(out, '/');
out:
	free(stack);
	return rc;
}

static sw_err
sigv4_canon_uri(struct sw_buf *out, const char *path, unsigned flags)
{
	struct sw_buf norm;
	const char *p;
	sw_err rc;

	if (path == NULL || *path == '\0')
		path = "/";
	sw_buf_init(&norm, SW_MAX_UPSTREAM_BODY);
	if (!(flags & SIGV4_NO_NORMALIZE)) {
		if ((rc = sigv4_normalize(&norm, path)) != SW_OK)
			goto out;
		p = sw_buf_str(&norm);
	} else
		p = path;
	if (!(flags & SIGV4_NO_DOUBLE_ENCODE)) {
		rc = sw_pct_encode(out, p, strlen(p), SW_PCT_KEEP_SLASH);
		goto out;
	}
	/* S3: the wire path as it is, escaping only what is still raw. */
	rc = SW_OK;
	for (; *p != '\0' && rc == SW_OK; p++) {
		if (*p == '%')
			rc = sw_buf_putc(out, '%');
		else
			rc = sw_pct_encode(out, p, 1, SW_PCT_KEEP_SLASH);
	}
out:
	sw_buf_free(&norm);
	return rc;
}

static int
sigv4_skipped(const char *name)
{
	size_t i;

	for (i = 0; sigv4_skip_headers[i] != NULL; i++)
		if (strcasecmp(name, sigv4_skip_headers[i]) == 0)
			return 1;
	return 0;
}

/* Trim a header value and fold inner whitespace runs to one space. */
static char *
sigv4_header_value(const char *v)
{
	char *out, *o;
	int space = 0;

	if ((out = sw_malloc(strlen(v) + 1)) == NULL)
		return NULL;
	o = out;
	while (*v == ' ' || *v == '\t' || *v == '\r' || *v == '\n')
		v++;
	for (; *v != '\0'; v++) {
		if (*v == ' ' || *v == '\t' || *v == '\r' || *v == '\n') {
			space = 1;
			continue;
		}
		if (space && o != out)
			*o++ = ' ';
		space = 0;
		*o++ = *v;
	}
	*o = '\0';
	return out;
}

static char *
sigv4_lower(const char *s)
{
	char *out, *o;

	if ((out = sw_strdup(s)) == NULL)
		return NULL;
	for (o = out; *o != '\0'; o++)
		*o = (char)tolower((unsigned char)*o);
	return out;
}

/*
 * Canonical headers ("name:value\n" each) into ch, and the signed
 * header list ("a;b;c") into sh.
 */
static sw_err
sigv4_canon_headers(
    const struct http_headers *h, struct sw_buf *ch, struct sw_buf *sh)
{
	struct sigv4_pairs p;
	size_t i, j;
	sw_err rc = SW_OK;

	memset(&p, 0, sizeof(p));
	for (i = 0; i < h->n; i++) {
		if (sigv4_skipped(h->v[i].name))
			continue;
		if ((rc = sigv4_pairs_take(&p, sigv4_lower(h->v[i].name),
			 sigv4_header_value(h->v[i].value))) != SW_OK)
			goto out;
	}
	if (p.n > 0)
		qsort(p.v, p.n, sizeof(*p.v), sigv4_pair_cmp_stable);
	for (i = 0; i < p.n; i = j) {
		if ((rc = sw_buf_puts(ch, p.v[i].key)) != SW_OK ||
		    (rc = sw_buf_putc(ch, ':')) != SW_OK ||
		    (rc = sw_buf_puts(ch, p.v[i].value)) != SW_OK)
			goto out;
		for (j = i + 1; j < p.n && strcmp(p.v[j].key, p.v[i].key) == 0;
		     j++)
			if ((rc = sw_buf_putc(ch, ',')) != SW_OK ||
			    (rc = sw_buf_puts(ch, p.v[j].value)) != SW_OK)
				goto out;
		if ((rc = sw_buf_putc(ch, '\n')) != SW_OK ||
		    (i > 0 && (rc = sw_buf_putc(sh, ';')) != SW_OK) ||
		    (rc = sw_buf_puts(sh, p.v[i].key)) != SW_OK)
			goto out;
	}
out:
	sigv4_pairs_free(&p);
	return rc;
}

static sw_err
sigv4_canon_query(const char *query, struct sw_buf *out)
{
	struct sigv4_pairs p;
	size_t i;
	sw_err rc;

	memset(&p, 0, sizeof(p));
	if ((rc = sigv4_query_pairs(&p, query)) != SW_OK)
		goto out;
	if (p.n > 0)
		qsort(p.v, p.n, sizeof(*p.v), sigv4_pair_cmp);
	for (i = 0; i < p.n; i++)
		if ((i > 0 && (rc = sw_buf_putc(out, '&')) != SW_OK) ||
		    (rc = sw_buf_puts(out, p.v[i].key)) != SW_OK ||
		    (rc = sw_buf_putc(out, '=')) != SW_OK ||
		    (rc = sw_buf_puts(out, p.v[i].value)) != SW_OK)
			goto out;
	rc = sw_buf_add(out, "", 0);
out:
	sigv4_pairs_free(&p);
	return rc;
}

struct sigv4_work {
	char amzdate[17]; /* 20150830T123600Z */
	char date[9]; /* 20150830 */
	char scope[256];
	char payload[65 + 32];
	struct sw_buf creq;
	struct sw_buf sts;
	struct sw_buf sh; /* signed headers */
	char sig[65];
};

static sw_err
sigv4_work_init(struct sigv4_work *w, const struct http_request *req,
    const struct sigv4_params *sp)
{
	struct tm tm;
	int n;

	memset(w, 0, sizeof(*w));
	sw_buf_init(&w->creq, SW_MAX_UPSTREAM_BODY);
	sw_buf_init(&w->sts, SW_MAX_UPSTREAM_BODY);
	sw_buf_init(&w->sh, SW_MAX_UPSTREAM_BODY);
	if (sp->access_key == NULL || sp->secret_key == NULL ||
	    sp->region == NULL || sp->service == NULL ||
	    *sp->access_key == '\0' || *sp->region == '\0' ||
	    *sp->service == '\0')
		return SW_EINVAL;
	if (gmtime_r(&sp->when, &tm) == NULL ||
	    strftime(w->amzdate, sizeof(w->amzdate), "%Y%m%dT%H%M%SZ", &tm) ==
		0 ||
	    strftime(w->date, sizeof(w->date), "%Y%m%d", &tm) == 0)
		return SW_EINVAL;
	n = snprintf(w->scope, sizeof(w->scope), "%s/%s/%s/aws4_request",
	    w->date, sp->region, sp->service);
	if (n < 0 || (size_t)n >= sizeof(w->scope))
		return SW_EINVAL;
	if (sp->payload_hash != NULL) {
		if (strlen(sp->payload_hash) >= sizeof(w->payload))
			return SW_EINVAL;
		memcpy(
		    w->payload, sp->payload_hash, strlen(sp->payload_hash) + 1);
	} else
		sigv4_sha256_hex(
		    req->body != NULL ? req->body : (const unsigned char *)"",
		    req->body_len, w->payload);
	return SW_OK;
}

static void
sigv4_work_free(struct sigv4_work *w)
{
	sw_buf_free(&w->creq);
	sw_buf_free(&w->sts);
	sw_buf_free(&w->sh);
}

/* Canonical request -> string to sign -> signature, into w. */
static sw_err
sigv4_compute(struct sigv4_work *w, const struct http_request *req,
    const struct sigv4_params *sp, const char *query)
{
	struct sw_buf uri, q, ch, key;
	struct sigv4_mac mac;
	unsigned char k[32];
	char hash[65];
	sw_err rc;

	sw_buf_init(&uri, SW_MAX_UPSTREAM_BODY);
	sw_buf_init(&q, SW_MAX_UPSTREAM_BODY);
	sw_buf_init(&ch, SW_MAX_UPSTREAM_BODY);
	sw_buf_init(&key, SW_AWS_MAX_KEY + 8);
	memset(&mac, 0, sizeof(mac));
	if ((rc = sigv4_canon_uri(&uri, req->path, sp->flags)) != SW_OK ||
	    (rc = sigv4_canon_query(query, &q)) != SW_OK ||
	    (rc = sigv4_canon_headers(&req->headers, &ch, &w->sh)) != SW_OK)
		goto out;
	if ((rc = sw_buf_printf(&w->creq, "%s\n%s\n%s\n%s\n%s\n%s", req->method,
		 sw_buf_str(&uri), sw_buf_str(&q), sw_buf_str(&ch),
		 sw_buf_str(&w->sh), w->payload)) != SW_OK)
		goto out;
	sigv4_sha256_hex(w->creq.data, w->creq.len, hash);
	if ((rc = sw_buf_printf(&w->sts, "%s\n%s\n%s\n%s", SIGV4_ALGO,
		 w->amzdate, w->scope, hash)) != SW_OK)
		goto out;
	if ((rc = sigv4_mac_init(&mac)) != SW_OK ||
	    (rc = sw_buf_printf(&key, "AWS4%s", sp->secret_key)) != SW_OK ||
	    (rc = sigv4_hmac(&mac, key.data, key.len, w->date, k)) != SW_OK ||
	    (rc = sigv4_hmac(&mac, k, 32, sp->region, k)) != SW_OK ||
	    (rc = sigv4_hmac(&mac, k, 32, sp->service, k)) != SW_OK ||
	    (rc = sigv4_hmac(&mac, k, 32, "aws4_request", k)) != SW_OK ||
	    (rc = sigv4_hmac(&mac, k, 32, sw_buf_str(&w->sts), k)) != SW_OK)
		goto out;
	sw_hex_encode(k, 32, w->sig);
out:
	if (key.data != NULL)
		OPENSSL_cleanse(key.data, key.cap);
	OPENSSL_cleanse(k, sizeof(k));
	sigv4_mac_free(&mac);
	sw_buf_free(&key);
	sw_buf_free(&uri);
	sw_buf_free(&q);
	sw_buf_free(&ch);
	return rc;
}

static sw_err
sigv4_fill_debug(struct sigv4_debug *dbg, struct sigv4_work *w)
{
	if (dbg == NULL)
		return SW_OK;
	memset(dbg, 0, sizeof(*dbg));
	if ((dbg->canonical_request = sw_buf_steal(&w->creq)) == NULL ||
	    (dbg->string_to_sign = sw_buf_steal(&w->sts)) == NULL) {
		sigv4_debug_free(dbg);
		return SW_ENOMEM;
	}
	memcpy(dbg->signature, w->sig, sizeof(dbg->signature));
	return SW_OK;
}

static int
sigv4_has_token(const struct sigv4_params *sp)
{
	return sp->session_token != NULL && *sp->session_token != '\0';
}

sw_err
sigv4_sign(struct http_request *req, const struct sigv4_params *sp,
    struct sigv4_debug *dbg)
{
	struct sigv4_work w;
	struct sw_buf auth;
	sw_err rc;

	sw_buf_init(&auth, SW_MAX_UPSTREAM_BODY);
	if ((rc = sigv4_work_init(&w, req, sp)) != SW_OK)
		goto out;
	http_headers_del(&req->headers, "Authorization");
	if (sigv4_has_token(sp))
		http_headers_del(&req->headers, "X-Amz-Security-Token");
	if ((rc = http_headers_set(&req->headers, "X-Amz-Date", w.amzdate)) !=
	    SW_OK)
		goto out;
	if (sigv4_has_token(sp) && !(sp->flags & SIGV4_OMIT_TOKEN) &&
	    (rc = http_headers_add(&req->headers, "X-Amz-Security-Token",
		 sp->session_token)) != SW_OK)
		goto out;
	if ((sp->flags & SIGV4_CONTENT_SHA256) &&
	    (rc = http_headers_set(
		 &req->headers, "x-amz-content-sha256", w.payload)) != SW_OK)
		goto out;
	if ((rc = sigv4_compute(&w, req, sp, req->query)) != SW_OK)
		goto out;
	if ((rc = sw_buf_printf(&auth,
		 "%s Credential=%s/%s, SignedHeaders=%s, "
		 "Signature=%s",
		 SIGV4_ALGO, sp->access_key, w.scope, sw_buf_str(&w.sh),
		 w.sig)) != SW_OK ||
	    (rc = http_headers_add(
		 &req->headers, "Authorization", sw_buf_str(&auth))) != SW_OK)
		goto out;
	if (sigv4_has_token(sp) && (sp->flags & SIGV4_OMIT_TOKEN) &&
	    (rc = http_headers_add(&req->headers, "X-Amz-Security-Token",
		 sp->session_token)) != SW_OK)
		goto out;
	rc = sigv4_fill_debug(dbg, &w);
out:
	sw_buf_free(&auth);
	sigv4_work_free(&w);
	return rc;
}

/* Append "&key=value" (value encoded) to q. */
static sw_err
sigv4_query_add(struct sw_buf *q, const char *key, const char *value)
{
	sw_err rc;

	if ((q->len > 0 && (rc = sw_buf_putc(q, '&')) != SW_OK) ||
	    (rc = sw_buf_puts(q, key)) != SW_OK ||
	    (rc = sw_buf_putc(q, '=')) != SW_OK)
		return rc;
	return sw_pct_encode(q, value, strlen(value), 0);
}

sw_err
sigv4_presign(struct http_request *req, const struct sigv4_params *sp,
    struct sigv4_debug *dbg)
{
	struct sigv4_work w;
	struct sw_buf q, cred, sh, ch;
	char exp[32];
	sw_err rc;

	sw_buf_init(&q, SW_MAX_UPSTREAM_BODY);
	sw_buf_init(&cred, SW_MAX_UPSTREAM_BODY);
	sw_buf_init(&sh, SW_MAX_UPSTREAM_BODY);
	sw_buf_init(&ch, SW_MAX_UPSTREAM_BODY);
	if ((rc = sigv4_work_init(&w, req, sp)) != SW_OK)
		goto out;
	if (sp->expires <= 0 || sp->expires > 7 * 24 * 3600) {
		rc = SW_EINVAL;
		goto out;
	}
	/* The signed-header list is needed before the query is final. */
	if ((rc = sw_fmt(exp, sizeof(exp), "%ld", sp->expires)) != SW_OK ||
	    (rc = sigv4_canon_headers(&req->headers, &ch, &sh)) != SW_OK ||
	    (rc = sw_buf_printf(&cred, "%s/%s", sp->access_key, w.scope)) !=
		SW_OK)
		goto out;
	if ((req->query != NULL &&
		(rc = sw_buf_puts(&q, req->query)) != SW_OK) ||
	    (rc = sigv4_query_add(&q, "X-Amz-Algorithm", SIGV4_ALGO)) !=
		SW_OK ||
	    (rc = sigv4_query_add(&q, "X-Amz-Credential", sw_buf_str(&cred))) !=
		SW_OK ||
	    (rc = sigv4_query_add(&q, "X-Amz-Date", w.amzdate)) != SW_OK ||
	    (rc = sigv4_query_add(&q, "X-Amz-Expires", exp)) != SW_OK ||
	    (rc = sigv4_query_add(
		 &q, "X-Amz-SignedHeaders", sw_buf_str(&sh))) != SW_OK)
		goto out;
	if (sigv4_has_token(sp) && !(sp->flags & SIGV4_OMIT_TOKEN) &&
	    (rc = sigv4_query_add(
		 &q, "X-Amz-Security-Token", sp->session_token)) != SW_OK)
		goto out;
	if ((rc = sigv4_compute(&w, req, sp, sw_buf_str(&q))) != SW_OK ||
	    (rc = sigv4_query_add(&q, "X-Amz-Signature", w.sig)) != SW_OK)
		goto out;
	if (sigv4_has_token(sp) && (sp->flags & SIGV4_OMIT_TOKEN) &&
	    (rc = sigv4_query_add(
		 &q, "X-Amz-Security-Token", sp->session_token)) != SW_OK)
		goto out;
	if ((rc = http_request_set_query(req, sw_buf_str(&q))) != SW_OK)
		goto out;
	rc = sigv4_fill_debug(dbg, &w);
out:
	sw_buf_free(&q);
	sw_buf_free(&cred);
	sw_buf_free(&sh);
	sw_buf_free(&ch);
	sigv4_work_free(&w);
	return rc;
}

void
sigv4_debug_free(struct sigv4_debug *dbg)
{
	if (dbg == NULL)
		return;
	free(dbg->canonical_request);
	free(dbg->string_to_sign);
	memset(dbg, 0, sizeof(*dbg));
}
