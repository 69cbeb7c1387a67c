/*
 * aws_eks.c: EKS clusters, add-ons, access entries and pod identity
 * associations over rest-json.  aws_eks_ops is the binding table the
 * serialiser in aws.c needs: method, URI template and the members that
 * go into the URI or the query string (eks/2017-11-01 http and
 * location traits); every other member is the JSON body.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "lib/buf.h"
#include "lib/alloc.h"
#include "cloud/aws_api.h"

#define SVC AWS_SVC_EKS

#define U(m, w) \
	{ \
		m, AWS_LOC_URI, w \
	}
#define Q(m) \
	{ \
		m, AWS_LOC_QUERY, m \
	}

/* clang-format off */
const struct aws_rest_op aws_eks_ops[] = {
	{ "CreateCluster", "POST", "/clusters", { { NULL } } },
	{ "DescribeCluster", "GET", "/clusters/{name}", { U("name", "name") } },
	{ "ListClusters", "GET", "/clusters",
	    { Q("maxResults"), Q("nextToken"), Q("include") } },
	{ "DeleteCluster", "DELETE", "/clusters/{name}",
	    { U("name", "name") } },
	{ "UpdateClusterConfig", "POST", "/clusters/{name}/update-config",
	    { U("name", "name") } },
	{ "DescribeUpdate", "GET", "/clusters/{name}/updates/{updateId}",
	    { U("name", "name"), U("updateId", "updateId"),
	    Q("nodegroupName"), Q("addonName") } },
	{ "TagResource", "POST", "/tags/{resourceArn}",
	    { U("resourceArn", "resourceArn") } },
	{ "CreateAddon", "POST", "/clusters/{name}/addons",
	    { U("clusterName", "name") } },
	{ "DescribeAddon", "GET", "/clusters/{name}/addons/{addonName}",
	    { U("clusterName", "name"), U("addonName", "addonName") } },
	{ "ListAddons", "GET", "/clusters/{name}/addons",
	    { U("clusterName", "name"), Q("maxResults"), Q("nextToken") } },
	{ "UpdateAddon", "POST", "/clusters/{name}/addons/{addonName}/update",
	    { U("clusterName", "name"), U("addonName", "addonName") } },
	{ "DeleteAddon", "DELETE", "/clusters/{name}/addons/{addonName}",
	    { U("clusterName", "name"), U("addonName", "addonName"),
	    Q("preserve") } },
	{ "DescribeAddonVersions", "GET", "/addons/supported-versions",
	    { Q("kubernetesVersion"), Q("maxResults"), Q("nextToken"),
	    Q("addonName"), Q("types"), Q("publishers"), Q("owners") } },
	{ "CreateAccessEntry", "POST", "/clusters/{name}/access-entries",
	    { U("clusterName", "name") } },
	{ "DescribeAccessEntry", "GET",
	    "/clusters/{name}/access-entries/{principalArn}",
	    { U("clusterName", "name"), U("principalArn", "principalArn") } },
	{ "ListAccessEntries", "GET", "/clusters/{name}/access-entries",
	    { U("clusterName", "name"), Q("associatedPolicyArn"),
	    Q("maxResults"), Q("nextToken") } },
	{ "DeleteAccessEntry", "DELETE",
	    "/clusters/{name}/access-entries/{principalArn}",
	    { U("clusterName", "name"), U("principalArn", "principalArn") } },
	{ "AssociateAccessPolicy", "POST",
	    "/clusters/{name}/access-entries/{principalArn}/access-policies",
	    { U("clusterName", "name"), U("principalArn", "principalArn") } },
	{ "ListAssociatedAccessPolicies", "GET",
	    "/clusters/{name}/access-entries/{principalArn}/access-policies",
	    { U("clusterName", "name"), U("principalArn", "principalArn"),
	    Q("maxResults"), Q("nextToken") } },
	{ "DisassociateAccessPolicy", "DELETE",
	    "/clusters/{name}/access-entries/{principalArn}/access-policies/"
	    "{policyArn}",
	    { U("clusterName", "name"), U("principalArn", "principalArn"),
	    U("policyArn", "policyArn") } },
	{ "CreatePodIdentityAssociation", "POST",
	    "/clusters/{name}/pod-identity-associations",
	    { U("clusterName", "name") } },
	{ "DescribePodIdentityAssociation", "GET",
	    "/clusters/{name}/pod-identity-associations/{associationId}",
	    { U("clusterName", "name"), U("associationId", "associationId") } },
	{ "ListPodIdentityAssociations", "GET",
	    "/clusters/{name}/pod-identity-associations",
	    { U("clusterName", "name"), Q("namespace"), Q("serviceAccount"),
	    Q("maxResults"), Q("nextToken") } },
	{ "DeletePodIdentityAssociation", "DELETE",
	    "/clusters/{name}/pod-identity-associations/{associationId}",
	    { U("clusterName", "name"), U("associationId", "associationId") } },
	{ NULL, NULL, NULL, { { NULL } } }
};
/* clang-format on */

/* Decode standard base64 (whitespace allowed) into a new string. */
static sw_err
aws_eks_b64(const char *in, char **out, size_t *outlen)
{
	EVP_ENCODE_CTX *ctx = NULL;
	unsigned char *buf = NULL;
	size_t len = strlen(in);
	int n = 0, fin = 0;
	sw_err rc = SW_EUPSTREAM;

	*out = NULL;
	if (len == 0 || len > SW_MAX_UPSTREAM_BODY)
		return SW_EUPSTREAM;
	if ((buf = sw_malloc(len / 4 * 3 + 4)) == NULL ||
	    (ctx = EVP_ENCODE_CTX_new()) == NULL) {
		rc = SW_ENOMEM;
		goto out;
	}
	EVP_DecodeInit(ctx);
	if (EVP_DecodeUpdate(
		ctx, buf, &n, (const unsigned char *)in, (int)len) < 0 ||
	    EVP_DecodeFinal(ctx, buf + n, &fin) != 1)
		goto out;
	buf[n + fin] = '\0';
	*out = (char *)buf;
	*outlen = (size_t)(n + fin);
	buf = NULL;
	rc = SW_OK;
out:
	EVP_ENCODE_CTX_free(ctx);
	free(buf);
	return rc;
}

sw_err
aws_cluster_access_of(json_object *doc, const char *cluster, char **endpoint,
    char **ca_pem, size_t *ca_len, struct aws_error *err)
{
	json_object *c, *v, *ca;
	sw_err rc;

	*endpoint = NULL;
	*ca_pem = NULL;
	*ca_len = 0;
	if (!json_object_object_get_ex(doc, "cluster", &c) ||
	    !json_object_object_get_ex(c, "endpoint", &v) ||
	    json_object_get_string(v) == NULL ||
	    !json_object_object_get_ex(c, "certificateAuthority", &ca) ||
	    !json_object_object_get_ex(ca, "data", &ca) ||
	    json_object_get_string(ca) == NULL) {
		memcpy(err->code, "ClusterNotReady", sizeof("ClusterNotReady"));
		sw_fmt_text(err->message, sizeof(err->message),
		    "cluster %s has no endpoint or CA yet", cluster);
		return SW_EUPSTREAM;
	}
	if ((*endpoint = sw_strdup(json_object_get_string(v))) == NULL)
		return SW_ENOMEM;
	if ((rc = aws_eks_b64(json_object_get_string(ca), ca_pem, ca_len)) !=
	    SW_OK) {
		free(*endpoint);
		*endpoint = NULL;
	}
	return rc;
}

sw_err
aws_eks_cluster_access(struct aws_ctx *ctx, const char *cluster,
    char **endpoint, char **ca_pem, size_t *ca_len, struct aws_error *err)
{
	json_object *in = NULL, *out = NULL;
	sw_err rc = SW_ENOMEM;

	*endpoint = NULL;
	*ca_pem = NULL;
	*ca_len = 0;
	if ((in = json_object_new_object()) == NULL)
		goto out;
	json_object_object_add(in, "name", json_object_new_string(cluster));
	if ((rc = aws_call(ctx, SVC, "DescribeCluster", in, &out, err)) !=
	    SW_OK)
		goto out;
	rc = aws_cluster_access_of(out, cluster, endpoint, ca_pem, ca_len, err);
out:
	json_object_put(in);
	json_object_put(out);
	return rc;
}
