/*
 * patterns.h: the patterns of names and ids the operation table's
 * fields share, each quoted in words by api/optable.c when a value
 * breaks it.
 */
#ifndef SW_PATTERNS_H
#define SW_PATTERNS_H

#define PAT_OP_ID "op-[0-9a-f]{16}"
#define PAT_TOKEN_NAME "[A-Za-z0-9._-]{1,64}"
#define PAT_NAME "[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"
#define PAT_CLUSTER "[a-z][a-z0-9-]{0,30}[a-z0-9]"
#define PAT_GROUP "[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"
#define PAT_AZ "[a-z]{2}(-gov)?-[a-z]+-[0-9][a-z]"
#define PAT_REGION "[a-z]{2}(-gov)?-[a-z]+-[0-9]"
#define PAT_ACCOUNT "[0-9]{12}"
#define PAT_ML_TYPE "ml\\.[a-z0-9-]+\\.[a-z0-9]+"
#define PAT_CIDR16 "[0-9]{1,3}\\.[0-9]{1,3}\\.0\\.0/16"

#define PAT_PLAN_ARN \
	"arn:aws[a-z-]*:sagemaker:[a-z0-9-]+:[0-9]{12}:" \
	"training-plan/[a-zA-Z0-9-]{1,63}"

#define PAT_SUBNET "subnet-[0-9a-f]{8,17}"
#define PAT_NODE "i-[0-9a-f]{8,17}"
#define PAT_VOLUME "vol-[0-9a-f]{8}([0-9a-f]{9})?"
#define PAT_MLFLOW_APP "[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?"
#define PAT_BUCKET "[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]"
#define PAT_IMAGE_RELEASE "[0-9]{4}\\.[0-9]{2}\\.[0-9]{2}"
#define PAT_QUOTA "[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}"
#define PAT_TEAM "[a-z0-9]([-a-z0-9]{0,37}[a-z0-9])?"

/*
 * Workloads share one S3 data contract: the PVC (default s3-claim) is
 * mounted at /data; datasets live under /data/datasets, models under
 * /data/models, outputs under /data/outputs/<job>, code under
 * /data/code and recipe configs under /data/configs.  Paths are
 * relative, segment by segment, so ".." and absolute paths cannot be
 * written.
 */
#define PAT_K8S_NAME "[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?"

#define PAT_WL_NAME "[a-z]([a-z0-9-]{0,50}[a-z0-9])?"

/* A checkpoint directory a trainer writes under its output directory. */
#define PAT_CKPT "(step|checkpoint)-[0-9]{1,12}"

#define PAT_REL_PATH \
	"[A-Za-z0-9_][A-Za-z0-9._-]{0,127}" \
	"(/[A-Za-z0-9_][A-Za-z0-9._-]{0,127}){0,7}"

#define PAT_IMAGE \
	"[a-z0-9][a-z0-9._-]{0,127}(:[0-9]{1,5})?" \
	"(/[a-z0-9][a-z0-9._-]{0,127}){0,6}" \
	"(:[A-Za-z0-9_][A-Za-z0-9._-]{0,127})?" \
	"(@sha256:[0-9a-f]{64})?"

/* An EKS add-on of a cluster, and the version to move it to. */
#define PAT_ADDON_VERSION "v[0-9]+\\.[0-9]+\\.[0-9]+(-[A-Za-z0-9.]+)*"

#endif
