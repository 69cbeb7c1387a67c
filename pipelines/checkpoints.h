/*
 * checkpoints.h: a training job's checkpoints in S3, read from the
 * listing of its checkpoint prefix, and the retention rule that says
 * which of them to delete (checkpoints.c).
 */
#ifndef SW_CHECKPOINTS_H
#define SW_CHECKPOINTS_H

#include <json-c/json.h>
#include <stdint.h>

#include "cloud/aws.h"
#include "lib/err.h"

/* Where a job's trainer saves, under its output directory. */
#define SW_CKPT_DIR "checkpoints"

/*
 * The checkpoints under prefix (ending in '/') of bucket, newest step
 * first: *items (new) is [{name, step, time, size_bytes, objects,
 * complete, newest_complete, keys}], where keys lists every object of
 * the checkpoint.  ListObjectsV2 is followed through every page; each
 * request counts in *calls.
 *
 * A checkpoint is a directory step-<N>/ or checkpoint-<N>/; it is
 * complete when it holds .metadata (PyTorch DCP writes it last, after
 * every rank's shards) or trainer_state.json (the Hugging Face Trainer
 * writes it after the model and optimizer states); otherwise partial.
 */
sw_err sw_ckpt_list(struct aws_ctx *, const char *bucket, const char *prefix,
    json_object **items, int *calls, struct aws_error *);

/*
 * Retention "keep the last keep complete": every checkpoint older than
 * the keep-th newest complete one goes, complete or partial; partial
 * ones newer than it stay (a save may be under way).  items as
 * sw_ckpt_list made them (borrowed); a new array of the names doomed,
 * newest first, and *keys (new) every object key they hold.
 */
json_object *sw_ckpt_doomed(
    json_object *items, int64_t keep, json_object **keys);

#endif
