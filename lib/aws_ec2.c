/*
 * aws_ec2.c: EC2 networking for the EKS + HyperPod stacks: VPCs,
 * subnets, gateways, Elastic IPs, route tables, security groups, tags,
 * and the zone / instance-type lookups of the pre-flight checks.
 *
 * The ec2 protocol flattens lists as Name.N under the model's wire
 * name, which for list members is usually the singular: Filters ->
 * Filter, Values -> Value, Tags -> Tag.  aws_ec2_renames lists every
 * such member of the operations below (from the locationName and
 * queryName traits of ec2/2016-11-15); the serialiser in awsproto.c
 * applies it.  Output keys are the XML wire names (vpcSet, vpcId).
 */
#include "lib/aws_api.h"

#define SVC	AWS_SVC_EC2

const struct aws_rename aws_ec2_renames[] = {
	/* Top-level members of one operation. */
	{ "CreateSecurityGroup", "Description", "GroupDescription" },
	/* Members renamed wherever they appear. */
	{ NULL, "Filters", "Filter" },
	{ NULL, "Values", "Value" },
	{ NULL, "Tags", "Tag" },
	{ NULL, "TagSpecifications", "TagSpecification" },
	{ NULL, "Resources", "ResourceId" },
	{ NULL, "UserIdGroupPairs", "Groups" },
	{ NULL, "VpcIds", "VpcId" },
	{ NULL, "SubnetIds", "SubnetId" },
	{ NULL, "SecurityGroupIds", "SecurityGroupId" },
	{ NULL, "RouteTableIds", "RouteTableId" },
	{ NULL, "InternetGatewayIds", "InternetGatewayId" },
	{ NULL, "NatGatewayIds", "NatGatewayId" },
	{ NULL, "VpcEndpointIds", "VpcEndpointId" },
	{ NULL, "GroupIds", "GroupId" },
	{ NULL, "GroupNames", "GroupName" },
	{ NULL, "AllocationIds", "AllocationId" },
	{ NULL, "PublicIps", "PublicIp" },
	{ NULL, "ZoneIds", "ZoneId" },
	{ NULL, "ZoneNames", "ZoneName" },
	{ NULL, "InstanceTypes", "InstanceType" },
	{ NULL, "SecurityGroupRuleIds", "SecurityGroupRuleId" },
	{ NULL, "AvailabilityZoneAddresses", "AvailabilityZoneAddress" },
	{ NULL, "SecondaryAllocationIds", "SecondaryAllocationId" },
	{ NULL, "SecondaryPrivateIpAddresses", "SecondaryPrivateIpAddress" },
	{ NULL, "SubnetConfigurations", "SubnetConfiguration" },
	{ NULL, "PrivateDnsSpecifiedDomains", "PrivateDnsSpecifiedDomain" },
	{ NULL, NULL, NULL }
};

AWS_THIN_CALL(aws_ec2_create_vpc, SVC, "CreateVpc")
AWS_THIN_CALL(aws_ec2_describe_vpcs, SVC, "DescribeVpcs")
AWS_THIN_CALL(aws_ec2_delete_vpc, SVC, "DeleteVpc")
AWS_THIN_CALL(aws_ec2_modify_vpc_attribute, SVC, "ModifyVpcAttribute")
AWS_THIN_CALL(aws_ec2_create_subnet, SVC, "CreateSubnet")
AWS_THIN_CALL(aws_ec2_describe_subnets, SVC, "DescribeSubnets")
AWS_THIN_CALL(aws_ec2_delete_subnet, SVC, "DeleteSubnet")
AWS_THIN_CALL(aws_ec2_modify_subnet_attribute, SVC, "ModifySubnetAttribute")
AWS_THIN_CALL(aws_ec2_create_internet_gateway, SVC, "CreateInternetGateway")
AWS_THIN_CALL(aws_ec2_attach_internet_gateway, SVC, "AttachInternetGateway")
AWS_THIN_CALL(aws_ec2_detach_internet_gateway, SVC, "DetachInternetGateway")
AWS_THIN_CALL(aws_ec2_delete_internet_gateway, SVC, "DeleteInternetGateway")
AWS_THIN_CALL(aws_ec2_describe_internet_gateways, SVC,
    "DescribeInternetGateways")
AWS_THIN_CALL(aws_ec2_allocate_address, SVC, "AllocateAddress")
AWS_THIN_CALL(aws_ec2_release_address, SVC, "ReleaseAddress")
AWS_THIN_CALL(aws_ec2_describe_addresses, SVC, "DescribeAddresses")
AWS_THIN_CALL(aws_ec2_create_nat_gateway, SVC, "CreateNatGateway")
AWS_THIN_CALL(aws_ec2_describe_nat_gateways, SVC, "DescribeNatGateways")
AWS_THIN_CALL(aws_ec2_delete_nat_gateway, SVC, "DeleteNatGateway")
AWS_THIN_CALL(aws_ec2_create_route_table, SVC, "CreateRouteTable")
AWS_THIN_CALL(aws_ec2_describe_route_tables, SVC, "DescribeRouteTables")
AWS_THIN_CALL(aws_ec2_delete_route_table, SVC, "DeleteRouteTable")
AWS_THIN_CALL(aws_ec2_create_route, SVC, "CreateRoute")
AWS_THIN_CALL(aws_ec2_delete_route, SVC, "DeleteRoute")
AWS_THIN_CALL(aws_ec2_associate_route_table, SVC, "AssociateRouteTable")
AWS_THIN_CALL(aws_ec2_disassociate_route_table, SVC, "DisassociateRouteTable")
AWS_THIN_CALL(aws_ec2_create_security_group, SVC, "CreateSecurityGroup")
AWS_THIN_CALL(aws_ec2_describe_security_groups, SVC, "DescribeSecurityGroups")
AWS_THIN_CALL(aws_ec2_delete_security_group, SVC, "DeleteSecurityGroup")
AWS_THIN_CALL(aws_ec2_authorize_security_group_ingress, SVC,
    "AuthorizeSecurityGroupIngress")
AWS_THIN_CALL(aws_ec2_authorize_security_group_egress, SVC,
    "AuthorizeSecurityGroupEgress")
AWS_THIN_CALL(aws_ec2_revoke_security_group_ingress, SVC,
    "RevokeSecurityGroupIngress")
AWS_THIN_CALL(aws_ec2_revoke_security_group_egress, SVC,
    "RevokeSecurityGroupEgress")
AWS_THIN_CALL(aws_ec2_create_tags, SVC, "CreateTags")
AWS_THIN_CALL(aws_ec2_delete_tags, SVC, "DeleteTags")
AWS_THIN_CALL(aws_ec2_describe_availability_zones, SVC,
    "DescribeAvailabilityZones")
AWS_THIN_CALL(aws_ec2_describe_instance_type_offerings, SVC,
    "DescribeInstanceTypeOfferings")
AWS_THIN_CALL(aws_ec2_describe_instance_types, SVC, "DescribeInstanceTypes")
AWS_THIN_CALL(aws_ec2_create_vpc_endpoint, SVC, "CreateVpcEndpoint")
AWS_THIN_CALL(aws_ec2_delete_vpc_endpoints, SVC, "DeleteVpcEndpoints")
