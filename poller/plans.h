/*
 * plans.h: the poller's training plan expiry warning (plans.c).
 */
#ifndef SW_POLLER_PLANS_H
#define SW_POLLER_PLANS_H

#include "cloud/aws.h"
#include "lib/db.h"

/* Default of training_plan.warn_before (slipway.conf), seconds. */
#define SW_PLAN_WARN_BEFORE 86400

/* Warn once of every training plan that ends within warn_before. */
void sw_plan_tick(struct sw_db *, struct aws_ctx *);

#endif
