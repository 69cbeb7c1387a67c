/*
 * prices.h: the hourly price of an instance type, from the state store's
 * cache while fresh, else from the AWS Price List API (and kept).  One
 * rule for the plans' cost (handlers/cost.c) and the usage ledger
 * (poller/ledger.c).
 */
#ifndef SW_PIPE_PRICES_H
#define SW_PIPE_PRICES_H

#include "cloud/aws.h"
#include "lib/db.h"
#include "lib/prices.h"

#define SW_PRICE_HYPERPOD "AmazonSageMaker"

/*
 * The price of itype in the context's region into *p.  When none is
 * known, *why (static text) says why; a stale cached price serves when
 * the API does not answer.
 */
void sw_price_hour(struct sw_db *, struct aws_ctx *, const char *itype,
    struct sw_price *p, const char **why);

#endif
