/*
 * test-sigv4.c: run cloud/sigv4.c against every SigV4 case folder in
 * ../shared/testdata/sigv4: the classic AWS suite (.req/.creq/.sts/
 * .authz), the CRT suite's v4 cases (header and query variants), the
 * smithy-rs double-encode case, the S3 cases, the per-service requests
 * and the EKS get-token URLs.  v4a cases are counted and skipped.
 * Then requests serialised by cloud/aws.c from the service-requests
 * params are compared with what botocore sent: byte for byte for the
 * form protocols and GETs (so the signature is botocore's too), by
 * JSON value for JSON bodies.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <json-c/json.h>

#include "lib/url.h"
#include "cloud/aws.h"
#include "cloud/sigv4.h"
#include "t/tap.h"
#include "t/unit/awstest.h"

#define CLASSIC_KEY "AKIDEXAMPLE"
#define CLASSIC_SECRET "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
#define CLASSIC_TOKEN \
	"6e86291e8372ff2a2260956d9b8aae1d763fbf315fa00fa31553b73ebf194267"

static int n_cases, n_passed, n_v4a, n_variants;

/* Join path parts into a static buffer. */
static const char *
pjoin(const char *a, const char *b)
{
	static char buf[4][4096];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", a, b);
	return buf[i];
}

static int
exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/*
 * Parse a raw request file into req.  Continuation lines (obsolete
 * folding) join the previous header with one space.
 */
static int
parse_request(const char *text, struct http_request *req)
{
	const char *p = text, *eol, *colon, *sp, *target, *tend;
	char host[1024] = "", name[256], *val = NULL, *nv;
	size_t len;
	int rc = -1;

	memset(req, 0, sizeof(*req));
	http_headers_init(&req->headers);
	eol = p + strcspn(p, "\n");
	if ((sp = memchr(p, ' ', (size_t)(eol - p))) == NULL)
		return -1;
	req->method = strndup(p, (size_t)(sp - p));
	target = sp + 1;
	tend = eol;
	/* The target may hold a bare space: cut " HTTP/x.y" off the end. */
	for (sp = eol; sp > target; sp--)
		if (sp[-1] == ' ' && strncmp(sp, "HTTP/", 5) == 0) {
			tend = sp - 1;
			break;
		}
	len = strcspn(target, "?");
	if (target + len > tend)
		len = (size_t)(tend - target);
	req->path = strndup(target, len);
	if (target + len < tend)
		req->query = strndup(
		    target + len + 1, (size_t)(tend - target - len - 1));
	p = *eol ? eol + 1 : eol;
	while (*p != '\0' && *p != '\n') {
		eol = p + strcspn(p, "\n");
		if ((*p == ' ' || *p == '\t') && val != NULL) {
			while (*p == ' ' || *p == '\t')
				p++;
			len = strlen(val);
			if ((nv = realloc(val, len + 2 + (size_t)(eol - p))) ==
			    NULL)
				goto out;
			val = nv;
			val[len] = ' ';
			memcpy(val + len + 1, p, (size_t)(eol - p));
			val[len + 1 + (eol - p)] = '\0';
		} else {
			if (val != NULL) {
				http_headers_add(&req->headers, name, val);
				free(val);
				val = NULL;
			}
			if ((colon = memchr(p, ':', (size_t)(eol - p))) ==
				NULL ||
			    (size_t)(colon - p) >= sizeof(name))
				goto out;
			memcpy(name, p, (size_t)(colon - p));
			name[colon - p] = '\0';
			val = strndup(colon + 1, (size_t)(eol - colon - 1));
			if (strcasecmp(name, "host") == 0)
				snprintf(host, sizeof(host), "%s", val);
		}
		p = *eol ? eol + 1 : eol;
	}
	if (val != NULL)
		http_headers_add(&req->headers, name, val);
	if (*p == '\n')
		http_request_set_body(req, p + 1, strlen(p + 1));
	if (asprintf(&req->base, "https://%s", host) < 0)
		req->base = NULL;
	rc = req->method != NULL && req->path != NULL && req->base != NULL ? 0
									   : -1;
out:
	free(val);
	return rc;
}

static int
same(const char *what, const char *got, const char *want)
{
	size_t n;

	if (got != NULL && want != NULL && strcmp(got, want) == 0)
		return 1;
	/* A few expected files end with a newline the value lacks. */
	if (got != NULL && want != NULL && (n = strlen(got)) > 0 &&
	    strncmp(got, want, n) == 0 && strcmp(want + n, "\n") == 0)
		return 1;
	diag("%s differs\n# got:\n%s\n# expected:\n%s", what,
	    got ? got : "(null)", want ? want : "(null)");
	return 0;
}

/* Sorted '&'-separated parameters, so order does not matter. */
static int
qcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
same_params(const char *got, const char *want)
{
	char *g = strdup(got), *w = strdup(want), *gv[64], *wv[64];
	char *s, *save;
	int gn = 0, wn = 0, i, ok_ = 1;

	for (s = strtok_r(g, "&", &save); s && gn < 64;
	     s = strtok_r(NULL, "&", &save))
		gv[gn++] = s;
	for (s = strtok_r(w, "&", &save); s && wn < 64;
	     s = strtok_r(NULL, "&", &save))
		wv[wn++] = s;
	qsort(gv, (size_t)gn, sizeof(*gv), qcmp);
	qsort(wv, (size_t)wn, sizeof(*wv), qcmp);
	if (gn != wn)
		ok_ = 0;
	for (i = 0; ok_ && i < gn; i++)
		ok_ = strcmp(gv[i], wv[i]) == 0;
	if (!ok_)
		diag("query differs\n# got: %s\n# expected: %s", got, want);
	free(g);
	free(w);
	return ok_;
}

/* The value of Authorization in a signed request file. */
static char *
authz_of(const char *signed_req)
{
	const char *p;

	if ((p = strcasestr(signed_req, "\nAuthorization:")) == NULL)
		return NULL;
	p += strlen("\nAuthorization:");
	while (*p == ' ')
		p++;
	return strndup(p, strcspn(p, "\r\n"));
}

/* The query of the request line in a signed request file. */
static char *
query_of(const char *signed_req)
{
	const char *q, *e;

	if ((q = strchr(signed_req, '?')) == NULL)
		return NULL;
	e = q + strcspn(q, " \n");
	return strndup(q + 1, (size_t)(e - q - 1));
}

static int
clone_request(const struct http_request *in, struct http_request *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	out->method = strdup(in->method);
	out->base = strdup(in->base);
	out->path = strdup(in->path);
	out->query = in->query ? strdup(in->query) : NULL;
	for (i = 0; i < in->headers.n; i++)
		http_headers_add(&out->headers, in->headers.v[i].name,
		    in->headers.v[i].value);
	http_request_set_body(out, in->body, in->body_len);
	return 0;
}

static int
check_header_variant(const char *dir, const char *prefix,
    const struct http_request *base, const struct sigv4_params *sp)
{
	struct http_request req;
	struct sigv4_debug dbg;
	char *creq, *sts, *sig, *sreq, *want_auth;
	const char *got;
	int good = 0;

	creq = awstest_slurp(pjoin(dir, "header-canonical-request.txt"), NULL);
	sts = awstest_slurp(pjoin(dir, "header-string-to-sign.txt"), NULL);
	sig = awstest_slurp(pjoin(dir, "header-signature.txt"), NULL);
	sreq = awstest_slurp(pjoin(dir, "header-signed-request.txt"), NULL);
	(void)prefix;
	clone_request(base, &req);
	memset(&dbg, 0, sizeof(dbg));
	want_auth = sreq ? authz_of(sreq) : NULL;
	if (sigv4_sign(&req, sp, &dbg) != SW_OK) {
		diag("sigv4_sign failed");
		goto out;
	}
	got = http_headers_get(&req.headers, "Authorization");
	if (sig != NULL)
		sig[strcspn(sig, "\r\n")] = '\0';
	good = same("canonical request", dbg.canonical_request, creq) &&
	    (sts == NULL || same("string to sign", dbg.string_to_sign, sts)) &&
	    (sig == NULL || same("signature", dbg.signature, sig)) &&
	    (want_auth == NULL || same("authorization", got, want_auth));
out:
	n_variants++;
	sigv4_debug_free(&dbg);
	http_request_free(&req);
	free(creq);
	free(sts);
	free(sig);
	free(sreq);
	free(want_auth);
	return good;
}

static int
check_query_variant(const char *dir, const struct http_request *base,
    const struct sigv4_params *sp)
{
	struct http_request req;
	struct sigv4_debug dbg;
	char *creq, *sts, *sig, *sreq, *wantq = NULL;
	char *url = NULL, *purl;
	int good = 0;

	creq = awstest_slurp(pjoin(dir, "query-canonical-request.txt"), NULL);
	sts = awstest_slurp(pjoin(dir, "query-string-to-sign.txt"), NULL);
	sig = awstest_slurp(pjoin(dir, "query-signature.txt"), NULL);
	sreq = awstest_slurp(pjoin(dir, "query-signed-request.txt"), NULL);
	purl = awstest_slurp(pjoin(dir, "presigned-url.txt"), NULL);
	clone_request(base, &req);
	memset(&dbg, 0, sizeof(dbg));
	if (sigv4_presign(&req, sp, &dbg) != SW_OK) {
		diag("sigv4_presign failed");
		goto out;
	}
	if (sig != NULL)
		sig[strcspn(sig, "\r\n")] = '\0';
	if (sreq != NULL)
		wantq = query_of(sreq);
	url = http_request_url(&req);
	good = same("canonical request", dbg.canonical_request, creq) &&
	    (sts == NULL || same("string to sign", dbg.string_to_sign, sts)) &&
	    (sig == NULL || same("signature", dbg.signature, sig)) &&
	    (wantq == NULL || same_params(req.query, wantq)) &&
	    (purl == NULL || same("presigned URL", url, purl));
out:
	n_variants++;
	sigv4_debug_free(&dbg);
	http_request_free(&req);
	free(creq);
	free(sts);
	free(sig);
	free(sreq);
	free(wantq);
	free(purl);
	free(url);
	return good;
}

static time_t
parse_time(const char *iso)
{
	struct tm tm;

	memset(&tm, 0, sizeof(tm));
	if (iso == NULL ||
	    (strptime(iso, "%Y-%m-%dT%H:%M:%SZ", &tm) == NULL &&
		strptime(iso, "%Y%m%dT%H%M%SZ", &tm) == NULL))
		return 0;
	return timegm(&tm);
}

static const char *
jstr(json_object *o, const char *k)
{
	json_object *v;

	return json_object_object_get_ex(o, k, &v) ? json_object_get_string(v)
						   : NULL;
}

static int
jbool(json_object *o, const char *k, int dflt)
{
	json_object *v;

	return json_object_object_get_ex(o, k, &v) ? json_object_get_boolean(v)
						   : dflt;
}

/* A CRT-layout case: context.json + request.txt + expected files. */
static void
run_crt_case(const char *dir, const char *label)
{
	struct http_request req;
	struct sigv4_params sp;
	json_object *ctx = NULL, *cr;
	char *text = NULL;
	const char *service;
	int good = 1, any = 0;

	memset(&sp, 0, sizeof(sp));
	memset(&req, 0, sizeof(req));
	n_cases++;
	if ((ctx = json_object_from_file(pjoin(dir, "context.json"))) == NULL ||
	    (text = awstest_slurp(pjoin(dir, "request.txt"), NULL)) == NULL ||
	    parse_request(text, &req) == -1) {
		ok(0, "%s: unreadable case", label);
		goto out;
	}
	json_object_object_get_ex(ctx, "credentials", &cr);
	sp.access_key = jstr(cr, "access_key_id");
	sp.secret_key = jstr(cr, "secret_access_key");
	sp.session_token = jstr(cr, "token");
	sp.region = jstr(ctx, "region");
	sp.service = service = jstr(ctx, "service");
	sp.when = parse_time(jstr(ctx, "timestamp"));
	sp.payload_hash = jstr(ctx, "payload_hash");
	sp.expires = json_object_get_int(
	    json_object_object_get(ctx, "expiration_in_seconds"));
	if (!jbool(ctx, "normalize", 1))
		sp.flags |= SIGV4_NO_NORMALIZE;
	if (!jbool(ctx, "double_uri_encode", 1))
		sp.flags |= SIGV4_NO_DOUBLE_ENCODE;
	if (jbool(ctx, "sign_body", 0))
		sp.flags |= SIGV4_CONTENT_SHA256;
	if (service != NULL && strcmp(service, "s3") == 0)
		sp.flags |= SIGV4_S3;
	if (jbool(ctx, "omit_session_token", 0))
		sp.flags |= SIGV4_OMIT_TOKEN;
	if (exists(pjoin(dir, "header-canonical-request.txt"))) {
		any = 1;
		good &= check_header_variant(dir, "header", &req, &sp);
	}
	if (exists(pjoin(dir, "query-canonical-request.txt"))) {
		any = 1;
		/* Presigned URLs carry no body-hash header. */
		sp.flags &= ~(unsigned)SIGV4_CONTENT_SHA256;
		good &= check_query_variant(dir, &req, &sp);
	}
	if (ok(any && good, "%s", label))
		n_passed++;
out:
	http_request_free(&req);
	json_object_put(ctx);
	free(text);
}

/* A classic case: <name>.req/.creq/.sts/.authz in dir. */
static void
run_classic_case(const char *dir, const char *name, const char *label)
{
	struct http_request req, work;
	struct sigv4_params sp;
	struct sigv4_debug dbg;
	char f[4][4096], *text, *creq, *sts, *authz;
	const char *got, *date, *tok;
	int good = 0;

	n_cases++;
	n_variants++;
	memset(&dbg, 0, sizeof(dbg));
	memset(&work, 0, sizeof(work));
	snprintf(f[0], sizeof(f[0]), "%s/%s.req", dir, name);
	snprintf(f[1], sizeof(f[1]), "%s/%s.creq", dir, name);
	snprintf(f[2], sizeof(f[2]), "%s/%s.sts", dir, name);
	snprintf(f[3], sizeof(f[3]), "%s/%s.authz", dir, name);
	text = awstest_slurp(f[0], NULL);
	creq = awstest_slurp(f[1], NULL);
	sts = awstest_slurp(f[2], NULL);
	authz = awstest_slurp(f[3], NULL);
	memset(&req, 0, sizeof(req));
	if (text == NULL || creq == NULL || parse_request(text, &req) == -1) {
		ok(0, "%s: unreadable case", label);
		goto out;
	}
	memset(&sp, 0, sizeof(sp));
	sp.access_key = CLASSIC_KEY;
	sp.secret_key = CLASSIC_SECRET;
	sp.region = "us-east-1";
	sp.service = "service";
	date = http_headers_get(&req.headers, "X-Amz-Date");
	sp.when = parse_time(date);
	/* The token cases: the suite's readme says which is which. */
	tok = http_headers_get(&req.headers, "X-Amz-Security-Token");
	if (strcmp(name, "get-vanilla-with-session-token") == 0)
		sp.session_token = CLASSIC_TOKEN;
	else if (strcmp(name, "post-sts-header-after") == 0) {
		sp.session_token = "AQoDYXdzEPT//////////wEXAMPLE";
		sp.flags |= SIGV4_OMIT_TOKEN;
	} else if (tok != NULL)
		sp.session_token = tok;
	clone_request(&req, &work);
	if (sigv4_sign(&work, &sp, &dbg) != SW_OK) {
		ok(0, "%s: sign failed", label);
		goto out;
	}
	got = http_headers_get(&work.headers, "Authorization");
	good = same("canonical request", dbg.canonical_request, creq) &&
	    (sts == NULL || same("string to sign", dbg.string_to_sign, sts)) &&
	    (authz == NULL || same("authorization", got, authz));
	if (ok(good, "%s", label))
		n_passed++;
out:
	sigv4_debug_free(&dbg);
	http_request_free(&req);
	http_request_free(&work);
	free(text);
	free(creq);
	free(sts);
	free(authz);
}

static int
filter_dirs(const struct dirent *d)
{
	return d->d_name[0] != '.';
}

/* Walk root; every folder holding a case is run once. */
static void
walk(const char *top, const char *label)
{
	struct dirent **ents = NULL;
	char root[1024], path[4096], lab[4096], req[4096];
	const char *base;
	int n, i;

	snprintf(root, sizeof(root), "%s", top);
	base = strrchr(root, '/') ? strrchr(root, '/') + 1 : root;
	snprintf(req, sizeof(req), "%s/%s.req", root, base);
	if (exists(pjoin(root, "context.json"))) {
		if (strstr(label, "/v4a/") != NULL) {
			n_v4a++;
			return;
		}
		run_crt_case(root, label);
		return;
	}
	if (exists(req)) {
		run_classic_case(root, base, label);
		return;
	}
	if ((n = scandir(root, &ents, filter_dirs, alphasort)) < 0)
		return;
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", root, ents[i]->d_name);
		snprintf(lab, sizeof(lab), "%s/%s", label, ents[i]->d_name);
		if (ents[i]->d_type == DT_DIR || ents[i]->d_type == DT_UNKNOWN)
			walk(path, lab);
		free(ents[i]);
	}
	free(ents);
}

/* Build the request of one service-requests vector and compare. */
static void
test_service_request(const char *shared, const char *name, enum aws_service svc)
{
	struct aws_ctx ctx;
	struct http_request req;
	struct sigv4_params sp;
	struct tm tm;
	json_object *c, *cr, *params, *got = NULL, *want = NULL;
	char path[4096], *text, *body, *line, *sreq;
	char *wantauth = NULL, target[4096];
	const char *ep, *auth;
	int form;

	snprintf(path, sizeof(path),
	    "%s/testdata/sigv4/service-requests/"
	    "%s/context.json",
	    shared, name);
	c = json_object_from_file(path);
	snprintf(path, sizeof(path),
	    "%s/testdata/sigv4/service-requests/"
	    "%s/request.txt",
	    shared, name);
	text = awstest_slurp(path, NULL);
	snprintf(path, sizeof(path),
	    "%s/testdata/sigv4/service-requests/"
	    "%s/header-signed-request.txt",
	    shared, name);
	sreq = awstest_slurp(path, NULL);
	if (c == NULL || text == NULL || sreq == NULL) {
		ok(0, "%s: vector readable", name);
		goto out;
	}
	aws_ctx_init(
	    &ctx, json_object_get_string(json_object_object_get(c, "region")));
	ep = json_object_get_string(json_object_object_get(c, "endpoint"));
	params = json_object_object_get(c, "params");
	if (!ok(aws_build_request(&ctx, svc,
		    json_object_get_string(
			json_object_object_get(c, "operation")),
		    params, &req) == SW_OK,
		"%s: request builds", name)) {
		aws_ctx_free(&ctx);
		goto out;
	}
	is_str(req.base, ep, "endpoint");
	/* Request line: "METHOD target HTTP/1.1". */
	line = strndup(text, strcspn(text, "\n"));
	snprintf(target, sizeof(target), "%s %s%s%s HTTP/1.1", req.method,
	    req.path, req.query ? "?" : "", req.query ? req.query : "");
	is_str(target, line, "request line");
	free(line);
	body = strstr(text, "\n\n");
	body = body != NULL ? body + 2 : text + strlen(text);
	form = svc == AWS_SVC_EC2 || svc == AWS_SVC_IAM || svc == AWS_SVC_STS;
	if (form)
		is_str(req.body ? (const char *)req.body : "", body,
		    "form body is byte-identical");
	else if (*body != '\0') {
		got =
		    json_tokener_parse(req.body ? (const char *)req.body : "");
		want = json_tokener_parse(body);
		ok(got != NULL && json_object_equal(got, want),
		    "JSON body has the same value");
	}
	if (svc == AWS_SVC_SAGEMAKER || svc == AWS_SVC_FSX) {
		snprintf(target, sizeof(target), "X-Amz-Target:%s",
		    http_headers_get(&req.headers, "X-Amz-Target"));
		ok(strstr(text, target) != NULL, "%s", target);
	}
	/* Same bytes, so the same signature as botocore's. */
	if (form || *body == '\0') {
		memset(&tm, 0, sizeof(tm));
		strptime(json_object_get_string(
			     json_object_object_get(c, "timestamp")),
		    "%Y-%m-%dT%H:%M:%SZ", &tm);
		cr = json_object_object_get(c, "credentials");
		memset(&sp, 0, sizeof(sp));
		sp.access_key = json_object_get_string(
		    json_object_object_get(cr, "access_key_id"));
		sp.secret_key = json_object_get_string(
		    json_object_object_get(cr, "secret_access_key"));
		sp.session_token =
		    json_object_get_string(json_object_object_get(cr, "token"));
		sp.region =
		    json_object_get_string(json_object_object_get(c, "region"));
		sp.service = aws_service(svc)->signing_name;
		sp.when = timegm(&tm);
		sigv4_sign(&req, &sp, NULL);
		auth = http_headers_get(&req.headers, "Authorization");
		if ((wantauth = strstr(sreq, "Authorization:")) != NULL)
			wantauth = strndup(
			    wantauth + 14, strcspn(wantauth + 14, "\n"));
		is_str(auth, wantauth, "signature equals botocore's");
	}
	http_request_free(&req);
	aws_ctx_free(&ctx);
out:
	json_object_put(c);
	json_object_put(got);
	json_object_put(want);
	free(text);
	free(sreq);
	free(wantauth);
}

/* Unit checks that do not need the vectors. */
static void
test_helpers(void)
{
	struct sw_buf b;
	char hex[65];

	sw_buf_init(&b, 1024);
	sw_pct_encode(&b, "a b/c~ሴ", strlen("a b/c~ሴ"), SW_PCT_KEEP_SLASH);
	is_str(sw_buf_str(&b), "a%20b/c~%E1%88%B4", "uri encode keeps slash");
	sw_buf_reset(&b);
	sw_pct_encode(&b, "a/b+c=", 6, 0);
	is_str(sw_buf_str(&b), "a%2Fb%2Bc%3D", "uri encode strict");
	sw_buf_free(&b);
	sigv4_sha256_hex("", 0, hex);
	is_str(hex,
	    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca4959"
	    "91b7852b855",
	    "sha256 of nothing");
}

int
main(void)
{
	const char *shared;
	char root[4096];

	if ((shared = awstest_shared()) == NULL)
		skip_all("../shared absent");
	snprintf(root, sizeof(root), "%s/testdata/sigv4", shared);
	if (!exists(root))
		skip_all("../shared absent");
	test_helpers();
	walk(pjoin(root, "aws-sig-v4-test-suite"), "aws-sig-v4-test-suite");
	walk(pjoin(root, "aws-signing-test-suite"), "aws-signing-test-suite");
	walk(pjoin(root, "smithy-rs-extras"), "smithy-rs-extras");
	walk(pjoin(root, "s3"), "s3");
	walk(pjoin(root, "service-requests"), "service-requests");
	walk(pjoin(root, "eks-get-token"), "eks-get-token");
	diag("sigv4 vectors: %d/%d passed", n_passed, n_cases);
	diag("signature variants checked: %d; v4a cases skipped (SigV4A "
	     "not implemented): %d",
	    n_variants, n_v4a);
	ok(n_cases >= 90, "found the vector folders (%d)", n_cases);
	is_int(n_passed, n_cases, "every v4 vector passes");
	test_service_request(shared, "ec2-create-tags", AWS_SVC_EC2);
	test_service_request(shared, "ec2-describe-vpcs-filters", AWS_SVC_EC2);
	test_service_request(shared, "iam-get-role-global", AWS_SVC_IAM);
	test_service_request(shared, "sts-get-caller-identity", AWS_SVC_STS);
	test_service_request(shared, "eks-list-addons-query", AWS_SVC_EKS);
	test_service_request(
	    shared, "eks-associate-access-policy-double-encode", AWS_SVC_EKS);
	test_service_request(
	    shared, "eks-describe-cluster-session-token", AWS_SVC_EKS);
	test_service_request(
	    shared, "sagemaker-describe-cluster", AWS_SVC_SAGEMAKER);
	test_service_request(
	    shared, "sagemaker-create-cluster-eks", AWS_SVC_SAGEMAKER);
	test_service_request(shared, "fsx-describe-file-systems", AWS_SVC_FSX);
	return tap_done();
}
