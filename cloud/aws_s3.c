/*
 * aws_s3.c: the S3 calls Slipway needs (lifecycle scripts for HyperPod
 * and small state objects): buckets and objects over rest-xml.
 *
 * Addressing: virtual-hosted (https://<bucket>.s3.<region>.amazonaws
 * .com/<key>) by default, path style (<endpoint>/<bucket>/<key>) when
 * an endpoint override is set, as for the sandbox.  DeleteObjects
 * sends the SHA-256 of its body (S3 wants Content-MD5 or a checksum
 * there).  Keys are encoded once, '/' kept; the signer is told not to
 * encode or normalise again and to send x-amz-content-sha256 (SIGV4_S3,
 * chosen in aws_send()).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/tree.h>
#include <openssl/evp.h>

#include "lib/buf.h"
#include "cloud/aws_api.h"
#include "lib/limits.h"
#include "lib/url.h"
#include "cloud/sigv4.h"

/* Bucket names: 3-63 of [a-z0-9.-], starting and ending alphanumeric. */
static int
s3_bucket_ok(const char *b)
{
	size_t i, n;

	if (b == NULL || (n = strlen(b)) < 3 || n > 63)
		return 0;
	for (i = 0; i < n; i++)
		if (!islower((unsigned char)b[i]) &&
		    !isdigit((unsigned char)b[i]) && b[i] != '-' && b[i] != '.')
			return 0;
	return isalnum((unsigned char)b[0]) && isalnum((unsigned char)b[n - 1]);
}

/* Build the request for bucket/key (key may be NULL) and query. */
static sw_err
s3_request(struct aws_ctx *ctx, const char *method, const char *bucket,
    const char *key, const char *query, struct http_request *req)
{
	struct sw_buf path;
	char base[SW_AWS_MAX_URL], reg[SW_AWS_MAX_NAME];
	sw_err rc;

	memset(req, 0, sizeof(*req));
	if (!s3_bucket_ok(bucket) ||
	    (key != NULL && (*key == '\0' || strlen(key) > 1024)))
		return SW_EINVAL;
	sw_buf_init(&path, SW_MAX_PATH * 2);
	if (ctx->s3_path_style || ctx->endpoint[AWS_SVC_S3] != NULL) {
		if ((rc = aws_endpoint(ctx, AWS_SVC_S3, base, sizeof(base), reg,
			 sizeof(reg))) != SW_OK ||
		    (rc = sw_buf_printf(&path, "/%s", bucket)) != SW_OK)
			goto out;
	} else if ((size_t)snprintf(base, sizeof(base),
		       "https://%s.s3.%s.amazonaws.com", bucket,
		       ctx->region) >= sizeof(base)) {
		rc = SW_EINVAL;
		goto out;
	}
	if (key != NULL &&
	    ((rc = sw_buf_putc(&path, '/')) != SW_OK ||
		(rc = sw_pct_encode(
		     &path, key, strlen(key), SW_PCT_KEEP_SLASH)) != SW_OK))
		goto out;
	rc = http_request_init(
	    req, method, base, path.len > 0 ? sw_buf_str(&path) : "/", query);
out:
	sw_buf_free(&path);
	return rc;
}

static sw_err
s3_simple(struct aws_ctx *ctx, const char *method, const char *bucket,
    const char *key, const char *query, const void *body, size_t len,
    const char *ctype, struct sw_buf *out, struct http_response *keep,
    struct aws_error *err)
{
	struct http_request req;
	struct http_response resp;
	sw_err rc;

	aws_error_clear(err);
	http_response_init(&resp, out != NULL ? out->max : ctx->http.max_body);
	if ((rc = s3_request(ctx, method, bucket, key, query, &req)) != SW_OK) {
		sw_fmt_text(err->code, sizeof(err->code), "InvalidInput");
		goto out;
	}
	if ((body != NULL &&
		(rc = http_request_set_body(&req, body, len)) != SW_OK) ||
	    (ctype != NULL &&
		(rc = http_headers_set(&req.headers, "Content-Type", ctype)) !=
		    SW_OK))
		goto out;
	if ((rc = aws_send(ctx, AWS_SVC_S3, &req, &resp, err)) != SW_OK)
		goto out;
	if (out != NULL)
		rc = sw_buf_add(out, resp.body.data, resp.body.len);
	if (keep != NULL) {
		*keep = resp;
		http_response_init(&resp, 0);
	}
out:
	http_request_free(&req);
	http_response_free(&resp);
	return rc;
}

sw_err
aws_s3_create_bucket(
    struct aws_ctx *ctx, const char *bucket, struct aws_error *err)
{
	xmlDocPtr doc = NULL;
	xmlNodePtr root;
	xmlChar *xml = NULL;
	int len = 0;
	sw_err rc;

	/* us-east-1 takes no body; elsewhere the region is named. */
	if (strcmp(ctx->region, "us-east-1") == 0)
		return s3_simple(ctx, "PUT", bucket, NULL, NULL, NULL, 0, NULL,
		    NULL, NULL, err);
	rc = SW_ENOMEM;
	if ((doc = xmlNewDoc((const xmlChar *)"1.0")) == NULL ||
	    (root = xmlNewNode(
		 NULL, (const xmlChar *)"CreateBucketConfiguration")) == NULL)
		goto out;
	xmlDocSetRootElement(doc, root);
	xmlNewNs(root,
	    (const xmlChar *)"http://s3.amazonaws.com/doc/"
			     "2006-03-01/",
	    NULL);
	if (xmlNewTextChild(root, NULL, (const xmlChar *)"LocationConstraint",
		(const xmlChar *)ctx->region) == NULL)
		goto out;
	xmlDocDumpMemoryEnc(doc, &xml, &len, "UTF-8");
	if (xml == NULL)
		goto out;
	rc = s3_simple(ctx, "PUT", bucket, NULL, NULL, xml, (size_t)len,
	    "application/xml", NULL, NULL, err);
out:
	xmlFree(xml);
	xmlFreeDoc(doc);
	return rc;
}

sw_err
aws_s3_head_bucket(struct aws_ctx *ctx, const char *bucket, char *region,
    size_t regionsz, struct aws_error *err)
{
	struct http_response resp;
	const char *r;
	sw_err rc;

	http_response_init(&resp, 0);
	rc = s3_simple(
	    ctx, "HEAD", bucket, NULL, NULL, NULL, 0, NULL, NULL, &resp, err);
	if (rc == SW_OK && region != NULL && regionsz > 0) {
		r = http_headers_get(&resp.headers, "x-amz-bucket-region");
		if (sw_fmt(region, regionsz, "%s", r != NULL ? r : "") != SW_OK)
			region[0] = '\0'; /* none, never a cut one */
	}
	http_response_free(&resp);
	return rc;
}

sw_err
aws_s3_put_object(struct aws_ctx *ctx, const char *bucket, const char *key,
    const void *data, size_t len, const char *ctype, struct aws_error *err)
{
	return s3_simple(ctx, "PUT", bucket, key, NULL, data, len,
	    ctype != NULL ? ctype : "application/octet-stream", NULL, NULL,
	    err);
}

sw_err
aws_s3_get_object(struct aws_ctx *ctx, const char *bucket, const char *key,
    struct sw_buf *out, struct aws_error *err)
{
	return s3_simple(
	    ctx, "GET", bucket, key, NULL, NULL, 0, NULL, out, NULL, err);
}

sw_err
aws_s3_delete_object(struct aws_ctx *ctx, const char *bucket, const char *key,
    struct aws_error *err)
{
	return s3_simple(
	    ctx, "DELETE", bucket, key, NULL, NULL, 0, NULL, NULL, NULL, err);
}

sw_err
aws_s3_delete_bucket(
    struct aws_ctx *ctx, const char *bucket, struct aws_error *err)
{
	return s3_simple(
	    ctx, "DELETE", bucket, NULL, NULL, NULL, 0, NULL, NULL, NULL, err);
}

/* Make o[key] an array: one flattened element arrives as an object. */
static void
s3_force_array(json_object *o, const char *key)
{
	json_object *v, *arr;

	if (!json_object_object_get_ex(o, key, &v)) {
		json_object_object_add(o, key, json_object_new_array());
		return;
	}
	if (json_object_is_type(v, json_type_array))
		return;
	if ((arr = json_object_new_array()) == NULL)
		return;
	json_object_array_add(arr, json_object_get(v));
	json_object_object_add(o, key, arr);
}

sw_err
aws_s3_list_objects_v2(struct aws_ctx *ctx, const char *bucket,
    const char *prefix, const char *token, json_object **out,
    struct aws_error *err)
{
	struct sw_buf q, body;
	sw_err rc;

	*out = NULL;
	sw_buf_init(&q, SW_MAX_QUERY);
	sw_buf_init(&body, ctx->http.max_body);
	if ((rc = sw_buf_puts(&q, "list-type=2")) != SW_OK)
		goto out;
	if (token != NULL &&
	    ((rc = sw_buf_puts(&q, "&continuation-token=")) != SW_OK ||
		(rc = sw_pct_encode(&q, token, strlen(token), 0)) != SW_OK))
		goto out;
	if (prefix != NULL &&
	    ((rc = sw_buf_puts(&q, "&prefix=")) != SW_OK ||
		(rc = sw_pct_encode(&q, prefix, strlen(prefix), 0)) != SW_OK))
		goto out;
	if ((rc = s3_simple(ctx, "GET", bucket, NULL, sw_buf_str(&q), NULL, 0,
		 NULL, &body, NULL, err)) != SW_OK)
		goto out;
	if ((rc = awsproto_xml_to_json(body.data, body.len, out)) != SW_OK)
		goto out;
	if (!json_object_is_type(*out, json_type_object)) {
		json_object_put(*out);
		*out = json_object_new_object();
	}
	s3_force_array(*out, "Contents");
	s3_force_array(*out, "CommonPrefixes");
out:
	sw_buf_free(&q);
	sw_buf_free(&body);
	return rc;
}

/* The DeleteObjects document for keys (a JSON array of strings). */
static sw_err
s3_delete_doc(json_object *keys, xmlChar **xml, int *len)
{
	xmlDocPtr doc;
	xmlNodePtr root, obj;
	size_t i;
	sw_err rc = SW_ENOMEM;

	*xml = NULL;
	if ((doc = xmlNewDoc((const xmlChar *)"1.0")) == NULL ||
	    (root = xmlNewNode(NULL, (const xmlChar *)"Delete")) == NULL)
		goto out;
	xmlDocSetRootElement(doc, root);
	xmlNewNs(root,
	    (const xmlChar *)"http://s3.amazonaws.com/doc/"
			     "2006-03-01/",
	    NULL);
	for (i = 0; i < json_object_array_length(keys); i++) {
		if ((obj = xmlNewChild(root, NULL, (const xmlChar *)"Object",
			 NULL)) == NULL ||
		    xmlNewTextChild(obj, NULL, (const xmlChar *)"Key",
			(const xmlChar *)json_object_get_string(
			    json_object_array_get_idx(keys, i))) == NULL)
			goto out;
	}
	if (xmlNewTextChild(root, NULL, (const xmlChar *)"Quiet",
		(const xmlChar *)"false") == NULL)
		goto out;
	xmlDocDumpMemoryEnc(doc, xml, len, "UTF-8");
	if (*xml != NULL)
		rc = SW_OK;
out:
	xmlFreeDoc(doc);
	return rc;
}

/* x-amz-checksum-sha256 of body: base64 of its SHA-256. */
static sw_err
s3_sha256_b64(const void *body, size_t len, char *out, size_t sz)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	if (sz < 45 ||
	    EVP_Digest(body, len, md, &mdlen, EVP_sha256(), NULL) != 1 ||
	    mdlen != 32)
		return SW_EINVAL;
	EVP_EncodeBlock((unsigned char *)out, md, (int)mdlen);
	return SW_OK;
}

sw_err
aws_s3_delete_objects(struct aws_ctx *ctx, const char *bucket,
    json_object *keys, json_object **out, struct aws_error *err)
{
	struct http_request req;
	struct http_response resp;
	xmlChar *xml = NULL;
	char sum[64];
	int len = 0;
	sw_err rc;

	*out = NULL;
	aws_error_clear(err);
	http_response_init(&resp, ctx->http.max_body);
	memset(&req, 0, sizeof(req));
	if (json_object_array_length(keys) == 0 ||
	    json_object_array_length(keys) > SW_S3_DELETE_MAX) {
		sw_fmt_text(err->code, sizeof(err->code), "InvalidInput");
		rc = SW_EINVAL;
		goto out;
	}
	if ((rc = s3_delete_doc(keys, &xml, &len)) != SW_OK ||
	    (rc = s3_sha256_b64(xml, (size_t)len, sum, sizeof(sum))) != SW_OK)
		goto out;
	if ((rc = s3_request(ctx, "POST", bucket, NULL, "delete=", &req)) !=
	    SW_OK) {
		sw_fmt_text(err->code, sizeof(err->code), "InvalidInput");
		goto out;
	}
	if ((rc = http_request_set_body(&req, xml, (size_t)len)) != SW_OK ||
	    (rc = http_headers_set(
		 &req.headers, "Content-Type", "application/xml")) != SW_OK ||
	    (rc = http_headers_set(
		 &req.headers, "x-amz-checksum-sha256", sum)) != SW_OK ||
	    (rc = aws_send(ctx, AWS_SVC_S3, &req, &resp, err)) != SW_OK)
		goto out;
	if ((rc = awsproto_xml_to_json(resp.body.data, resp.body.len, out)) !=
	    SW_OK)
		goto out;
	if (!json_object_is_type(*out, json_type_object)) {
		json_object_put(*out);
		*out = json_object_new_object();
	}
	s3_force_array(*out, "Deleted");
	s3_force_array(*out, "Error");
out:
	xmlFree(xml);
	http_request_free(&req);
	http_response_free(&resp);
	return rc;
}
