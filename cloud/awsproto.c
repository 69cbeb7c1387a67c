/*
 * awsproto.c: request encoding, response decoding and error parsing
 * for the AWS protocols (see awsproto.h).  XML goes through libxml2
 * with network access and entity expansion off; error codes are
 * cleaned the way botocore cleans them, so a code compares equal
 * whatever the protocol dressed it in.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>

#include "lib/buf.h"
#include "cloud/awsproto.h"
#include "lib/url.h"

#define XML_OPTS \
	(XML_PARSE_NONET | XML_PARSE_NOBLANKS | XML_PARSE_NOERROR | \
	    XML_PARSE_NOWARNING | XML_PARSE_NOCDATA)

void
aws_error_clear(struct aws_error *e)
{
	memset(e, 0, sizeof(*e));
}

static void
aws_copy(char *dst, size_t dsz, const char *src, size_t len)
{
	if (src == NULL) {
		dst[0] = '\0';
		return;
	}
	if (len >= dsz)
		len = dsz - 1;
	memcpy(dst, src, len);
	dst[len] = '\0';
}

static void
aws_copys(char *dst, size_t dsz, const char *src)
{
	aws_copy(dst, dsz, src, src != NULL ? strlen(src) : 0);
}

void
aws_error_transport(struct aws_error *e, sw_err rc, const char *msg)
{
	aws_error_clear(e);
	e->transport = 1;
	e->timeout = rc == SW_ETIMEOUT;
	e->unsent = rc == SW_ECONFLICT;
	aws_copys(e->code, sizeof(e->code),
	    rc == SW_ETIMEOUT ? "RequestTimeout" : "ConnectionError");
	aws_copys(e->message, sizeof(e->message), msg);
	retry_flag(e);
}

void
awsproto_clean_code(char *code)
{
	char *p;

	code[strcspn(code, ":")] = '\0';
	if ((p = strrchr(code, '#')) != NULL)
		memmove(code, p + 1, strlen(p + 1) + 1);
}

sw_err
aws_error_sw(const struct aws_error *e)
{
	static const char *const notfound[] = { "NoSuchEntity", "NoSuchBucket",
		"NoSuchKey", "ResourceNotFound", "ResourceNotFoundException",
		"NotFoundException", "FileSystemNotFound", "NoSuchQuota",
		NULL };
	static const char *const conflict[] = { "EntityAlreadyExists",
		"ResourceInUse", "ResourceInUseException",
		"ResourceExistsException", "ConflictException",
		"BucketAlreadyOwnedByYou", "BucketAlreadyExists",
		"DependencyViolation", "InvalidGroup.Duplicate",
		"InvalidPermission.Duplicate", "AlreadyExistsException",
		"EntityAlreadyExistsException", "RouteAlreadyExists",
		"Resource.AlreadyAssociated", NULL };
	size_t i, n;

	switch (e->throttling ? RETRY_THROTTLE : retry_classify(e)) {
	case RETRY_THROTTLE:
		return SW_ETHROTTLED;
	case RETRY_TIMEOUT:
		return SW_ETIMEOUT;
	case RETRY_TRANSIENT:
		return SW_EUNAVAIL;
	case RETRY_NONE:
		break;
	}
	for (i = 0; notfound[i] != NULL; i++)
		if (strcmp(e->code, notfound[i]) == 0)
			return SW_ENOTFOUND;
	n = strlen(e->code);
	if (n > 9 && strcmp(e->code + n - 9, ".NotFound") == 0)
		return SW_ENOTFOUND;
	for (i = 0; conflict[i] != NULL; i++)
		if (strcmp(e->code, conflict[i]) == 0)
			return SW_ECONFLICT;
	/* An account limit: the request is sound, the account cannot
	 * hold it (a quota to raise, something to delete). */
	if (strcmp(e->code, "ResourceLimitExceeded") == 0)
		return SW_EPRECONDITION;
	if (e->http_status == 404)
		return SW_ENOTFOUND;
	if (e->http_status == 409)
		return SW_ECONFLICT;
	return SW_EUPSTREAM;
}

static xmlDocPtr
aws_xml_read(const char *xml, size_t len)
{
	if (xml == NULL || len == 0 || len > SW_MAX_UPSTREAM_BODY)
		return NULL;
	return xmlReadMemory(xml, (int)len, "aws.xml", NULL, XML_OPTS);
}

/* Text of the first node of expr in doc, into out; 0 if found. */
static int
aws_xpath_doc(xmlDocPtr doc, const char *expr, char *out, size_t outsz)
{
	xmlXPathContextPtr ctx = NULL;
	xmlXPathObjectPtr res = NULL;
	xmlChar *text = NULL;
	int rc = -1;

	out[0] = '\0';
	if ((ctx = xmlXPathNewContext(doc)) == NULL)
		goto out;
	res = xmlXPathEvalExpression((const xmlChar *)expr, ctx);
	if (res == NULL || res->type != XPATH_NODESET ||
	    res->nodesetval == NULL || res->nodesetval->nodeNr < 1)
		goto out;
	if ((text = xmlNodeGetContent(res->nodesetval->nodeTab[0])) == NULL)
		goto out;
	aws_copys(out, outsz, (const char *)text);
	rc = 0;
out:
	xmlFree(text);
	xmlXPathFreeObject(res);
	xmlXPathFreeContext(ctx);
	return rc;
}

sw_err
awsproto_xpath_text(
    const char *xml, size_t len, const char *expr, char *out, size_t outsz)
{
	xmlDocPtr doc;
	int r;

	if (outsz == 0)
		return SW_EINVAL;
	out[0] = '\0';
	if ((doc = aws_xml_read(xml, len)) == NULL)
		return SW_EUPSTREAM;
	r = aws_xpath_doc(doc, expr, out, outsz);
	xmlFreeDoc(doc);
	return r == 0 ? SW_OK : SW_ENOTFOUND;
}

#define LN(x) "*[local-name()='" x "']"

static void
aws_err_xml(const struct http_response *resp, struct aws_error *e,
    enum aws_protocol proto)
{
	xmlDocPtr doc;

	if ((doc = aws_xml_read(resp->body.data, resp->body.len)) == NULL)
		return;
	switch (proto) {
	case AWS_PROTO_EC2:
		/* <Response><Errors><Error><Code/><Message/></Error>
		 * </Errors><RequestID/></Response> */
		aws_xpath_doc(doc,
		    "/" LN("Response") "/" LN("Errors") "/" LN("Error") "/" LN(
			"Code"),
		    e->code, sizeof(e->code));
		aws_xpath_doc(doc,
		    "/" LN("Response") "/" LN("Errors") "/" LN("Error") "/" LN(
			"Message"),
		    e->message, sizeof(e->message));
		aws_xpath_doc(doc, "/" LN("Response") "/" LN("RequestID"),
		    e->request_id, sizeof(e->request_id));
		break;
	case AWS_PROTO_QUERY:
		/* <ErrorResponse><Error><Type/><Code/><Message/></Error>
		 * <RequestId/></ErrorResponse> */
		aws_xpath_doc(doc,
		    "/" LN("ErrorResponse") "/" LN("Error") "/" LN("Code"),
		    e->code, sizeof(e->code));
		aws_xpath_doc(doc,
		    "/" LN("ErrorResponse") "/" LN("Error") "/" LN("Message"),
		    e->message, sizeof(e->message));
		aws_xpath_doc(doc, "/" LN("ErrorResponse") "/" LN("RequestId"),
		    e->request_id, sizeof(e->request_id));
		break;
	default:
		/* S3: <Error><Code/><Message/><RequestId/></Error>;
		 * other rest-xml services wrap it in <ErrorResponse>. */
		if (aws_xpath_doc(doc, "/" LN("Error") "/" LN("Code"), e->code,
			sizeof(e->code)) == 0) {
			aws_xpath_doc(doc, "/" LN("Error") "/" LN("Message"),
			    e->message, sizeof(e->message));
			if (e->request_id[0] == '\0')
				aws_xpath_doc(doc,
				    "/" LN("Error") "/" LN("RequestId"),
				    e->request_id, sizeof(e->request_id));
			if (e->region[0] == '\0')
				aws_xpath_doc(doc,
				    "/" LN("Error") "/" LN("Region"), e->region,
				    sizeof(e->region));
		} else {
			aws_xpath_doc(doc, "//" LN("Error") "/" LN("Code"),
			    e->code, sizeof(e->code));
			aws_xpath_doc(doc, "//" LN("Error") "/" LN("Message"),
			    e->message, sizeof(e->message));
			aws_xpath_doc(doc, "//" LN("RequestId"), e->request_id,
			    sizeof(e->request_id));
		}
		break;
	}
	xmlFreeDoc(doc);
}

void
awsproto_request_id(enum aws_protocol proto, const struct http_response *resp,
    char *out, size_t outsz)
{
	const char *h;

	out[0] = '\0';
	if ((h = http_headers_get(&resp->headers, "x-amzn-RequestId")) !=
		NULL ||
	    (h = http_headers_get(&resp->headers, "x-amz-request-id")) != NULL)
		aws_copys(out, outsz, h);
	else if (proto == AWS_PROTO_EC2 || proto == AWS_PROTO_QUERY)
		(void)awsproto_xpath_text(resp->body.data, resp->body.len,
		    "/*/" LN("requestId") " | /*/" LN(
			"ResponseMetadata") "/" LN("RequestId"),
		    out, outsz);
}

static const char *
aws_jstr(json_object *o, const char *k)
{
	json_object *v;

	if (o == NULL || !json_object_object_get_ex(o, k, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

static void
aws_err_json(const struct http_response *resp, struct aws_error *e,
    enum aws_protocol proto)
{
	json_tokener *tok;
	json_object *o = NULL;
	const char *h, *v;

	if (resp->body.len > 0 && (tok = json_tokener_new()) != NULL) {
		o = json_tokener_parse_ex(
		    tok, resp->body.data, (int)resp->body.len);
		json_tokener_free(tok);
		if (o != NULL && !json_object_is_type(o, json_type_object)) {
			json_object_put(o);
			o = NULL;
		}
	}
	if (proto == AWS_PROTO_REST_JSON &&
	    (h = http_headers_get(&resp->headers, "x-amzn-ErrorType")) != NULL)
		aws_copys(e->code, sizeof(e->code), h);
	if ((h = http_headers_get(&resp->headers, "x-amzn-query-error")) !=
	    NULL)
		aws_copy(e->code, sizeof(e->code), h, strcspn(h, ";"));
	if (e->code[0] == '\0' && proto == AWS_PROTO_REST_JSON &&
	    ((v = aws_jstr(o, "code")) != NULL ||
		(v = aws_jstr(o, "Code")) != NULL))
		aws_copys(e->code, sizeof(e->code), v);
	if (e->code[0] == '\0' && (v = aws_jstr(o, "__type")) != NULL)
		aws_copys(e->code, sizeof(e->code), v);
	if ((v = aws_jstr(o, "message")) != NULL ||
	    (v = aws_jstr(o, "Message")) != NULL ||
	    (v = aws_jstr(o, "errorMessage")) != NULL)
		aws_copys(e->message, sizeof(e->message), v);
	json_object_put(o);
}

void
awsproto_parse_error(enum aws_protocol proto, const struct http_response *resp,
    struct aws_error *e)
{
	const char *h;
	size_t n;

	aws_error_clear(e);
	e->http_status = resp->status;
	if ((h = http_headers_get(&resp->headers, "x-amzn-RequestId")) !=
		NULL ||
	    (h = http_headers_get(&resp->headers, "x-amz-request-id")) != NULL)
		aws_copys(e->request_id, sizeof(e->request_id), h);
	if ((h = http_headers_get(&resp->headers, "x-amz-bucket-region")) !=
	    NULL)
		aws_copys(e->region, sizeof(e->region), h);
	switch (proto) {
	case AWS_PROTO_JSON:
	case AWS_PROTO_REST_JSON:
		aws_err_json(resp, e, proto);
		break;
	default:
		aws_err_xml(resp, e, proto);
		break;
	}
	awsproto_clean_code(e->code);
	/* No code at all (HEAD, empty or foreign body): the status. */
	if (e->code[0] == '\0')
		sw_fmt_text(e->code, sizeof(e->code), "%ld", resp->status);
	if (e->message[0] == '\0' && resp->body.len > 0 &&
	    resp->body.data[0] != '<' && resp->body.data[0] != '{') {
		n = resp->body.len < 200 ? resp->body.len : 200;
		aws_copy(e->message, sizeof(e->message), resp->body.data, n);
	}
	retry_flag(e);
}

/* --- XML to JSON ---------------------------------------------------- */

static json_object *aws_xml_node(xmlNodePtr);

static int
aws_xml_children(
    xmlNodePtr n, size_t *count, const xmlChar **first, int *uniform)
{
	xmlNodePtr c;

	*count = 0;
	*first = NULL;
	*uniform = 1;
	for (c = n->children; c != NULL; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (*first == NULL)
			*first = c->name;
		else if (xmlStrcmp(*first, c->name) != 0)
			*uniform = 0;
		(*count)++;
	}
	return 0;
}

static json_object *
aws_xml_node(xmlNodePtr n)
{
	json_object *o, *v, *prev, *arr;
	xmlNodePtr c;
	xmlChar *text;
	const xmlChar *first;
	size_t count, len;
	int uniform;

	aws_xml_children(n, &count, &first, &uniform);
	if (count == 0) {
		len = xmlStrlen(n->name);
		text = xmlNodeGetContent(n);
		if ((text == NULL || *text == '\0') && len > 3 &&
		    strcmp((const char *)n->name + len - 3, "Set") == 0) {
			xmlFree(text);
			return json_object_new_array();
		}
		o = json_object_new_string(text ? (const char *)text : "");
		xmlFree(text);
		return o;
	}
	if (uniform &&
	    (xmlStrcmp(first, (const xmlChar *)"item") == 0 ||
		xmlStrcmp(first, (const xmlChar *)"member") == 0)) {
		if ((o = json_object_new_array()) == NULL)
			return NULL;
		for (c = n->children; c != NULL; c = c->next)
			if (c->type == XML_ELEMENT_NODE)
				json_object_array_add(o, aws_xml_node(c));
		return o;
	}
	if ((o = json_object_new_object()) == NULL)
		return NULL;
	for (c = n->children; c != NULL; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		v = aws_xml_node(c);
		if (!json_object_object_get_ex(
			o, (const char *)c->name, &prev)) {
			json_object_object_add(o, (const char *)c->name, v);
			continue;
		}
		/* A repeated element: a flattened list. */
		if (json_object_is_type(prev, json_type_array) &&
		    json_object_get_userdata(prev) == (void *)o) {
			json_object_array_add(prev, v);
			continue;
		}
		arr = json_object_new_array();
		json_object_array_add(arr, json_object_get(prev));
		json_object_array_add(arr, v);
		json_object_set_userdata(arr, o, NULL);
		json_object_object_add(o, (const char *)c->name, arr);
	}
	return o;
}

/* Clear the marks left on flattened arrays by aws_xml_node. */
static void
aws_xml_unmark(json_object *o)
{
	size_t i, n;

	if (json_object_is_type(o, json_type_array)) {
		json_object_set_userdata(o, NULL, NULL);
		n = json_object_array_length(o);
		for (i = 0; i < n; i++)
			aws_xml_unmark(json_object_array_get_idx(o, i));
	} else if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, k, v)
		{
			(void)k;
			aws_xml_unmark(v);
		}
	}
}

sw_err
awsproto_xml_to_json(const char *xml, size_t len, json_object **out)
{
	xmlDocPtr doc;
	xmlNodePtr root;
	json_object *o;

	*out = NULL;
	if ((doc = aws_xml_read(xml, len)) == NULL)
		return SW_EUPSTREAM;
	if ((root = xmlDocGetRootElement(doc)) == NULL) {
		xmlFreeDoc(doc);
		return SW_EUPSTREAM;
	}
	o = aws_xml_node(root);
	xmlFreeDoc(doc);
	if (o == NULL)
		return SW_ENOMEM;
	aws_xml_unmark(o);
	*out = o;
	return SW_OK;
}

/* --- form encoding (query and ec2) ------------------------------------ */

static const char *
aws_wire_name(
    const struct aws_rename *r, const char *op, int top, const char *member)
{
	for (; r != NULL && r->member != NULL; r++) {
		if (strcmp(r->member, member) != 0)
			continue;
		if (r->op == NULL || (top && strcmp(r->op, op) == 0))
			return r->wire;
	}
	return member;
}

static sw_err
aws_form_value(struct sw_buf *b, enum aws_protocol proto, const char *op,
    const char *prefix, json_object *v, const struct aws_rename *ren)
{
	char key[1024];
	size_t i, n;
	sw_err rc = SW_OK;

	switch (json_object_get_type(v)) {
	case json_type_null:
		return SW_OK;
	case json_type_object: {
		/* Braced: the macro declares variables, which a case
		 * label may not be followed by in C17 (clang refuses). */
		json_object_object_foreach(v, k, sub)
		{
			const char *w = aws_wire_name(ren, op, 0, k);

			if (proto != AWS_PROTO_EC2)
				w = k;
			if ((size_t)snprintf(key, sizeof(key), "%s.%s", prefix,
				w) >= sizeof(key))
				return SW_EINVAL;
			if ((rc = aws_form_value(
				 b, proto, op, key, sub, ren)) != SW_OK)
				return rc;
		}
		return SW_OK;
	}
	case json_type_array:
		n = json_object_array_length(v);
		for (i = 0; i < n; i++) {
			if ((size_t)snprintf(key, sizeof(key),
				proto == AWS_PROTO_EC2 ? "%s.%zu"
						       : "%s.member.%zu",
				prefix, i + 1) >= sizeof(key))
				return SW_EINVAL;
			if ((rc = aws_form_value(b, proto, op, key,
				 json_object_array_get_idx(v, i), ren)) !=
			    SW_OK)
				return rc;
		}
		/* An empty query list is sent as "Name=" (botocore). */
		if (n == 0 && proto == AWS_PROTO_QUERY)
			return sw_buf_printf(b, "&%s=", prefix);
		return SW_OK;
	default:
		/* Form-encoded like Python's urlencode: a space is '+'. */
		if ((rc = sw_buf_printf(b, "&%s=", prefix)) != SW_OK)
			return rc;
		return sw_pct_encode(b, json_object_get_string(v),
		    strlen(json_object_get_string(v)), SW_PCT_FORM);
	}
}

sw_err
awsproto_form(struct sw_buf *body, enum aws_protocol proto, const char *op,
    const char *version, json_object *input, const struct aws_rename *ren)
{
	sw_err rc;

	if ((rc = sw_buf_printf(body, "Action=%s&Version=%s", op, version)) !=
	    SW_OK)
		return rc;
	if (input == NULL)
		return SW_OK;
	if (!json_object_is_type(input, json_type_object))
		return SW_EINVAL;
	json_object_object_foreach(input, k, v)
	{
		const char *w =
		    proto == AWS_PROTO_EC2 ? aws_wire_name(ren, op, 1, k) : k;

		if ((rc = aws_form_value(body, proto, op, w, v, ren)) != SW_OK)
			return rc;
	}
	return SW_OK;
}

/* ---- what an error means: the cross-SDK code lists (botocore
 * retries/standard.py and special.py) --------------------------------- */

static const char *const retry_throttle_codes[] = { "Throttling",
	"ThrottlingException", "ThrottledException",
	"RequestThrottledException", "TooManyRequestsException",
	"ProvisionedThroughputExceededException",
	"TransactionInProgressException", "RequestLimitExceeded",
	"BandwidthLimitExceeded", "LimitExceededException", "RequestThrottled",
	"SlowDown", "PriorRequestNotComplete", "EC2ThrottledException", NULL };

static const char *const retry_transient_codes[] = { "RequestTimeout",
	"RequestTimeoutException", "PriorRequestNotComplete",
	"IDPCommunicationError", NULL };

static int
retry_in(const char *const *list, const char *code)
{
	size_t i;

	for (i = 0; list[i] != NULL; i++)
		if (strcmp(list[i], code) == 0)
			return 1;
	return 0;
}

int
retry_is_throttle_code(const char *code)
{
	return retry_in(retry_throttle_codes, code);
}

enum retry_kind
retry_classify(const struct aws_error *e)
{
	if (e->transport)
		return e->timeout ? RETRY_TIMEOUT : RETRY_TRANSIENT;
	if (retry_in(retry_throttle_codes, e->code) || e->http_status == 429)
		return RETRY_THROTTLE;
	if (retry_in(retry_transient_codes, e->code))
		return RETRY_TRANSIENT;
	switch (e->http_status) {
	case 500:
	case 502:
	case 503:
	case 504:
		return RETRY_TRANSIENT;
	default:
		return RETRY_NONE;
	}
}

void
retry_flag(struct aws_error *e)
{
	enum retry_kind k = retry_classify(e);

	e->retryable = k != RETRY_NONE;
	e->throttling = k == RETRY_THROTTLE;
}
