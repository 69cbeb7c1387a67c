/*
 * network.c: the network of a cluster.create: the network stage (VPC,
 * 2 public + 2 private subnets, internet and NAT gateways, route tables,
 * security group), the VPC facts later stages and other pipelines need,
 * and the one function that places compute subnets
 * (sw_ensure_compute_subnet: the shared /20 of an AZ or a dedicated one,
 * in the first free /20 slot of the VPC).
 */
#include <stdio.h>
#include <string.h>

#include "cloud/aws_api.h"
#include "lib/json.h"
#include "pipelines/cluster.h"
#include "pipelines/helm.h"
#include "pipelines/pipelines.h"
#include "pipelines/stepkit.h"

/* ---- network --------------------------------------------------------- */

/*
 * sw_ec2_find for a resource inside the VPC, skipped when nothing can be
 * found: the VPC is one this stage created ("vpc_origin") and no create
 * of key was ever sent.  The mark "sent.<key>" is recorded here, and
 * saved with the resources before the create goes out, so a stage
 * resumed after that create looks the resource up by its tags.
 */
static enum sw_step_rc
find_in_vpc(struct sw_step *s, const char *describe, const char *set,
    const char *idfield, const char *name, const char *key, json_object *extra)
{
	const char *origin = sw_res_get(s, "vpc_origin");
	char sent[128];

	if (sw_res_get(s, key) != NULL) {
		json_object_put(extra);
		return STEP_DONE;
	}
	if ((size_t)snprintf(sent, sizeof(sent), "sent.%s", key) >=
	    sizeof(sent))
		return sw_step_fail(s, "resource key %s too long", key);
	if (!s->plan && origin != NULL && strcmp(origin, "created") == 0 &&
	    sw_res_get(s, sent) == NULL) {
		json_object_put(extra);
		sw_res_set(s, sent, "1");
		return STEP_DONE;
	}
	return sw_ec2_find(s, describe, set, idfield, name, key, extra);
}

/* CreateSubnet of name found cidr taken in the VPC: the subnet is ours
 * when it carries our name (adopted), else the stage fails. */
static enum sw_step_rc
subnet_conflict(
    struct sw_step *s, const char *key, const char *name, const char *cidr)
{
	TRY(sw_ec2_find(
	    s, "DescribeSubnets", "subnetSet", "subnetId", name, key, NULL));
	if (sw_res_get(s, key) != NULL)
		return STEP_DONE;
	return sw_step_fail(s,
	    "CreateSubnet %s: the CIDR %s conflicts with "
	    "another subnet of the VPC",
	    name, cidr);
}

/* A subnet named after label; with looked, the caller has just looked
 * for it by name already. */
static enum sw_step_rc
ensure_subnet(struct sw_step *s, const char *key, const char *label,
    const char *cidr, const char *az, int looked)
{
	char name[160];
	json_object *out;
	const char *id;

	sw_name(name, sizeof(name), CLUSTER(s), label);
	if (!looked)
		TRY(find_in_vpc(s, "DescribeSubnets", "subnetSet", "subnetId",
		    name, key, NULL));
	if (sw_res_get(s, key) != NULL)
		return STEP_DONE;
	/* A conflict in our own VPC is most often our own subnet: a poller
	 * whose lease moved sent the same create after the lookup above. */
	TRY(sw_step_aws_ok(s, AWS_SVC_EC2, "CreateSubnet",
	    sw_jo("VpcId", sw_js(sw_res_get(s, "vpc_id")), "CidrBlock",
		sw_js(cidr), "AvailabilityZone", sw_js(az), "TagSpecifications",
		sw_tag_spec(s, "subnet", name), NULL),
	    &out, "InvalidSubnet.Conflict"));
	id = sw_planned(
	    s, sw_json_path_str(out, "subnet.subnetId"), "subnet-planned");
	if (id != NULL)
		sw_res_set(s, key, id);
	json_object_put(out); /* id was out's */
	if (sw_res_get(s, key) != NULL)
		return STEP_DONE;
	return subnet_conflict(s, key, name, cidr);
}

static enum sw_step_rc
ensure_route_table(struct sw_step *s, const char *key, const char *label,
    const char *target_key, const char *target_id, const char *const *subs)
{
	char name[160], flag[96];
	json_object *out;
	const char *id;
	int i;

	sw_name(name, sizeof(name), CLUSTER(s), label);
	TRY(find_in_vpc(s, "DescribeRouteTables", "routeTableSet",
	    "routeTableId", name, key, NULL));
	if (sw_res_get(s, key) == NULL) {
		TRY(sw_step_aws(s, AWS_SVC_EC2, "CreateRouteTable",
		    sw_jo("VpcId", sw_js(sw_res_get(s, "vpc_id")),
			"TagSpecifications",
			sw_tag_spec(s, "route-table", name), NULL),
		    &out, NULL));
		id = sw_planned(s,
		    sw_json_path_str(out, "routeTable.routeTableId"),
		    "rtb-planned");
		if (id != NULL)
			sw_res_set(s, key, id);
		json_object_put(out);
		if (id == NULL)
			return sw_step_fail(s, "CreateRouteTable gave no id");
	}
	if (sw_fmt(flag, sizeof(flag), "%s.default_route", key) != SW_OK)
		return sw_step_fail(s, "resource key %s too long", key);
	if (sw_res_get(s, flag) == NULL) {
		TRY(sw_step_aws_ok(s, AWS_SVC_EC2, "CreateRoute",
		    sw_jo("RouteTableId", sw_js(sw_res_get(s, key)),
			"DestinationCidrBlock", sw_js("0.0.0.0/0"), target_key,
			sw_js(target_id), NULL),
		    &out, "RouteAlreadyExists"));
		json_object_put(out);
		sw_res_set(s, flag, "0.0.0.0/0");
	}
	for (i = 0; subs[i] != NULL; i++) {
		if (sw_fmt(flag, sizeof(flag), "%s.assoc.%s", key, subs[i]) !=
		    SW_OK)
			return sw_step_fail(s, "resource key %s too long", key);
		if (sw_res_get(s, flag) != NULL)
			continue;
		TRY(sw_step_aws_ok(s, AWS_SVC_EC2, "AssociateRouteTable",
		    sw_jo("RouteTableId", sw_js(sw_res_get(s, key)), "SubnetId",
			sw_js(sw_res_get(s, subs[i])), NULL),
		    &out, "Resource.AlreadyAssociated"));
		id = sw_json_get_str(out, "associationId");
		sw_res_set(s, flag, id ? id : "associated");
		json_object_put(out);
	}
	return STEP_DONE;
}

/*
 * A resource of the network stage found by its Name tag, else created:
 * one row for each.  The create sends input's members and the tags;
 * the id the answer names is recorded under key.
 */
struct net_res {
	const char *label; /* the Name tag's suffix */
	const char *key; /* its id is recorded under this */
	const char *describe; /* the lookup: call, */
	const char *set; /* the answer's list */
	const char *idfield; /* and its id field */
	int in_vpc; /* looked up with find_in_vpc */
	const char *create; /* the create call */
	const char *tag_type; /* its TagSpecifications type */
	const char *id_path; /* where its answer names the id */
	const char *planned; /* the id a plan stands in with */
	/* The lookup's extra filters (new), or NULL for none. */
	json_object *(*filters)(void);
	/* The create's members but the tags (new). */
	json_object *(*input)(struct sw_step *s, const char *name);
	/* What follows a create that answered, or NULL. */
	void (*created)(struct sw_step *s);
	/* What follows the resource being there (found or created). */
	enum sw_step_rc (*then)(struct sw_step *s);
};

/* The subnets the route tables associate, by their keys. */
static const char *const net_public[] = { "public_subnet_0", "public_subnet_1",
	NULL };
static const char *const net_private[] = { "private_subnet_0",
	"private_subnet_1", NULL };

static json_object *
vpc_input(struct sw_step *s, const char *name)
{
	(void)name;
	return sw_jo(
	    "CidrBlock", sw_js(sw_json_get_str(s->params, "vpc_cidr")), NULL);
}

static void
vpc_created(struct sw_step *s)
{
	sw_res_set(s, "vpc_origin", "created");
}

/* DNS host names on; the subnets: two public, two private, one of
 * each per AZ. */
static enum sw_step_rc
vpc_then(struct sw_step *s)
{
	const char *vpc_cidr = sw_json_get_str(s->params, "vpc_cidr");
	json_object *azs = sw_json_get(s->params, "availability_zones");
	char cidr[32], label[32];
	json_object *out;
	const char *az;
	int i;

	if (sw_res_get(s, "vpc_dns") == NULL) {
		TRY(sw_step_aws(s, AWS_SVC_EC2, "ModifyVpcAttribute",
		    sw_jo("VpcId", sw_js(sw_res_get(s, "vpc_id")),
			"EnableDnsHostnames", sw_jo("Value", sw_jb(1), NULL),
			NULL),
		    &out, NULL));
		json_object_put(out);
		sw_res_set(s, "vpc_dns", "hostnames");
	}
	sw_res_set(s, "vpc_cidr", vpc_cidr);
	for (i = 0; i < 2; i++) {
		az = json_object_get_string(
		    json_object_array_get_idx(azs, (size_t)i));
		if (sw_fmt(label, sizeof(label), "public-%d", i) != SW_OK ||
		    sw_cidr_public(vpc_cidr, i, cidr, sizeof(cidr)) != 0)
			return sw_step_fail(s, "bad VPC CIDR %s", vpc_cidr);
		TRY(ensure_subnet(s, net_public[i], label, cidr, az, 0));
		if (sw_fmt(label, sizeof(label), "private-%d", i) != SW_OK)
			return sw_step_fail(s, "bad subnet label");
		sw_cidr_private(vpc_cidr, i, cidr, sizeof(cidr));
		TRY(ensure_subnet(s, net_private[i], label, cidr, az, 0));
	}
	return STEP_DONE;
}

static json_object *
igw_input(struct sw_step *s, const char *name)
{
	(void)s;
	(void)name;
	return json_object_new_object();
}

/* The internet gateway attached to the VPC. */
static enum sw_step_rc
igw_then(struct sw_step *s)
{
	json_object *out;

	if (sw_res_get(s, "igw_attached") != NULL)
		return STEP_DONE;
	TRY(sw_step_aws_ok(s, AWS_SVC_EC2, "AttachInternetGateway",
	    sw_jo("InternetGatewayId", sw_js(sw_res_get(s, "igw_id")), "VpcId",
		sw_js(sw_res_get(s, "vpc_id")), NULL),
	    &out, "Resource.AlreadyAssociated"));
	json_object_put(out);
	sw_res_set(s, "igw_attached", sw_res_get(s, "vpc_id"));
	return STEP_DONE;
}

static json_object *
eip_input(struct sw_step *s, const char *name)
{
	(void)s;
	(void)name;
	return sw_jo("Domain", sw_js("vpc"), NULL);
}

/* A NAT gateway is looked for only while it is pending or available. */
static json_object *
nat_filters(void)
{
	return sw_ja(sw_jo("Name", sw_js("state"), "Values",
	    sw_ja(sw_js("pending"), sw_js("available")), NULL));
}

/* The NAT gateway in the first public subnet, its client token the
 * operation's. */
static json_object *
nat_input(struct sw_step *s, const char *name)
{
	char token[64];

	(void)name;
	if (sw_fmt(token, sizeof(token), "%s-nat", s->op_id) != SW_OK)
		token[0] = '\0';
	return sw_jo("SubnetId", sw_js(sw_res_get(s, "public_subnet_0")),
	    "AllocationId", sw_js(sw_res_get(s, "eip_allocation_id")),
	    "ClientToken", sw_js(token), NULL);
}

static void
nat_created(struct sw_step *s)
{
	sw_mark_started(s, "nat_started");
}

/* Security group: all traffic between members (EFA needs it). */
static json_object *
sg_input(struct sw_step *s, const char *name)
{
	return sw_jo("GroupName", sw_js(name), "Description",
	    sw_js("Slipway cluster nodes and control plane"), "VpcId",
	    sw_js(sw_res_get(s, "vpc_id")), NULL);
}

static enum sw_step_rc
sg_then(struct sw_step *s)
{
	static const char *const dirs[] = { "AuthorizeSecurityGroupIngress",
		"AuthorizeSecurityGroupEgress" };
	const char *sg = sw_res_get(s, "security_group_id");
	json_object *out;
	size_t i;

	if (sw_res_get(s, "sg_self_rules") != NULL)
		return STEP_DONE;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		TRY(sw_step_aws_ok(s, AWS_SVC_EC2, dirs[i],
		    sw_jo("GroupId", sw_js(sg), "IpPermissions",
			sw_ja(sw_jo("IpProtocol", sw_js("-1"),
			    "UserIdGroupPairs",
			    sw_ja(sw_jo("GroupId", sw_js(sg), NULL)), NULL)),
			NULL),
		    &out, "InvalidPermission.Duplicate"));
		json_object_put(out);
	}
	sw_res_set(s, "sg_self_rules", "ingress+egress");
	return STEP_DONE;
}

/* The create's input of r named name, with its tags (new). */
static json_object *
net_create_input(struct sw_step *s, const struct net_res *r, const char *name)
{
	json_object *in = r->input(s, name);

	json_object_object_add(
	    in, "TagSpecifications", sw_tag_spec(s, r->tag_type, name));
	return in;
}

/*
 * Each resource of the network (the rows, in the order they are made)
 * found by its Name tag, else created.  The operations are named here,
 * where the calls are made.
 */
static enum sw_step_rc
net_find_or_create(struct sw_step *s)
{
	static const struct net_res rows[] = {
		{ .label = "vpc",
		    .key = "vpc_id",
		    .describe = "DescribeVpcs",
		    .set = "vpcSet",
		    .idfield = "vpcId",
		    .create = "CreateVpc",
		    .tag_type = "vpc",
		    .id_path = "vpc.vpcId",
		    .planned = "vpc-planned",
		    .input = vpc_input,
		    .created = vpc_created,
		    .then = vpc_then },
		{ .label = "igw",
		    .key = "igw_id",
		    .describe = "DescribeInternetGateways",
		    .set = "internetGatewaySet",
		    .idfield = "internetGatewayId",
		    .create = "CreateInternetGateway",
		    .tag_type = "internet-gateway",
		    .id_path = "internetGateway.internetGatewayId",
		    .planned = "igw-planned",
		    .input = igw_input,
		    .then = igw_then },
		{ .label = "nat-eip",
		    .key = "eip_allocation_id",
		    .describe = "DescribeAddresses",
		    .set = "addressesSet",
		    .idfield = "allocationId",
		    .create = "AllocateAddress",
		    .tag_type = "elastic-ip",
		    .id_path = "allocationId",
		    .planned = "eipalloc-planned",
		    .input = eip_input },
		{ .label = "nat",
		    .key = "nat_id",
		    .describe = "DescribeNatGateways",
		    .set = "natGatewaySet",
		    .idfield = "natGatewayId",
		    .in_vpc = 1,
		    .create = "CreateNatGateway",
		    .tag_type = "natgateway",
		    .id_path = "natGateway.natGatewayId",
		    .planned = "nat-planned",
		    .filters = nat_filters,
		    .input = nat_input,
		    .created = nat_created },
		{ .label = "sg",
		    .key = "security_group_id",
		    .describe = "DescribeSecurityGroups",
		    .set = "securityGroupInfo",
		    .idfield = "groupId",
		    .in_vpc = 1,
		    .create = "CreateSecurityGroup",
		    .tag_type = "security-group",
		    .id_path = "groupId",
		    .planned = "sg-planned",
		    .input = sg_input,
		    .then = sg_then },
	};
	const struct net_res *r;
	const char *describe, *create, *id;
	json_object *out, *in;
	char name[160];

	for (r = rows; r < rows + sizeof(rows) / sizeof(rows[0]); r++) {
		describe = r->describe;
		create = r->create;
		sw_name(name, sizeof(name), CLUSTER(s), r->label);
		if (r->in_vpc)
			TRY(find_in_vpc(s, describe, r->set, r->idfield, name,
			    r->key, r->filters ? r->filters() : NULL));
		else
			TRY(sw_ec2_find(s, describe, r->set, r->idfield, name,
			    r->key, r->filters ? r->filters() : NULL));
		if (sw_res_get(s, r->key) == NULL) {
			in = net_create_input(s, r, name);
			TRY(sw_step_aws(
			    s, AWS_SVC_EC2, create, in, &out, NULL));
			id = sw_planned(
			    s, sw_json_path_str(out, r->id_path), r->planned);
			if (id != NULL)
				sw_res_set(s, r->key, id);
			if (id != NULL && r->created != NULL)
				r->created(s);
			json_object_put(out);
			if (id == NULL)
				return sw_step_fail(s, "%s gave no id", create);
		}
		if (r->then != NULL)
			TRY(r->then(s));
	}
	return STEP_DONE;
}

/* Wait for the NAT gateway before routing through it: read it once the
 * quickest gateway would be available. */
static enum sw_step_rc
nat_wait(struct sw_step *s)
{
	json_object *out;
	const char *state;
	int failed;

	if (s->plan) {
		sw_plan_wait(s, SW_WAIT_NAT);
		return STEP_DONE;
	}
	if (sw_res_get(s, "nat_ready") != NULL)
		return STEP_DONE;
	TRY(sw_wait_since(s, SW_WAIT_NAT, "nat_started"));
	TRY(sw_step_aws(s, AWS_SVC_EC2, "DescribeNatGateways",
	    sw_jo("NatGatewayIds", sw_ja(sw_js(sw_res_get(s, "nat_id"))), NULL),
	    &out, NULL));
	state = sw_keep(s, sw_json_path_str(out, "natGatewaySet[0].state"));
	json_object_put(out);
	if (state != NULL && strcmp(state, "available") == 0) {
		sw_res_set(s, "nat_ready", "available");
		return STEP_DONE;
	}
	failed = state != NULL && strcmp(state, "failed") == 0;
	if (failed)
		return sw_step_fail(
		    s, "NAT gateway %s failed", sw_res_get(s, "nat_id"));
	return sw_wait_next(s, SW_WAIT_NAT, "waiting for NAT gateway %s (%s)",
	    sw_res_get(s, "nat_id"), state ? state : "?");
}

enum sw_step_rc
sw_stage_network(struct sw_step *s)
{
	TRY(net_find_or_create(s));
	TRY(nat_wait(s));
	TRY(ensure_route_table(s, "public_route_table", "public-rt",
	    "GatewayId", sw_res_get(s, "igw_id"), net_public));
	TRY(ensure_route_table(s, "private_route_table", "private-rt",
	    "NatGatewayId", sw_res_get(s, "nat_id"), net_private));
	return STEP_DONE;
}

/*
 * The cluster's VPC id and CIDR and its private route table: recorded by
 * the network stage of a create, else looked up (an instance group added
 * later, or an imported cluster).  Recorded in this stage's resources.
 */
enum sw_step_rc
sw_ensure_vpc_facts(struct sw_step *s)
{
	char name[160];
	json_object *out;
	const char *v;

	if (sw_res_get(s, "vpc_id") == NULL &&
	    (v = sw_res_from(s, "network", "vpc_id")) != NULL) {
		sw_res_set(s, "vpc_id", v);
		sw_res_set(
		    s, "vpc_cidr", sw_res_from(s, "network", "vpc_cidr"));
		sw_res_set(s, "private_route_table",
		    sw_res_from(s, "network", "private_route_table"));
	}
	if (sw_res_get(s, "vpc_id") == NULL) {
		enum sw_step_rc rc =
		    sw_step_aws(s, AWS_SVC_EKS, "DescribeCluster",
			sw_jo("name", sw_js(CLUSTER(s)), NULL), &out, NULL);

		if (rc != STEP_DONE && s->plan) {
			/* Planning a cluster that does not exist yet. */
			s->msg[0] = '\0';
			sw_res_set(s, "vpc_id", "vpc-planned");
			sw_res_set(s, "vpc_cidr",
			    sw_json_get_str(s->params, "vpc_cidr"));
			sw_res_set(s, "private_route_table", "rtb-planned");
			return STEP_DONE;
		}
		if (rc != STEP_DONE)
			return rc;
		v = sw_json_path_str(out, "cluster.resourcesVpcConfig.vpcId");
		if (v != NULL)
			sw_res_set(s, "vpc_id", v);
		json_object_put(out);
		if (v == NULL)
			return sw_step_fail(
			    s, "cannot tell the VPC of cluster %s", CLUSTER(s));
	}
	if (sw_res_get(s, "vpc_cidr") == NULL) {
		TRY(sw_step_aws(s, AWS_SVC_EC2, "DescribeVpcs",
		    sw_jo(
			"VpcIds", sw_ja(sw_js(sw_res_get(s, "vpc_id"))), NULL),
		    &out, NULL));
		v = sw_json_path_str(out, "vpcSet[0].cidrBlock");
		if (v != NULL)
			sw_res_set(s, "vpc_cidr", v);
		json_object_put(out);
		if (v == NULL)
			return sw_step_fail(
			    s, "VPC %s not found", sw_res_get(s, "vpc_id"));
	}
	if (sw_res_get(s, "private_route_table") == NULL) {
		sw_name(name, sizeof(name), CLUSTER(s), "private-rt");
		TRY(sw_ec2_find(s, "DescribeRouteTables", "routeTableSet",
		    "routeTableId", name, "private_route_table", NULL));
		if (sw_res_get(s, "private_route_table") == NULL)
			return sw_step_fail(
			    s, "no private route table %s", name);
	}
	return STEP_DONE;
}

/*
 * The /20 compute slot for a new subnet: the first of the VPC's slots
 * whose range no existing subnet overlaps.  This is the one place that
 * decides where HyperPod capacity goes in the VPC.  The same listing
 * tells whether the subnet named name exists already: then its id goes
 * to resources[key] and no slot is chosen.
 */
static enum sw_step_rc
free_compute_slot(
    struct sw_step *s, const char *name, const char *key, char *cidr, size_t sz)
{
	const char *vpc_cidr = sw_res_get(s, "vpc_cidr");
	const char *cluster = CLUSTER(s);
	json_object *out, *list, *tags;
	size_t i, j;
	int k, clash, named, ours;

	if (s->plan) {
		/* Nothing exists yet: the planned groups take slots in order. */
		int used = (int)sw_json_get_int(s->res, "planned_slots", 0);

		TRY(sw_ec2_find(s, "DescribeSubnets", "subnetSet", "subnetId",
		    name, key, NULL));
		if (sw_res_get(s, key) != NULL)
			return STEP_DONE;
		sw_json_add_int(s->res, "planned_slots", used + 1);
		return sw_cidr_compute(vpc_cidr, used, cidr, sz) == 0
		    ? STEP_DONE
		    : sw_step_fail(s, "no compute subnet slot left");
	}
	TRY(sw_step_aws(s, AWS_SVC_EC2, "DescribeSubnets",
	    sw_jo("Filters",
		sw_ja(sw_jo("Name", sw_js("vpc-id"), "Values",
		    sw_ja(sw_js(sw_res_get(s, "vpc_id"))), NULL)),
		NULL),
	    &out, NULL));
	list = sw_json_get(out, "subnetSet");
	for (i = 0; list && json_object_is_type(list, json_type_array) &&
	     i < json_object_array_length(list);
	     i++) {
		json_object *sn = json_object_array_get_idx(list, i);

		tags = sw_json_get(sn, "tagSet");
		named = ours = 0;
		for (j = 0;
		     tags && json_object_is_type(tags, json_type_array) &&
		     j < json_object_array_length(tags);
		     j++) {
			json_object *t = json_object_array_get_idx(tags, j);
			const char *tk = sw_json_get_str(t, "key");
			const char *tv = sw_json_get_str(t, "value");

			if (tk == NULL || tv == NULL)
				continue;
			named |=
			    strcmp(tk, "Name") == 0 && strcmp(tv, name) == 0;
			ours |= sw_cluster_id(s) == NULL
			    ? strcmp(tk, SW_TAG_CLUSTER) == 0 &&
				strcmp(tv, cluster) == 0
			    : strcmp(tk, SW_TAG_CLUSTER_ID) == 0 &&
				strcmp(tv, sw_cluster_id(s)) == 0;
		}
		if (named && ours && sw_json_get_str(sn, "subnetId") != NULL) {
			sw_res_set(s, key, sw_json_get_str(sn, "subnetId"));
			json_object_put(out);
			return STEP_DONE;
		}
	}
	for (k = 0; k < 12; k++) {
		if (sw_cidr_compute(vpc_cidr, k, cidr, sz) != 0)
			break;
		clash = 0;
		for (i = 0;
		     list && json_object_is_type(list, json_type_array) &&
		     i < json_object_array_length(list);
		     i++) {
			const char *c = sw_json_get_str(
			    json_object_array_get_idx(list, i), "cidrBlock");

			if (c != NULL && sw_cidr_overlap(c, cidr))
				clash = 1;
		}
		if (!clash) {
			json_object_put(out);
			return STEP_DONE;
		}
	}
	json_object_put(out);
	return sw_step_fail(s, "the VPC %s has no free /20 compute slot",
	    vpc_cidr ? vpc_cidr : "?");
}

/*
 * Compute subnet for an AZ: the shared /20 of that AZ ("compute-<az>"),
 * made once and reused by every group there; with dedicated, a /20 of
 * the group's own ("compute-<group>").  Associated with the private
 * route table.  The subnet id goes to resources[key].
 */
enum sw_step_rc
sw_ensure_compute_subnet(struct sw_step *s, const char *az,
    const char *dedicated, char *key, size_t keysz)
{
	char label[96], name[200], cidr[32], flag[128];
	json_object *out;

	if (dedicated != NULL
		? sw_fmt(key, keysz, "group_subnet.%s", dedicated) != SW_OK ||
		    sw_fmt(label, sizeof(label), "compute-%s", dedicated) !=
			SW_OK
		: sw_fmt(key, keysz, "compute_subnet.%s", az) != SW_OK ||
		    sw_fmt(label, sizeof(label), "compute-%s", az) != SW_OK)
		return sw_step_fail(s, "group or zone name %s too long",
		    dedicated != NULL ? dedicated : az);
	TRY(sw_ensure_vpc_facts(s));
	sw_name(name, sizeof(name), CLUSTER(s), label);
	if (sw_res_get(s, key) == NULL) {
		/* One listing of the VPC: the subnet, else a free slot. */
		TRY(free_compute_slot(s, name, key, cidr, sizeof(cidr)));
		if (sw_res_get(s, key) == NULL)
			TRY(ensure_subnet(s, key, label, cidr, az, 1));
	}
	if (sw_fmt(flag, sizeof(flag), "%s.rt", key) != SW_OK)
		return sw_step_fail(s, "resource key %s too long", key);
	if (sw_res_get(s, flag) == NULL) {
		TRY(sw_step_aws_ok(s, AWS_SVC_EC2, "AssociateRouteTable",
		    sw_jo("RouteTableId",
			sw_js(sw_res_get(s, "private_route_table")), "SubnetId",
			sw_js(sw_res_get(s, key)), NULL),
		    &out, "Resource.AlreadyAssociated"));
		json_object_put(out);
		sw_res_set(s, flag, sw_res_get(s, "private_route_table"));
	}
	return STEP_DONE;
}
