/*
 * aws_ec2.c: what the ec2 protocol needs to know about the EC2 calls
 * Slipway makes (VPCs, subnets, gateways, Elastic IPs, route tables,
 * security groups, tags, zone and instance-type lookups).
 *
 * The ec2 protocol flattens lists as Name.N under the model's wire
 * name, which for list members is usually the singular: Filters ->
 * Filter, Values -> Value, Tags -> Tag.  aws_ec2_renames lists every
 * such member of those operations (from the locationName and
 * queryName traits of ec2/2016-11-15); the serialiser in awsproto.c
 * applies it.  Output keys are the XML wire names (vpcSet, vpcId).
 */
#include "cloud/aws_api.h"

/* clang-format off */
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
/* clang-format on */
