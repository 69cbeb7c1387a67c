/*
 * aws_pricing.c: one on-demand hourly price from the Price List Query
 * API (aws_api.h).  GetProducts answers with products as JSON strings
 * (the model's jsonvalue trait); each is parsed here and its OnDemand
 * term's "Hrs" dimension read.  Money is kept in millionths of a US
 * dollar, never in floating point.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cloud/aws_api.h"
#include "lib/buf.h"
#include "lib/json.h"

int
aws_price_micro(const char *s, int64_t *out)
{
	int64_t whole = 0, frac = 0;
	int digits = 0, any = 0;

	if (s == NULL)
		return -1;
	for (; isdigit((unsigned char)*s); s++, any = 1) {
		if (whole > (INT64_MAX / 10 - 10) / 1000000)
			return -1;
		whole = whole * 10 + (*s - '0');
	}
	if (*s == '.')
		for (s++; isdigit((unsigned char)*s); s++, any = 1) {
			if (digits < 6)
				frac = frac * 10 + (*s - '0');
			else if (digits == 6 && *s >= '5')
				frac++;
			digits++;
		}
	if (!any || *s != '\0')
		return -1;
	for (; digits < 6; digits++)
		frac *= 10;
	*out = whole * 1000000 + frac;
	return 0;
}

/* The first on-demand dimension priced per hour in USD of one product. */
static void
price_of(json_object *item, struct aws_price *out)
{
	json_object_iter t, d;
	json_object *terms =
	    sw_json_get(sw_json_get(item, "terms"), "OnDemand");

	if (terms == NULL || !json_object_is_type(terms, json_type_object))
		return;
	json_object_object_foreachC(terms, t)
	{
		json_object *dims = sw_json_get(t.val, "priceDimensions");

		if (dims == NULL ||
		    !json_object_is_type(dims, json_type_object))
			continue;
		json_object_object_foreachC(dims, d)
		{
			const char *unit = sw_json_get_str(d.val, "unit");
			const char *usd =
			    sw_json_path_str(d.val, "pricePerUnit.USD");

			if (unit && strcmp(unit, "Hrs") == 0 &&
			    aws_price_micro(usd, &out->usd_micro) == 0) {
				out->known = 1;
				return;
			}
		}
	}
}

/* Does the product's usage type name exactly the on-demand instance
 * hours of itype ("...-Cluster:ml.x" or "...BoxUsage:x")? */
static int
usage_is(const char *usage, const char *suffix)
{
	size_t ul, sl;

	if (usage == NULL)
		return 0;
	ul = strlen(usage);
	sl = strlen(suffix);
	return ul >= sl && strcmp(usage + ul - sl, suffix) == 0 &&
	    (ul == sl || usage[ul - sl - 1] == '-' || suffix[0] == '-');
}

static json_object *
filter(const char *type, const char *field, const char *value)
{
	return sw_jo("Type", sw_js(type), "Field", sw_js(field), "Value",
	    sw_js(value), NULL);
}

sw_err
aws_price_hourly(struct aws_ctx *ctx, const char *service, const char *region,
    const char *itype, struct aws_price *out, struct aws_error *err)
{
	char suffix[96];
	json_object *in, *res = NULL, *list, *filters;
	int hp = strcmp(service, "AmazonSageMaker") == 0;
	size_t i;
	sw_err e;

	memset(out, 0, sizeof(*out));
	if ((e = sw_fmt(suffix, sizeof(suffix),
		 hp ? "-Cluster:%s" : "BoxUsage:%s", itype)) != SW_OK)
		return SW_EINVAL;
	filters = sw_ja(filter("TERM_MATCH", "regionCode", region),
	    filter("CONTAINS", "usagetype", suffix));
	if (!hp) {
		json_object_array_add(
		    filters, filter("TERM_MATCH", "operatingSystem", "Linux"));
		json_object_array_add(
		    filters, filter("TERM_MATCH", "tenancy", "Shared"));
	}
	in = sw_jo("ServiceCode", sw_js(service), "FormatVersion",
	    sw_js("aws_v1"), "MaxResults", json_object_new_int(10), "Filters",
	    filters, NULL);
	e = aws_call(ctx, AWS_SVC_PRICING, "GetProducts", in, &res, err);
	json_object_put(in);
	if (e != SW_OK)
		return e;
	list = sw_json_get(res, "PriceList");
	for (i = 0; list && i < json_object_array_length(list); i++) {
		json_object *item = json_tokener_parse(
		    json_object_get_string(json_object_array_get_idx(list, i)));
		json_object *prod = sw_json_get(item, "product");

		if (usage_is(sw_json_path_str(prod, "attributes.usagetype"),
			suffix)) {
			sw_fmt_text(out->sku, sizeof(out->sku), "%s",
			    sw_json_get_str(prod, "sku")
				? sw_json_get_str(prod, "sku")
				: "");
			sw_fmt_text(out->published, sizeof(out->published),
			    "%s",
			    sw_json_get_str(item, "publicationDate")
				? sw_json_get_str(item, "publicationDate")
				: "");
			price_of(item, out);
			json_object_put(item);
			break;
		}
		json_object_put(item);
	}
	json_object_put(res);
	return SW_OK;
}
