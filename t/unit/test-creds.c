/*
 * test-creds.c: every credential provider against a local fake
 * endpoint (STS for web identity, the container agent, IMDSv2), the
 * shared files with profiles, the chain order, and the cache with its
 * advisory and mandatory refresh windows under an injected clock.
 */
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cloud/creds.h"
#include "t/tap.h"
#include "t/unit/awstest.h"

#define EXP_2030 1893456000 /* 2030-01-01T00:00:00Z */

static struct {
	int imds_v1; /* answer the token PUT with 403 */
	int fail; /* answer everything with 500 */
	char key[32]; /* AccessKeyId to hand out */
	char auth[256];
	char imds_tok[256];
	char ttl[32];
	char body[4096];
	char log[1024]; /* "PUT /latest/api/token;GET ..." */
} f;

static time_t now;

static time_t
clock_fn(void)
{
	return now;
}

static void
handler(void *arg, const struct fake_req *req, struct fake_reply *rep)
{
	static char out[2048];
	size_t len = strlen(f.log);

	(void)arg;
	snprintf(f.log + len, sizeof(f.log) - len, "%s%s %.200s",
	    len ? ";" : "", req->method, req->target);
	f.auth[0] = f.imds_tok[0] = f.ttl[0] = '\0';
	fake_header(req, "Authorization", f.auth, sizeof(f.auth));
	fake_header(
	    req, "x-aws-ec2-metadata-token", f.imds_tok, sizeof(f.imds_tok));
	fake_header(
	    req, "x-aws-ec2-metadata-token-ttl-seconds", f.ttl, sizeof(f.ttl));
	snprintf(f.body, sizeof(f.body), "%s", req->body);
	if (f.fail) {
		rep->status = 500;
		return;
	}
	if (strcmp(req->target, "/latest/api/token") == 0) {
		if (f.imds_v1 || strcmp(req->method, "PUT") != 0) {
			rep->status = 403;
			return;
		}
		rep->body = "imds-session-token";
	} else if (strcmp(req->target,
		       "/latest/meta-data/iam/security-credentials/") == 0) {
		if (!f.imds_v1 && strcmp(f.imds_tok, "imds-session-token")) {
			rep->status = 401;
			return;
		}
		rep->body = "hyperpod-node-role\n";
	} else if (strncmp(req->target,
		       "/latest/meta-data/iam/security-"
		       "credentials/hyperpod-node-role",
		       51) == 0 ||
	    strcmp(req->target, "/v1/credentials") == 0) {
		snprintf(out, sizeof(out),
		    "{\"Code\":\"Success\","
		    "\"AccessKeyId\":\"%s\",\"SecretAccessKey\":\"sk\","
		    "\"Token\":\"tok\",\"Expiration\":\"2030-01-01T00:00:00Z\","
		    "\"AccountId\":\"123456789012\"}",
		    f.key);
		rep->body = out;
	} else if (strcmp(req->method, "POST") == 0) {
		snprintf(out, sizeof(out),
		    "<AssumeRoleWithWebIdentityResponse "
		    "xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\">"
		    "<AssumeRoleWithWebIdentityResult><Credentials>"
		    "<AccessKeyId>%s</AccessKeyId><SecretAccessKey>wsk"
		    "</SecretAccessKey><SessionToken>wtok</SessionToken>"
		    "<Expiration>2030-01-01T00:00:00Z</Expiration>"
		    "</Credentials></AssumeRoleWithWebIdentityResult>"
		    "</AssumeRoleWithWebIdentityResponse>",
		    f.key);
		rep->body = out;
	} else
		rep->status = 404;
	rep->body_len = rep->body ? strlen(rep->body) : 0;
}

static void
clear_env(void)
{
	static const char *const vars[] = { "AWS_ACCESS_KEY_ID",
		"AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
		"AWS_SECURITY_TOKEN", "AWS_CREDENTIAL_EXPIRATION",
		"AWS_PROFILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE",
		"AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN",
		"AWS_ROLE_SESSION_NAME", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
		"AWS_CONTAINER_AUTHORIZATION_TOKEN",
		"AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
		"AWS_EC2_METADATA_SERVICE_ENDPOINT",
		"AWS_EC2_METADATA_DISABLED", "AWS_EC2_METADATA_V1_DISABLED",
		"AWS_ACCOUNT_ID", NULL };
	int i;

	for (i = 0; vars[i] != NULL; i++)
		unsetenv(vars[i]);
	setenv("AWS_EC2_METADATA_DISABLED", "true", 1);
}

static void
write_file(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	if (fp != NULL) {
		fputs(text, fp);
		fclose(fp);
	}
}

int
main(void)
{
	struct fake_server *srv;
	struct creds_provider p;
	struct aws_creds c;
	struct aws_error e;
	char dir[] = "/tmp/sw-creds-XXXXXX", path[512];
	char base[64], url[128], text[512];
	sw_err rc;

	if (mkdtemp(dir) == NULL ||
	    (srv = fake_start(handler, NULL, NULL, NULL)) == NULL)
		skip_all("cannot make a temp dir or test server");
	snprintf(base, sizeof(base), "http://127.0.0.1:%d", fake_port(srv));
	clear_env();
	setenv("HOME", dir, 1);
	creds_init(&p, base, "us-west-2");
	p.now = clock_fn;
	now = EXP_2030 - 3 * 3600;

	/* Environment. */
	ok(creds_from_env(&c) == SW_ENOTFOUND, "env: not configured");
	setenv("AWS_ACCESS_KEY_ID", "AKIDENV", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "envsecret", 1);
	setenv("AWS_SESSION_TOKEN", "envtoken", 1);
	ok(creds_from_env(&c) == SW_OK &&
		strcmp(c.access_key, "AKIDENV") == 0 &&
		strcmp(c.token, "envtoken") == 0 && c.expiration == 0,
	    "env: keys and session token");
	setenv("AWS_CREDENTIAL_EXPIRATION", "2030-01-01T00:00:00Z", 1);
	ok(creds_from_env(&c) == SW_OK && c.expiration == EXP_2030,
	    "env: AWS_CREDENTIAL_EXPIRATION");
	ok(creds_get(&p, &c, &e) == SW_OK && strcmp(c.source, "env") == 0,
	    "chain: env first");
	clear_env();
	creds_invalidate(&p);

	/* Shared files and profiles. */
	snprintf(path, sizeof(path), "%s/credentials", dir);
	write_file(path,
	    "# comment\n[default]\naws_access_key_id = AKIDDEF\n"
	    "aws_secret_access_key=defsecret\n\n[dev]\n"
	    "aws_access_key_id = AKIDDEV\naws_secret_access_key = devsecret\n"
	    "aws_session_token = devtoken\n");
	setenv("AWS_SHARED_CREDENTIALS_FILE", path, 1);
	snprintf(path, sizeof(path), "%s/config", dir);
	snprintf(text, sizeof(text),
	    "[default]\nregion = us-west-2\n"
	    "[profile cfgonly]\naws_access_key_id = AKIDCFG\n"
	    "aws_secret_access_key = cfgsecret\n[profile irsa]\n"
	    "role_arn = arn:aws:iam::123456789012:role/irsa\n"
	    "web_identity_token_file = %s/wit\n",
	    dir);
	write_file(path, text);
	setenv("AWS_CONFIG_FILE", path, 1);
	ok(creds_config_region(text, sizeof(text)) == SW_OK &&
		strcmp(text, "us-west-2") == 0,
	    "config: region of the profile");
	ok(creds_from_profile(&p, "default", &c, &e) == SW_OK &&
		strcmp(c.access_key, "AKIDDEF") == 0 &&
		strcmp(c.secret_key, "defsecret") == 0,
	    "profile: default");
	ok(creds_from_profile(&p, "dev", &c, &e) == SW_OK &&
		strcmp(c.token, "devtoken") == 0,
	    "profile: named, with token");
	ok(creds_from_profile(&p, "cfgonly", &c, &e) == SW_OK &&
		strcmp(c.access_key, "AKIDCFG") == 0,
	    "profile: keys in the config file ([profile x])");
	ok(creds_from_profile(&p, "nope", &c, &e) == SW_ENOTFOUND,
	    "profile: unknown");
	setenv("AWS_ACCESS_KEY_ID", "AKIDENV", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "envsecret", 1);
	setenv("AWS_PROFILE", "dev", 1);
	ok(creds_get(&p, &c, &e) == SW_OK &&
		strcmp(c.access_key, "AKIDDEV") == 0,
	    "chain: AWS_PROFILE beats env keys");
	creds_invalidate(&p);
	setenv("AWS_PROFILE", "missing", 1);
	ok(creds_get(&p, &c, &e) == SW_EUNAVAIL &&
		strcmp(e.code, "ProfileNotFound") == 0,
	    "chain: a missing explicit profile is an error");
	unsetenv("AWS_PROFILE");
	unsetenv("AWS_ACCESS_KEY_ID");
	unsetenv("AWS_SECRET_ACCESS_KEY");
	creds_invalidate(&p);

	/* Web identity (IRSA) through the fake STS. */
	snprintf(path, sizeof(path), "%s/wit", dir);
	write_file(path, "eyJhbGciOiJSUzI1NiJ9.irsa-token\n");
	snprintf(f.key, sizeof(f.key), "ASIAWEB1");
	f.log[0] = '\0';
	rc = creds_from_web_identity(
	    &p, path, "arn:aws:iam::123456789012:role/irsa", "sess", &c, &e);
	is_int(rc, SW_OK, "web identity: AssumeRoleWithWebIdentity");
	ok(strcmp(c.access_key, "ASIAWEB1") == 0 &&
		strcmp(c.token, "wtok") == 0 && c.expiration == EXP_2030,
	    "web identity: credentials and expiration");
	is_str(f.body,
	    "Action=AssumeRoleWithWebIdentity&Version=2011-06-15"
	    "&RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Firsa"
	    "&RoleSessionName=sess&WebIdentityToken=eyJhbGciOiJSUzI1NiJ9."
	    "irsa-token",
	    "web identity: form body");
	is_str(f.auth, "", "web identity: unsigned");
	setenv("AWS_WEB_IDENTITY_TOKEN_FILE", path, 1);
	setenv("AWS_ROLE_ARN", "arn:aws:iam::123456789012:role/irsa", 1);
	ok(creds_get(&p, &c, &e) == SW_OK &&
		strcmp(c.source, "web-identity") == 0,
	    "chain: web identity");
	unsetenv("AWS_WEB_IDENTITY_TOKEN_FILE");
	unsetenv("AWS_ROLE_ARN");
	creds_invalidate(&p);
	setenv("AWS_PROFILE", "irsa", 1);
	ok(creds_get(&p, &c, &e) == SW_OK &&
		strcmp(c.source, "web-identity") == 0,
	    "profile with web_identity_token_file");
	unsetenv("AWS_PROFILE");
	unsetenv("AWS_SHARED_CREDENTIALS_FILE");
	unsetenv("AWS_CONFIG_FILE");
	creds_invalidate(&p);

	/* Container endpoint (EKS Pod Identity style). */
	snprintf(url, sizeof(url), "%s/v1/credentials", base);
	setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", url, 1);
	snprintf(path, sizeof(path), "%s/pod-identity-token", dir);
	write_file(path, "pod-identity-jwt\n");
	setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", path, 1);
	snprintf(f.key, sizeof(f.key), "ASIAPOD1");
	rc = creds_from_container(&p, &c, &e);
	ok(rc == SW_OK && strcmp(c.access_key, "ASIAPOD1") == 0 &&
		strcmp(c.account_id, "123456789012") == 0 &&
		c.expiration == EXP_2030,
	    "container: credentials");
	is_str(f.auth, "pod-identity-jwt", "container: token from the file");
	unsetenv("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE");
	setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN", "bad\r\nX-Evil: 1", 1);
	ok(creds_from_container(&p, &c, &e) == SW_EUNAVAIL,
	    "container: CR/LF in the token refused");
	setenv("AWS_CONTAINER_AUTHORIZATION_TOKEN", "env-token", 1);
	ok(creds_from_container(&p, &c, &e) == SW_OK &&
		strcmp(f.auth, "env-token") == 0,
	    "container: token from env");
	setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", "http://example.com/creds",
	    1);
	ok(creds_from_container(&p, &c, &e) == SW_EUNAVAIL,
	    "container: plain http to a remote host refused");
	setenv("AWS_CONTAINER_CREDENTIALS_FULL_URI", url, 1);

	/* Cache and refresh windows. */
	creds_invalidate(&p);
	f.log[0] = '\0';
	now = EXP_2030 - 3600;
	ok(creds_get(&p, &c, &e) == SW_OK && strcmp(c.source, "container") == 0,
	    "chain: container endpoint");
	now = EXP_2030 - 20 * 60;
	snprintf(f.key, sizeof(f.key), "ASIAPOD2");
	creds_get(&p, &c, &e);
	is_str(c.access_key, "ASIAPOD1", "cache: reused 20 min before expiry");
	now = EXP_2030 - 14 * 60;
	creds_get(&p, &c, &e);
	is_str(c.access_key, "ASIAPOD2", "cache: refreshed 14 min before");
	snprintf(f.key, sizeof(f.key), "ASIAPOD3");
	p.cached.expiration = EXP_2030;
	f.fail = 1;
	now = EXP_2030 - 12 * 60;
	ok(creds_get(&p, &c, &e) == SW_OK &&
		strcmp(c.access_key, "ASIAPOD2") == 0,
	    "cache: failed advisory refresh keeps the old keys");
	now = EXP_2030 - 9 * 60;
	ok(creds_get(&p, &c, &e) == SW_EUNAVAIL,
	    "cache: past the mandatory mark a failure is an error");
	f.fail = 0;
	unsetenv("AWS_CONTAINER_CREDENTIALS_FULL_URI");
	unsetenv("AWS_CONTAINER_AUTHORIZATION_TOKEN");
	creds_invalidate(&p);

	/* IMDSv2: token PUT, role, credentials. */
	unsetenv("AWS_EC2_METADATA_DISABLED");
	setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", base, 1);
	snprintf(f.key, sizeof(f.key), "ASIAIMDS");
	f.log[0] = '\0';
	now = EXP_2030 - 3600;
	rc = creds_from_imds(&p, &c, &e);
	ok(rc == SW_OK && strcmp(c.access_key, "ASIAIMDS") == 0 &&
		strcmp(c.source, "imds") == 0,
	    "imds: credentials");
	is_str(f.log,
	    "PUT /latest/api/token;GET /latest/meta-data/iam/"
	    "security-credentials/;GET /latest/meta-data/iam/security-"
	    "credentials/hyperpod-node-role",
	    "imds: token, role, creds");
	is_str(f.ttl, "", "imds: ttl header only on the PUT");
	is_str(f.imds_tok, "imds-session-token", "imds: token header sent");
	f.log[0] = '\0';
	creds_from_imds(&p, &c, &e);
	ok(strncmp(f.log, "GET ", 4) == 0, "imds: session token reused");
	p.imds_token[0] = '\0';
	f.imds_v1 = 1;
	f.log[0] = '\0';
	ok(creds_from_imds(&p, &c, &e) == SW_OK && f.imds_tok[0] == '\0',
	    "imds: v1 fallback after 403 on the token PUT");
	setenv("AWS_EC2_METADATA_V1_DISABLED", "true", 1);
	p.imds_token[0] = '\0';
	ok(creds_from_imds(&p, &c, &e) != SW_OK,
	    "imds: no v1 fallback when disabled");
	unsetenv("AWS_EC2_METADATA_V1_DISABLED");
	f.imds_v1 = 0;
	ok(creds_get(&p, &c, &e) == SW_OK && strcmp(c.source, "imds") == 0,
	    "chain: IMDS last");

	/* Nothing configured at all. */
	clear_env();
	creds_invalidate(&p);
	ok(creds_get(&p, &c, &e) == SW_EUNAVAIL &&
		strcmp(e.code, "NoCredentialProviders") == 0,
	    "chain: nothing configured");
	creds_set_static(&p, "AKIDSTATIC", "s", NULL);
	ok(creds_get(&p, &c, &e) == SW_OK &&
		strcmp(c.access_key, "AKIDSTATIC") == 0,
	    "static keys");

	creds_free(&p);
	fake_stop(srv);
	snprintf(path, sizeof(path), "%s/credentials", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/config", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/wit", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/pod-identity-token", dir);
	unlink(path);
	rmdir(dir);
	return tap_done();
}
