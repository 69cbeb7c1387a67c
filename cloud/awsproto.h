/*
 * awsproto.h: the wire protocols of the AWS services Slipway calls.
 * Requests are serialised from json-c input objects whose member
 * names are exactly the model's; responses come back as json-c
 * objects; every protocol's error format is parsed into one struct
 * aws_error.
 *
 *   json       SageMaker, FSx, Service Quotas: POST /, X-Amz-Target,
 *              application/x-amz-json-1.1 body and response.
 *   rest-json  EKS: method + URI template per operation, labels and
 *              query members taken from the input, JSON body.
 *   query      IAM, STS: form body Action=..&Version=.., lists as
 *              Name.member.N; XML response, the <OpResult> element is
 *              returned.
 *   ec2        EC2: form body with flattened lists Name.N under the
 *              model's wire names; XML response, the root element is
 *              returned.
 *   rest-xml   S3: handled by cloud/aws_s3.c on top of aws_send().
 *
 * XML responses become JSON keyed by element name (namespaces
 * dropped): leaves are strings, <item>/<member> children and repeated
 * elements become arrays, an empty element named "...Set" becomes [].
 * So EC2 output keys are the wire names (vpcSet, vpcId), query output
 * keys are the model names (Role, Arn).
 */
#ifndef SW_AWSPROTO_H
#define SW_AWSPROTO_H

#include <json-c/json.h>

#include "lib/buf.h"
#include "lib/err.h"
#include "cloud/http.h"
#include "lib/limits.h"

enum aws_protocol {
	AWS_PROTO_JSON,
	AWS_PROTO_REST_JSON,
	AWS_PROTO_QUERY,
	AWS_PROTO_EC2,
	AWS_PROTO_REST_XML
};

/*
 * The one error of an AWS call, whatever the protocol.  Plain data: no
 * pointers, nothing to free; clear it with aws_error_clear().
 */
struct aws_error {
	char code[SW_AWS_MAX_ERR_CODE]; /* "ThrottlingException" */
	char message[SW_AWS_MAX_ERR_MSG];
	char request_id[SW_AWS_MAX_REQUEST_ID];
	char region[SW_AWS_MAX_NAME]; /* S3 x-amz-bucket-region */
	long http_status; /* 0 when no response came back */
	int retryable; /* transient or throttling */
	int throttling;
	int transport; /* no HTTP response (connect, TLS, reset) */
	int timeout; /* the transport failure was a timeout */
	int unsent; /* refused before it was written: nothing reached AWS */
};

/* A member whose EC2 wire name is not the model name (ec2 protocol
 * only): op NULL means every operation. */
struct aws_rename {
	const char *op;
	const char *member;
	const char *wire;
};

void aws_error_clear(struct aws_error *);
/* Record a transport failure (no response) of kind rc; SW_ECONFLICT is
 * the HTTP client's refusal to send past the send-by time (unsent). */
void aws_error_transport(struct aws_error *, sw_err rc, const char *msg);
/* Fill err from a non-2xx response of the given protocol, and set the
 * retryable/throttling flags (cloud/retry.c rules). */
void awsproto_parse_error(
    enum aws_protocol, const struct http_response *, struct aws_error *err);
/* AWS's id of a successful response, into out ("" if it has none): the
 * x-amzn-RequestId or x-amz-request-id header, else the body's
 * <requestId> (ec2) or <ResponseMetadata><RequestId> (query). */
void awsproto_request_id(
    enum aws_protocol, const struct http_response *, char *out, size_t outsz);
/* Strip a namespace ("a.b#Code") and a suffix ("Code:http://...") in
 * place: what botocore does to __type and x-amzn-ErrorType. */
void awsproto_clean_code(char *code);
/*
 * The sw_err an AWS error maps to, the one place its meaning is
 * decided: transient first (retry_classify: SW_ETHROTTLED for
 * throttling, SW_ETIMEOUT for a timed-out transport, SW_EUNAVAIL for
 * other transport failures and transient 5xx answers), then
 * SW_ENOTFOUND for "no such ..."/404, SW_ECONFLICT for "already
 * exists"/"in use"/409, SW_EPRECONDITION for an account limit
 * (ResourceLimitExceeded), else SW_EUPSTREAM.  Callers branch on it
 * (sw_err_transient) and never on the aws_error's flags.
 */
sw_err aws_error_sw(const struct aws_error *);

/*
 * Convert an XML document to JSON (rules above).  *out is a new
 * reference on success.  SW_EUPSTREAM when the XML does not parse.
 */
sw_err awsproto_xml_to_json(const char *xml, size_t len, json_object **out);
/* Text of the first node matching an XPath 1.0 expression (use
 * local-name() to ignore namespaces), into out.  SW_ENOTFOUND if none. */
sw_err awsproto_xpath_text(
    const char *xml, size_t len, const char *expr, char *out, size_t outsz);

/*
 * Form-encode input (borrowed) after "Action=op&Version=version" into
 * body, as the query (lists Name.member.N, structures Name.Member)
 * or ec2 (lists Name.N, names per renames) protocol does.
 */
sw_err awsproto_form(struct sw_buf *body, enum aws_protocol, const char *op,
    const char *version, json_object *input, const struct aws_rename *renames);

/* What an AWS error means for a retry, decided where the error is
 * parsed (awsproto_parse_error, the transport) and nowhere else. */
enum retry_kind {
	RETRY_NONE = 0, /* terminal: return the error */
	RETRY_TRANSIENT, /* 5xx, RequestTimeout, connection errors */
	RETRY_THROTTLE, /* Throttling, SlowDown, 429, ... */
	RETRY_TIMEOUT /* transport timeout: costs more tokens */
};

/* Is this a throttling error code (the SDK list)? */
int retry_is_throttle_code(const char *code);
/* Kind of an error; and set err->retryable / err->throttling. */
enum retry_kind retry_classify(const struct aws_error *);
void retry_flag(struct aws_error *);

#endif
