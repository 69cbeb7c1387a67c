/*
 * creds.h: AWS credentials from the standard provider chain, cached
 * and refreshed before they expire.  Order: environment, web identity
 * (IRSA: AssumeRoleWithWebIdentity, unsigned), container endpoint (EKS
 * Pod Identity / ECS), shared config and credentials files, IMDSv2.
 * When AWS_PROFILE is set the profile is used first and environment
 * keys are ignored, as botocore does.  A provider that is not
 * configured is skipped; one that is configured but fails stops the
 * chain with its error (no silent fall-through to IMDS).
 */
#ifndef SW_CREDS_H
#define SW_CREDS_H

#include <time.h>

#include "cloud/awsproto.h"
#include "lib/err.h"
#include "cloud/http.h"
#include "lib/limits.h"

struct aws_creds {
	char access_key[SW_AWS_MAX_KEY + 1];
	char secret_key[SW_AWS_MAX_KEY + 1];
	char token[SW_AWS_MAX_TOKEN + 1]; /* "" when none */
	char account_id[32]; /* "" when unknown */
	char source[32]; /* env, profile, web-identity, ... */
	time_t expiration; /* 0: never expires */
};

struct creds_provider {
	struct aws_creds cached;
	int have; /* cached is valid */
	int fixed; /* set by creds_set_static */
	char sts_endpoint[SW_AWS_MAX_URL];
	char region[SW_AWS_MAX_NAME];
	struct http_client http; /* metadata + STS calls */
	char imds_token[SW_AWS_MAX_TOKEN + 1];
	time_t imds_token_until;
	time_t (*now)(void); /* injectable clock */
};

/*
 * Set up a provider.  sts_endpoint ("https://sts.us-west-2.amazonaws.com"
 * or a loopback sandbox URL) and region are used for web identity.
 * Free with creds_free().
 */
sw_err creds_init(
    struct creds_provider *, const char *sts_endpoint, const char *region);
void creds_free(struct creds_provider *);
/* Change the STS endpoint used for web identity (copied). */
sw_err creds_set_sts(
    struct creds_provider *, const char *sts_endpoint, const char *region);
/* Use these keys and never consult the chain (strings copied). */
sw_err creds_set_static(struct creds_provider *, const char *access_key,
    const char *secret_key, const char *token);
/* Drop the cache so the next creds_get resolves again. */
void creds_invalidate(struct creds_provider *);

/*
 * Current credentials into *out (a copy: nothing to free).  Cached
 * ones are returned until SW_AWS_CREDS_ADVISORY seconds before expiry;
 * then a refresh is tried, and a failed refresh is tolerated until
 * SW_AWS_CREDS_MANDATORY seconds before expiry.  err explains failures.
 */
sw_err creds_get(
    struct creds_provider *, struct aws_creds *out, struct aws_error *err);

/* The single providers; SW_ENOTFOUND when not configured. */
sw_err creds_from_env(struct aws_creds *);
sw_err creds_from_profile(struct creds_provider *, const char *profile,
    struct aws_creds *, struct aws_error *);
sw_err creds_from_web_identity(struct creds_provider *, const char *token_file,
    const char *role_arn, const char *session_name, struct aws_creds *,
    struct aws_error *);
sw_err creds_from_container(
    struct creds_provider *, struct aws_creds *, struct aws_error *);
sw_err creds_from_imds(
    struct creds_provider *, struct aws_creds *, struct aws_error *);

/* The region of the current profile (AWS_PROFILE, else default) in
 * the config file, into out.  SW_ENOTFOUND when none is set. */
sw_err creds_config_region(char *out, size_t outsz);

/* Parse "2015-08-30T12:36:00Z" (optional fraction); -1 when invalid. */
time_t creds_parse_time(const char *);

#endif
