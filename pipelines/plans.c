/*
 * plans.c: buying SageMaker training plans (handlers/plans.c picks the
 * offering and records it in the operation's params).
 *
 *   training_plan.reserve  purchase  CreateTrainingPlan, unless the plan
 *                                    exists (a resumed stage buys once)
 *                          scheduled wait until Scheduled or Active
 *   training_plan.extend   extend    ExtendTrainingPlan, unless the
 *                                    history has this offering already
 *                          paid      wait until its payment completed
 */
#include <string.h>

#include "lib/json.h"
#include "pipelines/pipeline.h"
#include "pipelines/pipelines.h"
#include "pipelines/stepkit.h"

#define PLAN_NAME(s) sw_json_get_str((s)->params, "name")
#define OFFERING_ID(s) sw_json_path_str((s)->params, "offering.offering_id")

/* DescribeTrainingPlan of the operation's plan; *out NULL when none. */
static enum sw_step_rc
describe(struct sw_step *s, json_object **out)
{
	struct aws_error err;
	enum sw_step_rc rc;

	memset(&err, 0, sizeof(err));
	rc = sw_step_aws(s, AWS_SVC_SAGEMAKER, "DescribeTrainingPlan",
	    sw_jo("TrainingPlanName", sw_js(PLAN_NAME(s)), NULL), out, &err);
	if (rc == STEP_FAIL && strcmp(err.code, "ResourceNotFound") == 0) {
		*out = NULL;
		return STEP_DONE;
	}
	return rc;
}

static enum sw_step_rc
stage_purchase(struct sw_step *s)
{
	json_object *p = NULL, *out = NULL;

	TRY(describe(s, &p));
	if (p != NULL) {
		json_object_put(p);
		return STEP_DONE;
	}
	TRY(sw_step_aws(s, AWS_SVC_SAGEMAKER, "CreateTrainingPlan",
	    sw_jo("TrainingPlanName", sw_js(PLAN_NAME(s)),
		"TrainingPlanOfferingId", sw_js(OFFERING_ID(s)), NULL),
	    &out, NULL));
	if (sw_json_get_str(out, "TrainingPlanArn") != NULL) {
		sw_res_set(s, "arn", sw_json_get_str(out, "TrainingPlanArn"));
		(void)sw_step_save(s);
	}
	json_object_put(out);
	return STEP_DONE;
}

static enum sw_step_rc
stage_scheduled(struct sw_step *s)
{
	json_object *p = NULL;
	const char *st;
	enum sw_step_rc rc;

	if (s->plan)
		return STEP_DONE;
	TRY(describe(s, &p));
	if (p == NULL)
		return sw_step_wait(s, sw_poll_ms(s, 15000),
		    "training plan %s "
		    "is not there yet",
		    PLAN_NAME(s));
	st = sw_json_get_str(p, "Status");
	if (st != NULL &&
	    (strcmp(st, "Scheduled") == 0 || strcmp(st, "Active") == 0)) {
		sw_res_set(s, "status", st);
		rc = STEP_DONE;
	} else if (st != NULL && strcmp(st, "Pending") == 0)
		rc = sw_step_wait(s, sw_poll_ms(s, 15000),
		    "training plan %s "
		    "is Pending (payment)",
		    PLAN_NAME(s));
	else
		rc = sw_step_fail(s, "training plan %s is %s: %s", PLAN_NAME(s),
		    st ? st : "unknown",
		    sw_json_get_str(p, "StatusMessage")
			? sw_json_get_str(p, "StatusMessage")
			: "");
	json_object_put(p);
	return rc;
}

/* clang-format off */
static const struct sw_stage_def reserve_stages[] = {
	{ "purchase", stage_purchase },
	{ "scheduled", stage_scheduled },
	{ NULL, NULL }
};
/* clang-format on */

const struct sw_pipeline sw_pl_plan_reserve = { "training_plan.reserve",
	reserve_stages };

/* This operation's extension in the plan's history (a new reference in
 * *ext), or *ext NULL when it is not there. */
static enum sw_step_rc
find_extension(struct sw_step *s, json_object **ext)
{
	json_object *out = NULL, *list;
	size_t i;

	*ext = NULL;
	TRY(sw_step_aws(s, AWS_SVC_SAGEMAKER,
	    "DescribeTrainingPlanExtensionHistory",
	    sw_jo("TrainingPlanArn",
		sw_js(sw_json_get_str(s->params, "plan_arn")), "MaxResults",
		sw_ji(100), NULL),
	    &out, NULL));
	list = sw_json_get(out, "TrainingPlanExtensions");
	for (i = 0; list && i < json_object_array_length(list); i++) {
		json_object *e = json_object_array_get_idx(list, i);

		if (strcmp(sw_json_get_str(e, "TrainingPlanExtensionOfferingId")
			    ?: "",
			OFFERING_ID(s)) == 0) {
			*ext = json_object_get(e);
			break;
		}
	}
	json_object_put(out);
	return STEP_DONE;
}

static enum sw_step_rc
stage_extend(struct sw_step *s)
{
	json_object *ext = NULL, *out = NULL;

	TRY(find_extension(s, &ext));
	if (ext != NULL) {
		json_object_put(ext);
		return STEP_DONE;
	}
	TRY(sw_step_aws(s, AWS_SVC_SAGEMAKER, "ExtendTrainingPlan",
	    sw_jo(
		"TrainingPlanExtensionOfferingId", sw_js(OFFERING_ID(s)), NULL),
	    &out, NULL));
	json_object_put(out);
	return STEP_DONE;
}

static enum sw_step_rc
stage_paid(struct sw_step *s)
{
	json_object *ext = NULL;
	const char *pay;
	enum sw_step_rc rc;

	if (s->plan)
		return STEP_DONE;
	TRY(find_extension(s, &ext));
	if (ext == NULL)
		return sw_step_wait(s, sw_poll_ms(s, 15000),
		    "the extension is "
		    "not in the plan's history yet");
	pay = sw_json_get_str(ext, "PaymentStatus");
	if (pay != NULL && strcmp(pay, "Completed") == 0)
		rc = STEP_DONE;
	else if (pay == NULL || strcmp(pay, "Pending") == 0)
		rc = sw_step_wait(s, sw_poll_ms(s, 15000),
		    "the extension's "
		    "payment is pending");
	else
		rc = sw_step_fail(s, "the extension's payment is %s", pay);
	json_object_put(ext);
	return rc;
}

/* clang-format off */
static const struct sw_stage_def extend_stages[] = {
	{ "extend", stage_extend },
	{ "paid", stage_paid },
	{ NULL, NULL }
};
/* clang-format on */

const struct sw_pipeline sw_pl_plan_extend = { "training_plan.extend",
	extend_stages };
