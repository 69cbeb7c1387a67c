/*
 * names.c: deterministic names and the VPC address plan shared by the
 * pipelines (see pipelines.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/buf.h"
#include "lib/log.h"
#include "pipelines/pipelines.h"

const char *const sw_role_suffixes[] = { SW_ROLE_EKS, SW_ROLE_HP_EXEC,
	SW_ROLE_AUTOSCALE, SW_ROLE_TIERED, SW_ROLE_LBC, SW_ROLE_TRAINING_OP,
	SW_ROLE_INFERENCE, SW_ROLE_MLFLOW, NULL };

void
sw_name(char *out, size_t sz, const char *cluster, const char *what)
{
	/* A name cut short would name another resource: none at all
	 * makes the call that uses it fail. */
	if (sw_fmt(out, sz, "slipway-%s-%s", cluster, what) != SW_OK) {
		sw_error("resource name for cluster %s too long", cluster);
		out[0] = '\0';
	}
}

int
sw_cidr_parse(const char *cidr, uint32_t *base, int *prefix)
{
	unsigned a, b, c, d, n;
	char tail;

	if (cidr == NULL)
		return -1;
	if (sscanf(cidr, "%u.%u.%u.%u/%u%c", &a, &b, &c, &d, &n, &tail) != 5 ||
	    a > 255 || b > 255 || c > 255 || d > 255 || n > 32)
		return -1;
	*base = (uint32_t)a << 24 | (uint32_t)b << 16 | (uint32_t)c << 8 | d;
	*prefix = (int)n;
	if (n < 32 && (*base & (0xffffffffu >> n)) != 0)
		return -1; /* host bits set */
	return 0;
}

int
sw_cidr_overlap(const char *x, const char *y)
{
	uint32_t a, b, ma, mb, m;
	int pa, pb;

	if (sw_cidr_parse(x, &a, &pa) != 0 || sw_cidr_parse(y, &b, &pb) != 0)
		return 0;
	ma = pa ? 0xffffffffu << (32 - pa) : 0;
	mb = pb ? 0xffffffffu << (32 - pb) : 0;
	m = ma & mb;
	return (a & m) == (b & m);
}

static int
vpc_ab(const char *vpc, unsigned *a, unsigned *b)
{
	uint32_t base;
	int prefix;

	if (sw_cidr_parse(vpc, &base, &prefix) != 0 || prefix != 16)
		return -1;
	*a = base >> 24;
	*b = (base >> 16) & 255;
	return 0;
}

int
sw_cidr_public(const char *vpc, int i, char *out, size_t sz)
{
	unsigned a, b;

	if (vpc_ab(vpc, &a, &b) != 0 || i < 0 || i > 1)
		return -1;
	return sw_fmt(out, sz, "%u.%u.%d.0/24", a, b, i) == SW_OK ? 0 : -1;
}

int
sw_cidr_private(const char *vpc, int i, char *out, size_t sz)
{
	unsigned a, b;

	if (vpc_ab(vpc, &a, &b) != 0 || i < 0 || i > 1)
		return -1;
	return sw_fmt(out, sz, "%u.%u.%d.0/20", a, b, 16 * (i + 1)) == SW_OK
	    ? 0
	    : -1;
}

int
sw_cidr_compute(const char *vpc, int k, char *out, size_t sz)
{
	unsigned a, b;

	if (vpc_ab(vpc, &a, &b) != 0 || k < 0 || k > 11)
		return -1;
	return sw_fmt(out, sz, "%u.%u.%d.0/20", a, b, 64 + 16 * k) == SW_OK
	    ? 0
	    : -1;
}

const char *
sw_ec2_type(const char *ml)
{
	return strncmp(ml, "ml.", 3) == 0 ? ml + 3 : ml;
}
