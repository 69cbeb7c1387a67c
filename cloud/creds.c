/*
 * creds.c: the AWS credential provider chain (see creds.h).
 *
 * Each provider fills a struct aws_creds or says SW_ENOTFOUND when it
 * is not configured.  creds_get() caches the result and resolves again
 * inside the refresh window.  The metadata endpoints are plain http by
 * design (IMDS, ECS and the EKS Pod Identity agent), so the provider
 * has its own HTTP client allowed to reach exactly those addresses and
 * loopback, with the short timeouts SDKs use.  Files are read with a
 * size cap; secrets are wiped from stack buffers after use.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <json-c/json.h>
#include <openssl/crypto.h>

#include "lib/alloc.h"
#include "lib/buf.h"
#include "cloud/creds.h"
#include "cloud/retry.h"

#define IMDS_DEFAULT "http://169.254.169.254"
#define IMDS_DEFAULT6 "http://[fd00:ec2::254]"
#define ECS_HOST "http://169.254.170.2"
#define IMDS_CREDS_PATH "/latest/meta-data/iam/security-credentials/"

static time_t
creds_clock(void)
{
	return time(NULL);
}

static int
env_true(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && strcasecmp(v, "true") == 0;
}

static const char *
env_nonempty(const char *name)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' ? v : NULL;
}

static int
creds_copy(char *dst, size_t dsz, const char *src)
{
	size_t n;

	if (src == NULL || (n = strlen(src)) >= dsz)
		return -1;
	memcpy(dst, src, n + 1);
	return 0;
}

static void creds_fail(struct aws_error *err, const char *code, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));

static void
creds_fail(struct aws_error *err, const char *code, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return;
	aws_error_clear(err);
	sw_fmt_text(err->code, sizeof(err->code), "%s", code);
	va_start(ap, fmt);
	vsnprintf(err->message, sizeof(err->message), fmt, ap);
	va_end(ap);
}

sw_err
creds_init(struct creds_provider *p, const char *sts, const char *region)
{
	sw_err rc;

	memset(p, 0, sizeof(*p));
	p->now = creds_clock;
	if ((rc = http_client_init(
		 &p->http, HTTP_ALLOW_METADATA | HTTP_ALLOW_LOOPBACK)) != SW_OK)
		return rc;
	return creds_set_sts(p, sts, region);
}

void
creds_free(struct creds_provider *p)
{
	http_client_free(&p->http);
	OPENSSL_cleanse(p, sizeof(*p));
}

sw_err
creds_set_sts(struct creds_provider *p, const char *sts, const char *region)
{
	if ((sts != NULL &&
		creds_copy(p->sts_endpoint, sizeof(p->sts_endpoint), sts) ==
		    -1) ||
	    (region != NULL &&
		creds_copy(p->region, sizeof(p->region), region) == -1))
		return SW_EINVAL;
	return SW_OK;
}

sw_err
creds_set_static(
    struct creds_provider *p, const char *ak, const char *sk, const char *token)
{
	struct aws_creds *c = &p->cached;

	memset(c, 0, sizeof(*c));
	if (creds_copy(c->access_key, sizeof(c->access_key), ak) == -1 ||
	    creds_copy(c->secret_key, sizeof(c->secret_key), sk) == -1 ||
	    (token != NULL &&
		creds_copy(c->token, sizeof(c->token), token) == -1))
		return SW_EINVAL;
	(void)creds_copy(c->source, sizeof(c->source), "static");
	p->have = p->fixed = 1;
	return SW_OK;
}

void
creds_invalidate(struct creds_provider *p)
{
	if (!p->fixed)
		p->have = 0;
}

time_t
creds_parse_time(const char *s)
{
	struct tm tm;
	const char *p;

	if (s == NULL)
		return -1;
	memset(&tm, 0, sizeof(tm));
	if ((p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)) == NULL)
		return -1;
	if (*p == '.')
		for (p++; isdigit((unsigned char)*p); p++)
			continue;
	if (strcmp(p, "Z") != 0 && strcmp(p, "+00:00") != 0 && *p != '\0')
		return -1;
	return timegm(&tm);
}

/* --- environment ----------------------------------------------------- */

sw_err
creds_from_env(struct aws_creds *c)
{
	const char *ak, *sk, *tok, *exp, *acct;

	memset(c, 0, sizeof(*c));
	ak = env_nonempty("AWS_ACCESS_KEY_ID");
	sk = env_nonempty("AWS_SECRET_ACCESS_KEY");
	if (ak == NULL || sk == NULL)
		return SW_ENOTFOUND;
	if ((tok = env_nonempty("AWS_SESSION_TOKEN")) == NULL)
		tok = env_nonempty("AWS_SECURITY_TOKEN");
	if (creds_copy(c->access_key, sizeof(c->access_key), ak) == -1 ||
	    creds_copy(c->secret_key, sizeof(c->secret_key), sk) == -1 ||
	    (tok != NULL && creds_copy(c->token, sizeof(c->token), tok) == -1))
		return SW_EINVAL;
	if ((exp = env_nonempty("AWS_CREDENTIAL_EXPIRATION")) != NULL &&
	    (c->expiration = creds_parse_time(exp)) == -1)
		return SW_EINVAL;
	if ((acct = env_nonempty("AWS_ACCOUNT_ID")) != NULL)
		creds_copy(c->account_id, sizeof(c->account_id), acct);
	(void)creds_copy(c->source, sizeof(c->source), "env");
	return SW_OK;
}

/* --- files ------------------------------------------------------------ */

/* Read a whole small file; NULL if missing, unreadable or too big. */
static char *
creds_read_file(const char *path, size_t *lenp)
{
	FILE *f;
	char *buf;
	size_t n;

	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	if ((buf = sw_malloc(SW_AWS_MAX_FILE + 1)) == NULL) {
		fclose(f);
		return NULL;
	}
	n = fread(buf, 1, SW_AWS_MAX_FILE + 1, f);
	fclose(f);
	if (n > SW_AWS_MAX_FILE) {
		OPENSSL_cleanse(buf, SW_AWS_MAX_FILE + 1);
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	if (lenp != NULL)
		*lenp = n;
	return buf;
}

static void
creds_free_text(char *p, size_t len)
{
	if (p != NULL)
		OPENSSL_cleanse(p, len);
	free(p);
}

static char *
creds_trim(char *s)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/*
 * Find key in section of an INI text; copy its value into out.  The
 * section matches "[name]" exactly after trimming.  0 when found.
 */
static int
ini_get(const char *text, const char *section, const char *key, char *out,
    size_t outsz)
{
	const char *p = text, *eol;
	char line[SW_AWS_MAX_TOKEN + 256], *l, *eq, *k, *v;
	int in = 0;
	size_t len;

	while (p != NULL && *p != '\0') {
		eol = p + strcspn(p, "\r\n");
		len = (size_t)(eol - p);
		if (len < sizeof(line)) {
			memcpy(line, p, len);
			line[len] = '\0';
			l = creds_trim(line);
			if (*l == '[') {
				l[strcspn(l, "]")] = '\0';
				in = strcmp(creds_trim(l + 1), section) == 0;
			} else if (in && *l != '#' && *l != ';' &&
			    (eq = strchr(l, '=')) != NULL) {
				*eq = '\0';
				k = creds_trim(l);
				v = creds_trim(eq + 1);
				if (strcmp(k, key) == 0) {
					in = creds_copy(out, outsz, v);
					OPENSSL_cleanse(line, sizeof(line));
					return in;
				}
			}
		}
		p = eol + strspn(eol, "\r\n");
	}
	OPENSSL_cleanse(line, sizeof(line));
	return -1;
}

static void
creds_path(char *out, size_t outsz, const char *env, const char *file)
{
	const char *v, *home;

	/* A path that does not fit is no file: never a cut one. */
	if ((v = env_nonempty(env)) != NULL) {
		if (sw_fmt(out, outsz, "%s", v) != SW_OK)
			out[0] = '\0';
	} else if ((home = env_nonempty("HOME")) == NULL ||
	    sw_fmt(out, outsz, "%s/.aws/%s", home, file) != SW_OK)
		out[0] = '\0';
}

sw_err
creds_from_profile(struct creds_provider *p, const char *profile,
    struct aws_creds *c, struct aws_error *err)
{
	char cpath[1024], fpath[1024], sect[SW_AWS_MAX_NAME + 16];
	char role[2048], wtf[1024], sess[128];
	char *ctext = NULL, *ftext = NULL;
	size_t clen = 0, flen = 0;
	int have_section = 0;
	sw_err rc = SW_ENOTFOUND;

	memset(c, 0, sizeof(*c));
	if (profile == NULL)
		profile = "default";
	creds_path(
	    cpath, sizeof(cpath), "AWS_SHARED_CREDENTIALS_FILE", "credentials");
	creds_path(fpath, sizeof(fpath), "AWS_CONFIG_FILE", "config");
	if (cpath[0] != '\0')
		ctext = creds_read_file(cpath, &clen);
	if (fpath[0] != '\0')
		ftext = creds_read_file(fpath, &flen);
	if ((strcmp(profile, "default") == 0
		    ? sw_fmt(sect, sizeof(sect), "%s", profile)
		    : sw_fmt(sect, sizeof(sect), "profile %s", profile)) !=
	    SW_OK) {
		rc = SW_EINVAL;
		goto out;
	}
	/* Keys: the credentials file first, then the config file. */
	if (ctext != NULL &&
	    ini_get(ctext, profile, "aws_access_key_id", c->access_key,
		sizeof(c->access_key)) == 0) {
		have_section = 1;
		ini_get(ctext, profile, "aws_secret_access_key", c->secret_key,
		    sizeof(c->secret_key));
		ini_get(ctext, profile, "aws_session_token", c->token,
		    sizeof(c->token));
	} else if (ftext != NULL &&
	    ini_get(ftext, sect, "aws_access_key_id", c->access_key,
		sizeof(c->access_key)) == 0) {
		have_section = 1;
		ini_get(ftext, sect, "aws_secret_access_key", c->secret_key,
		    sizeof(c->secret_key));
		ini_get(ftext, sect, "aws_session_token", c->token,
		    sizeof(c->token));
	}
	if (have_section) {
		if (c->secret_key[0] == '\0') {
			creds_fail(err, "PartialCredentials",
			    "profile %s has "
			    "aws_access_key_id but no aws_secret_access_key",
			    profile);
			rc = SW_EUNAVAIL;
			goto out;
		}
		(void)creds_copy(c->source, sizeof(c->source), "profile");
		rc = SW_OK;
		goto out;
	}
	/* A web identity profile: role_arn + web_identity_token_file. */
	if (ftext != NULL &&
	    ini_get(ftext, sect, "role_arn", role, sizeof(role)) == 0) {
		if (ini_get(ftext, sect, "web_identity_token_file", wtf,
			sizeof(wtf)) == 0) {
			if (ini_get(ftext, sect, "role_session_name", sess,
				sizeof(sess)) == -1)
				sess[0] = '\0';
			rc = creds_from_web_identity(
			    p, wtf, role, sess[0] ? sess : NULL, c, err);
			goto out;
		}
		creds_fail(err, "UnsupportedProfile",
		    "profile %s: "
		    "assume-role profiles (source_profile) are not supported",
		    profile);
		rc = SW_EUNAVAIL;
	}
out:
	creds_free_text(ctext, clen);
	creds_free_text(ftext, flen);
	return rc;
}

sw_err
creds_config_region(char *out, size_t outsz)
{
	const char *profile = env_nonempty("AWS_PROFILE");
	char path[1024], sect[SW_AWS_MAX_NAME + 16], *text;
	size_t len = 0;
	int r;

	if (profile == NULL)
		profile = "default";
	creds_path(path, sizeof(path), "AWS_CONFIG_FILE", "config");
	if ((strcmp(profile, "default") == 0
		    ? sw_fmt(sect, sizeof(sect), "%s", profile)
		    : sw_fmt(sect, sizeof(sect), "profile %s", profile)) !=
	    SW_OK)
		return SW_EINVAL;
	if (path[0] == '\0' || (text = creds_read_file(path, &len)) == NULL)
		return SW_ENOTFOUND;
	r = ini_get(text, sect, "region", out, outsz);
	creds_free_text(text, len);
	return r == 0 && *out != '\0' ? SW_OK : SW_ENOTFOUND;
}

/* --- HTTP helpers ------------------------------------------------------ */

/* Split "scheme://host[:port]/path?query" for http_request_init. */
static sw_err
creds_request(struct http_request *req, const char *method, const char *url)
{
	char base[SW_AWS_MAX_URL], rest[SW_AWS_MAX_URL];
	const char *auth, *q;
	size_t n;

	if ((auth = strstr(url, "://")) == NULL)
		return SW_EINVAL;
	auth += 3;
	n = (size_t)(auth - url) + strcspn(auth, "/?#");
	if (n >= sizeof(base) || strlen(url + n) >= sizeof(rest))
		return SW_EINVAL;
	memcpy(base, url, n);
	base[n] = '\0';
	memcpy(rest, url + n, strlen(url + n) + 1); /* length checked */
	rest[strcspn(rest, "#")] = '\0';
	q = NULL;
	if (strchr(rest, '?') != NULL) {
		q = strchr(rest, '?') + 1;
		rest[q - rest - 1] = '\0';
	}
	return http_request_init(req, method, base, rest[0] ? rest : "/", q);
}

static const char *
creds_jstr(json_object *o, const char *k)
{
	json_object *v;

	if (!json_object_object_get_ex(o, k, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* The JSON shape of IMDS and container credentials. */
static sw_err
creds_from_json(const char *body, size_t len, const char *source,
    struct aws_creds *c, struct aws_error *err)
{
	json_tokener *tok;
	json_object *o = NULL;
	const char *exp, *code;
	sw_err rc = SW_EUNAVAIL;

	memset(c, 0, sizeof(*c));
	if ((tok = json_tokener_new()) == NULL)
		return SW_ENOMEM;
	o = json_tokener_parse_ex(tok, body, (int)len);
	json_tokener_free(tok);
	if (o == NULL || !json_object_is_type(o, json_type_object)) {
		creds_fail(err, "MalformedCredentials", "%s: not JSON", source);
		goto out;
	}
	if ((code = creds_jstr(o, "Code")) != NULL &&
	    strcmp(code, "Success") != 0) {
		creds_fail(err, code, "%s: %s", source,
		    creds_jstr(o, "Message") ? creds_jstr(o, "Message") : "");
		goto out;
	}
	if (creds_copy(c->access_key, sizeof(c->access_key),
		creds_jstr(o, "AccessKeyId")) == -1 ||
	    creds_copy(c->secret_key, sizeof(c->secret_key),
		creds_jstr(o, "SecretAccessKey")) == -1 ||
	    creds_copy(c->token, sizeof(c->token), creds_jstr(o, "Token")) ==
		-1 ||
	    (exp = creds_jstr(o, "Expiration")) == NULL ||
	    (c->expiration = creds_parse_time(exp)) == -1) {
		creds_fail(err, "MalformedCredentials",
		    "%s: missing AccessKeyId, SecretAccessKey, Token or "
		    "Expiration",
		    source);
		memset(c, 0, sizeof(*c));
		goto out;
	}
	if (creds_jstr(o, "AccountId") != NULL)
		creds_copy(c->account_id, sizeof(c->account_id),
		    creds_jstr(o, "AccountId"));
	if (creds_copy(c->source, sizeof(c->source), source) != 0)
		sw_fmt_text(c->source, sizeof(c->source), "%s", source);
	rc = SW_OK;
out:
	json_object_put(o);
	return rc;
}

/* --- web identity (IRSA) ---------------------------------------------- */

struct creds_sts_call {
	struct creds_provider *p;
	struct http_request *req;
	struct http_response *resp;
};

static sw_err
creds_sts_attempt(void *arg, int attempt, struct aws_error *err)
{
	struct creds_sts_call *a = arg;
	sw_err rc;

	(void)attempt;
	if ((rc = http_perform(&a->p->http, a->req, a->resp)) != SW_OK) {
		aws_error_transport(err, rc, a->p->http.errmsg);
		return rc;
	}
	if (a->resp->status == 200)
		return SW_OK;
	awsproto_parse_error(AWS_PROTO_QUERY, a->resp, err);
	return SW_EUNAVAIL;
}

#define STS_CRED(x) \
	"//*[local-name()='AssumeRoleWithWebIdentityResult']" \
	"/*[local-name()='Credentials']/*[local-name()='" x "']"

sw_err
creds_from_web_identity(struct creds_provider *p, const char *token_file,
    const char *role_arn, const char *session, struct aws_creds *c,
    struct aws_error *err)
{
	struct http_request req;
	struct http_response resp;
	struct retry_policy pol;
	struct creds_sts_call call;
	struct sw_buf body;
	json_object *in = NULL;
	char *tok = NULL, sess[64], exp[64];
	size_t toklen = 0;
	const char *xml;
	sw_err rc = SW_ENOMEM;

	memset(c, 0, sizeof(*c));
	memset(&req, 0, sizeof(req));
	http_response_init(&resp, SW_MAX_BODY);
	sw_buf_init(&body, SW_AWS_MAX_FILE * 2);
	/* The kubelet rotates the token file: read it every time. */
	if ((tok = creds_read_file(token_file, &toklen)) == NULL) {
		creds_fail(err, "InvalidIdentityToken",
		    "cannot read web identity token file %s", token_file);
		rc = SW_EUNAVAIL;
		goto out;
	}
	if (session == NULL) {
		if ((rc = sw_fmt(sess, sizeof(sess), "slipway-session-%lld",
			 (long long)p->now())) != SW_OK)
			goto out;
		session = sess;
	}
	if ((in = json_object_new_object()) == NULL)
		goto out;
	json_object_object_add(in, "RoleArn", json_object_new_string(role_arn));
	json_object_object_add(
	    in, "RoleSessionName", json_object_new_string(session));
	json_object_object_add(
	    in, "WebIdentityToken", json_object_new_string(creds_trim(tok)));
	/* No signature: the operation is modeled smithy.api#noAuth. */
	if ((rc = awsproto_form(&body, AWS_PROTO_QUERY,
		 "AssumeRoleWithWebIdentity", "2011-06-15", in, NULL)) !=
		SW_OK ||
	    (rc = creds_request(&req, "POST", p->sts_endpoint)) != SW_OK ||
	    (rc = http_headers_add(&req.headers, "Content-Type",
		 "application/x-www-form-urlencoded; charset=utf-8")) !=
		SW_OK ||
	    (rc = http_request_set_body(&req, body.data, body.len)) != SW_OK)
		goto out;
	p->http.connect_timeout_ms = SW_HTTP_CONNECT_TIMEOUT * 1000L;
	p->http.timeout_ms = SW_HTTP_TOTAL_TIMEOUT * 1000L;
	retry_init(&pol);
	call.p = p;
	call.req = &req;
	call.resp = &resp;
	if ((rc = retry_run(&pol, creds_sts_attempt, &call, err)) != SW_OK) {
		rc = SW_EUNAVAIL;
		goto out;
	}
	xml = resp.body.data;
	rc = SW_EUNAVAIL;
	if (awsproto_xpath_text(xml, resp.body.len, STS_CRED("AccessKeyId"),
		c->access_key, sizeof(c->access_key)) != SW_OK ||
	    awsproto_xpath_text(xml, resp.body.len, STS_CRED("SecretAccessKey"),
		c->secret_key, sizeof(c->secret_key)) != SW_OK ||
	    awsproto_xpath_text(xml, resp.body.len, STS_CRED("SessionToken"),
		c->token, sizeof(c->token)) != SW_OK ||
	    awsproto_xpath_text(xml, resp.body.len, STS_CRED("Expiration"), exp,
		sizeof(exp)) != SW_OK ||
	    (c->expiration = creds_parse_time(exp)) == -1) {
		creds_fail(err, "MalformedCredentials",
		    "AssumeRoleWithWebIdentity: no credentials in response");
		memset(c, 0, sizeof(*c));
		goto out;
	}
	(void)creds_copy(c->source, sizeof(c->source), "web-identity");
	rc = SW_OK;
out:
	if (body.data != NULL)
		OPENSSL_cleanse(body.data, body.cap);
	sw_buf_free(&body);
	json_object_put(in);
	creds_free_text(tok, toklen);
	http_request_free(&req);
	http_response_free(&resp);
	return rc;
}

/* --- container endpoint (ECS, EKS Pod Identity) ------------------------ */

sw_err
creds_from_container(
    struct creds_provider *p, struct aws_creds *c, struct aws_error *err)
{
	struct http_request req;
	struct http_response resp;
	char url[SW_AWS_MAX_URL], *auth = NULL;
	const char *rel, *full, *tfile, *tok;
	size_t alen = 0;
	int attempt;
	sw_err rc;

	memset(&req, 0, sizeof(req));
	http_response_init(&resp, SW_MAX_BODY);
	rel = env_nonempty("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI");
	full = env_nonempty("AWS_CONTAINER_CREDENTIALS_FULL_URI");
	if (rel == NULL && full == NULL) {
		rc = SW_ENOTFOUND;
		goto out;
	}
	if ((rel != NULL ? sw_fmt(url, sizeof(url), "%s%s%s", ECS_HOST,
			       *rel == '/' ? "" : "/", rel)
			 : sw_fmt(url, sizeof(url), "%s", full)) != SW_OK) {
		creds_fail(err, "InvalidContainerEndpoint",
		    "container "
		    "credentials URL too long");
		rc = SW_EINVAL;
		goto out;
	}
	if (!http_url_allowed(url, HTTP_ALLOW_METADATA | HTTP_ALLOW_LOOPBACK)) {
		creds_fail(err, "InvalidContainerEndpoint",
		    "container "
		    "credentials URL must be https, loopback or the ECS/EKS "
		    "agent address");
		rc = SW_EUNAVAIL;
		goto out;
	}
	if ((rc = creds_request(&req, "GET", url)) != SW_OK ||
	    (rc = http_headers_add(
		 &req.headers, "Accept", "application/json")) != SW_OK)
		goto out;
	/* The token file is rotated too: read it on every request. */
	tfile = env_nonempty("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE");
	if (tfile != NULL) {
		if ((auth = creds_read_file(tfile, &alen)) == NULL) {
			creds_fail(err, "InvalidContainerToken",
			    "cannot read %s", tfile);
			rc = SW_EUNAVAIL;
			goto out;
		}
		tok = creds_trim(auth);
	} else
		tok = env_nonempty("AWS_CONTAINER_AUTHORIZATION_TOKEN");
	if (tok != NULL) {
		if (strpbrk(tok, "\r\n") != NULL) {
			creds_fail(err, "InvalidContainerToken",
			    "authorization token holds CR or LF");
			rc = SW_EUNAVAIL;
			goto out;
		}
		if ((rc = http_headers_add(
			 &req.headers, "Authorization", tok)) != SW_OK)
			goto out;
	}
	p->http.connect_timeout_ms = SW_AWS_CONTAINER_TIMEOUT_MS;
	p->http.timeout_ms = SW_AWS_CONTAINER_TIMEOUT_MS;
	/* botocore: three attempts; we do not sleep between them. */
	for (attempt = 0; attempt < 3; attempt++) {
		rc = http_perform(&p->http, &req, &resp);
		if (rc == SW_OK && resp.status == 200)
			break;
		if (rc == SW_OK && resp.status >= 400 && resp.status < 500)
			break;
	}
	if (rc != SW_OK || resp.status != 200) {
		creds_fail(err, "ContainerCredentialsUnavailable", "%s: %s",
		    url, rc != SW_OK ? p->http.errmsg : "HTTP error");
		if (err != NULL)
			err->http_status = resp.status;
		rc = SW_EUNAVAIL;
		goto out;
	}
	rc =
	    creds_from_json(resp.body.data, resp.body.len, "container", c, err);
out:
	creds_free_text(auth, alen);
	http_request_free(&req);
	http_response_free(&resp);
	return rc;
}

/* --- IMDSv2 ----------------------------------------------------------- */

static sw_err
imds_get(struct creds_provider *p, const char *base, const char *method,
    const char *path, int with_token, struct http_response *resp)
{
	struct http_request req;
	char ttl[32];
	sw_err rc;

	if ((rc = http_request_init(&req, method, base, path, NULL)) != SW_OK)
		return rc;
	if (strcmp(method, "PUT") == 0) {
		if ((rc = sw_fmt(ttl, sizeof(ttl), "%d",
			 SW_AWS_IMDS_TOKEN_TTL)) == SW_OK)
			rc = http_headers_add(&req.headers,
			    "x-aws-ec2-metadata-token-ttl-seconds", ttl);
	} else if (with_token)
		rc = http_headers_add(
		    &req.headers, "x-aws-ec2-metadata-token", p->imds_token);
	if (rc == SW_OK)
		rc = http_perform(&p->http, &req, resp);
	http_request_free(&req);
	return rc;
}

sw_err
creds_from_imds(
    struct creds_provider *p, struct aws_creds *c, struct aws_error *err)
{
	struct http_response resp;
	char base[SW_AWS_MAX_URL], role[256], path[512];
	const char *v;
	size_t n;
	int v2 = 1;
	sw_err rc;

	memset(c, 0, sizeof(*c));
	http_response_init(&resp, SW_MAX_BODY);
	if (env_true("AWS_EC2_METADATA_DISABLED")) {
		rc = SW_ENOTFOUND;
		goto out;
	}
	if ((v = env_nonempty("AWS_EC2_METADATA_SERVICE_ENDPOINT")) == NULL) {
		v = env_nonempty("AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE");
		v = v != NULL && strcasecmp(v, "IPv6") == 0 ? IMDS_DEFAULT6
							    : IMDS_DEFAULT;
	}
	if (sw_fmt(base, sizeof(base), "%s", v) != SW_OK) {
		creds_fail(err, "InvalidIMDSEndpoint",
		    "IMDS endpoint too "
		    "long");
		rc = SW_EINVAL;
		goto out;
	}
	n = strlen(base);
	while (n > 0 && base[n - 1] == '/')
		base[--n] = '\0';
	p->http.connect_timeout_ms = SW_AWS_METADATA_TIMEOUT_MS;
	p->http.timeout_ms = SW_AWS_METADATA_TIMEOUT_MS;

	if (p->imds_token[0] == '\0' || p->now() >= p->imds_token_until) {
		rc = imds_get(p, base, "PUT", "/latest/api/token", 0, &resp);
		if (rc == SW_OK && resp.status == 200 && resp.body.len > 0 &&
		    resp.body.len < sizeof(p->imds_token)) {
			memcpy(
			    p->imds_token, resp.body.data, resp.body.len + 1);
			p->imds_token_until =
			    p->now() + SW_AWS_IMDS_TOKEN_REUSE;
		} else if (rc == SW_OK && resp.status == 400) {
			creds_fail(err, "IMDSTokenRefused",
			    "IMDS refused "
			    "the token request (400)");
			rc = SW_EUNAVAIL;
			goto out;
		} else if ((rc == SW_ETIMEOUT ||
			       (rc == SW_OK &&
				   (resp.status == 403 || resp.status == 404 ||
				       resp.status == 405))) &&
		    !env_true("AWS_EC2_METADATA_V1_DISABLED")) {
			v2 = 0; /* IMDSv1 fallback */
		} else {
			/* Nothing listening: not on EC2, no provider. */
			creds_fail(err, "NoCredentialProviders",
			    "IMDS not reachable at %s", base);
			rc = SW_ENOTFOUND;
			goto out;
		}
	}
	if ((rc = imds_get(p, base, "GET", IMDS_CREDS_PATH, v2, &resp)) !=
		SW_OK ||
	    resp.status != 200 || resp.body.len == 0) {
		creds_fail(err, "IMDSNoRole",
		    "no IAM role on this instance "
		    "(HTTP %ld)",
		    resp.status);
		/* A 401 means our token went stale: fetch one next time. */
		if (rc == SW_OK && resp.status == 401)
			p->imds_token[0] = '\0';
		rc = rc == SW_OK && resp.status == 404 ? SW_ENOTFOUND
						       : SW_EUNAVAIL;
		goto out;
	}
	n = strcspn(resp.body.data, "\r\n");
	if (n == 0 || n >= sizeof(role) || strchr(resp.body.data, '/')) {
		creds_fail(err, "IMDSNoRole", "bad role name from IMDS");
		rc = SW_EUNAVAIL;
		goto out;
	}
	memcpy(role, resp.body.data, n);
	role[n] = '\0';
	if ((rc = sw_fmt(path, sizeof(path), "%s%s", IMDS_CREDS_PATH, role)) !=
	    SW_OK)
		goto out;
	if ((rc = imds_get(p, base, "GET", path, v2, &resp)) != SW_OK ||
	    resp.status != 200) {
		creds_fail(err, "IMDSCredentials",
		    "IMDS credentials for %s: "
		    "HTTP %ld",
		    role, resp.status);
		rc = SW_EUNAVAIL;
		goto out;
	}
	rc = creds_from_json(resp.body.data, resp.body.len, "imds", c, err);
out:
	http_response_free(&resp);
	return rc;
}

/* --- the chain -------------------------------------------------------- */

static sw_err
creds_resolve(
    struct creds_provider *p, struct aws_creds *c, struct aws_error *err)
{
	const char *profile = env_nonempty("AWS_PROFILE");
	const char *wtf, *role;
	sw_err rc;

	if (profile != NULL) {
		/* An explicit profile wins over environment keys. */
		if ((rc = creds_from_profile(p, profile, c, err)) !=
		    SW_ENOTFOUND)
			return rc;
		creds_fail(err, "ProfileNotFound",
		    "AWS_PROFILE %s has no "
		    "credentials",
		    profile);
		return SW_EUNAVAIL;
	}
	if ((rc = creds_from_env(c)) != SW_ENOTFOUND) {
		if (rc != SW_OK)
			creds_fail(err, "InvalidEnvironment",
			    "AWS_* "
			    "credential variables are malformed");
		return rc == SW_OK ? rc : SW_EUNAVAIL;
	}
	wtf = env_nonempty("AWS_WEB_IDENTITY_TOKEN_FILE");
	role = env_nonempty("AWS_ROLE_ARN");
	if (wtf != NULL && role != NULL)
		return creds_from_web_identity(p, wtf, role,
		    env_nonempty("AWS_ROLE_SESSION_NAME"), c, err);
	if ((rc = creds_from_container(p, c, err)) != SW_ENOTFOUND)
		return rc;
	if ((rc = creds_from_profile(p, "default", c, err)) != SW_ENOTFOUND)
		return rc;
	if ((rc = creds_from_imds(p, c, err)) != SW_ENOTFOUND)
		return rc;
	creds_fail(err, "NoCredentialProviders",
	    "no AWS credentials: set "
	    "AWS_ACCESS_KEY_ID, a profile, web identity, a container "
	    "endpoint, or run with an instance role");
	return SW_EUNAVAIL;
}

sw_err
creds_get(
    struct creds_provider *p, struct aws_creds *out, struct aws_error *err)
{
	struct aws_creds fresh;
	struct aws_error tmp;
	time_t now = p->now();
	sw_err rc;

	if (err == NULL)
		err = &tmp;
	if (p->have &&
	    (p->fixed || p->cached.expiration == 0 ||
		now < p->cached.expiration - SW_AWS_CREDS_ADVISORY)) {
		*out = p->cached;
		return SW_OK;
	}
	rc = creds_resolve(p, &fresh, err);
	if (rc == SW_OK) {
		p->cached = fresh;
		p->have = 1;
		*out = fresh;
		OPENSSL_cleanse(&fresh, sizeof(fresh));
		return SW_OK;
	}
	OPENSSL_cleanse(&fresh, sizeof(fresh));
	/* A failed advisory refresh keeps the old keys a little longer. */
	if (p->have && now < p->cached.expiration - SW_AWS_CREDS_MANDATORY) {
		*out = p->cached;
		return SW_OK;
	}
	p->have = 0;
	return rc;
}
