/*
 * limits.h: every size, count and time bound of Slipway in one place,
 * each with the reason for its value.  Include as "lib/limits.h".
 */
#ifndef SW_LIMITS_H
#define SW_LIMITS_H

/* Largest request body a worker reads; nginx caps at the same size. */
#define SW_MAX_BODY (1024 * 1024)
/* Largest response body read from AWS or Kubernetes in one call. */
#define SW_MAX_UPSTREAM_BODY (16 * 1024 * 1024)
/* Longest request path or query string we route. */
#define SW_MAX_PATH 2048
#define SW_MAX_QUERY 4096
/* Deepest JSON nesting accepted in a request body. */
#define SW_MAX_JSON_DEPTH 32
/* Longest single string field in a request (names, ARNs, scripts). */
#define SW_MAX_STRING 4096
/* Most elements in one array field of a request. */
#define SW_MAX_ARRAY 256
/* Most per-field errors reported in one problem document. */
#define SW_MAX_FIELD_ERRORS 32
/* Idempotency-Key header: 1..128 printable ASCII characters. */
#define SW_MAX_IDEMPOTENCY_KEY 128
/* Token and session secrets: 256 random bits. */
#define SW_SECRET_BYTES 32
/* Browser sessions last this long (seconds). */
#define SW_SESSION_TTL (12 * 3600)
/* Token names: 1..64 of [A-Za-z0-9._-]. */
/* A token's MCP tool classes ("read-only,workloads"), at most. */
#define SW_MAX_TOOL_CLASSES 127
#define SW_MAX_TOKEN_NAME 64
/* A team name ([a-z0-9-], as its namespace hyperpod-ns-<team>). */
#define SW_MAX_TEAM 39
/* The teams one principal is in (a person's groups may map to more). */
#define SW_MAX_MEMBERSHIPS 16
/* SQLite waits this long for a lock before SW_EDB (milliseconds). */
#define SW_DB_BUSY_MS 5000
/* How long a write waits its turn in all (several busy waits) before
 * it is answered 503: well inside nginx's 90 s FastCGI timeout. */
#define SW_DB_WRITE_WAIT_MS 30000
/* How far the database's clock may be from a host's before doctor says
 * so (milliseconds). */
#define SW_DB_CLOCK_SKEW_MS 2000
/* Most operations listed in one page. */
#define SW_MAX_PAGE 200
/* Most events returned with one operation. */
#define SW_MAX_EVENTS 500
/* Most pipeline kinds (pipelines/pipeline.c's registry). */
#define SW_MAX_PIPELINES 32
/* Most stages in one operation. */
#define SW_MAX_STAGES 32
/* A claimed operation is re-claimable after this lease (seconds),
 * renewed at each of its stage's writes (lib/ops.h, sw_lease_begin). */
#define SW_OP_LEASE 10
/* operation_wait long-poll bound (seconds). */
#define SW_MAX_WAIT 60
/* A long poll whose watch of the database (sw_db_wait) is missing or
 * broken reads the operation this often instead (ms). */
#define SW_WAIT_NAP_MS 250
/* A broken watch of the database (its connection lost) is made again
 * this often (ms); slipway-stream's viewers have the sweep meanwhile. */
#define SW_DB_WATCH_RETRY_MS 1000
/* A token's last-used time is written at most this often (ms): a read
 * must not be a SQLite write.  Each worker also remembers the tokens it
 * touched (SW_TOKEN_TOUCH_CACHE of them) so it skips the statement. */
#define SW_TOKEN_TOUCH_MS 60000
#define SW_TOKEN_TOUCH_CACHE 32
/* Long polls (operation_wait) one token may hold at once, across every
 * worker; the next one is a 429 with Retry-After. */
#define SW_MAX_WAITS_PER_TOKEN 2
/* Clusters of one account and region the watch reads a second, on
 * average, however many that account holds (slipway.conf watch_rate):
 * each read is a HyperPod ListClusterEvents and the cluster's own
 * Kubernetes lists, and AWS throttles an account's reads, not a
 * cluster's.  Below this many clusters times watch_interval, every
 * cluster is read each interval. */
#define SW_WATCH_RATE 5
/* Processes of the REST wait pool (run/wait.sock, nginx sends every
 * ...:wait there), so long polls never hold a request worker; more
 * waits than this queue at nginx, never in front of other requests. */
#define SW_WAIT_WORKERS 4
/* Processes of the MCP wait pool (run/mcp-wait.sock): nginx sends a
 * request whose Mcp-Name header is operation_wait (2026-07-28 clients)
 * there. */
#define SW_MCP_WAIT_WORKERS 2
/* Long polls the MCP request workers may hold at once (legacy clients
 * send no Mcp-Name, so their waits run there, in process): half the MCP
 * workers, at least one, so the rest always answer. */
#define SW_MCP_WAIT_SHARE 2
/* Seconds a 429 for a long poll asks the client to wait. */
#define SW_WAIT_RETRY_AFTER 5
/* A JSON-RPC batch (MCP 2025-03-26 only) holds at most this many
 * messages; a longer one is refused whole with -32600, before any runs. */
#define SW_MCP_MAX_BATCH 16
/* Largest /mcp answer (bytes); past it the client gets a 500 JSON-RPC
 * internal error, never an empty 200. */
#define SW_MCP_MAX_ANSWER (32 * 1024 * 1024)
/* Outbound HTTP: connect and whole-call timeouts (seconds). */
#define SW_HTTP_CONNECT_TIMEOUT 5
#define SW_HTTP_TOTAL_TIMEOUT 60
/* A restarted worker is replaced no faster than this (milliseconds). */
#define SW_RESPAWN_DELAY_MS 100
/* Default and most REST and MCP FastCGI worker processes (each kind). */
#define SW_DEFAULT_WORKERS 4
#define SW_MAX_WORKERS 16
/* Plugins in plugins.d, and worker processes one plugin may ask for. */
#define SW_MAX_PLUGINS 8
#define SW_MAX_PLUGIN_WORKERS 4
/* Default listen port of nginx. */
#define SW_DEFAULT_PORT 3099

/* --- AWS client (lib/aws*.c, cloud/sigv4.c, cloud/creds.c, cloud/k8s.c) --- */
/* Access key ids and secrets are 16-128 characters (IAM limits). */
#define SW_AWS_MAX_KEY 128
/* STS session tokens run to about 2 KiB; leave room for growth. */
#define SW_AWS_MAX_TOKEN 4096
/* Region names ("us-west-2") and signing names ("sagemaker"). */
#define SW_AWS_MAX_NAME 64
/* Longest endpoint URL or service URL we build. */
#define SW_AWS_MAX_URL 2048
/* Error code, message and request id kept from an AWS error body. */
#define SW_AWS_MAX_ERR_CODE 128
#define SW_AWS_MAX_ERR_MSG 1024
#define SW_AWS_MAX_REQUEST_ID 128
/* Standard retry mode: attempts in total, counting the first call. */
#define SW_AWS_MAX_ATTEMPTS 3
/* Backoff: full jitter on min(base * 2^(n-1), cap) (milliseconds). */
#define SW_AWS_RETRY_BASE_MS 1000
#define SW_AWS_RETRY_CAP_MS 20000
/* Retry token bucket: size, cost of a retry, cost after a timeout. */
#define SW_AWS_RETRY_TOKENS 500
#define SW_AWS_RETRY_COST 5
#define SW_AWS_RETRY_TIMEOUT_COST 10
/* A first-try success refills this many tokens. */
#define SW_AWS_RETRY_REFILL 1
/* Refresh credentials this long before they expire (seconds): try at
 * the advisory mark, and stop using them at the mandatory one. */
#define SW_AWS_CREDS_ADVISORY (15 * 60)
#define SW_AWS_CREDS_MANDATORY (10 * 60)
/* IMDS and container endpoints answer fast or not at all (ms). */
#define SW_AWS_METADATA_TIMEOUT_MS 1000
#define SW_AWS_CONTAINER_TIMEOUT_MS 2000
/* IMDSv2 session token lifetime asked for, and reused for (seconds). */
#define SW_AWS_IMDS_TOKEN_TTL 21600
#define SW_AWS_IMDS_TOKEN_REUSE 21595
/* Largest shared credentials/config file, web identity token, or
 * container authorization token file we read. */
#define SW_AWS_MAX_FILE (256 * 1024)
/* EKS token: X-Amz-Expires sent, refresh age (14 min) and size cap. */
#define SW_EKS_TOKEN_EXPIRES 60
#define SW_EKS_TOKEN_REFRESH (14 * 60)
#define SW_EKS_TOKEN_MAX 4096
/* Clusters whose endpoint and CA one process remembers (cloud/kube.c),
 * and the longest cluster name kept there (EKS allows 100). */
#define SW_KUBE_MEMO 2048
#define SW_KUBE_MAX_NAME 101
/* Kubernetes watch: server-side timeoutSeconds, and the largest single
 * event line we buffer from a watch stream. */
#define SW_K8S_WATCH_TIMEOUT 300
#define SW_K8S_MAX_EVENT (4 * 1024 * 1024)
/* Most headers kept from one HTTP response. */
#define SW_HTTP_MAX_HEADERS 128
/* slipway-stream: live messages queued per viewer before it is closed
 * with 1008 (history is read from the file, outside this queue); the
 * longest log line (longer ones are split); upstream log bytes handed
 * over but not yet read by the loop (the follow thread then waits);
 * quiet time after an operation's terminal write before "end"; the
 * fallback re-render period in microseconds. */
#define SW_STREAM_QUEUE_MAX 1024
#define SW_STREAM_LINE_MAX (16 * 1024)
#define SW_STREAM_INBOX_MAX (1024 * 1024)
#define SW_STREAM_SETTLE_MS 100
#define SW_STREAM_SWEEP_US (2 * 1000 * 1000)
/* slipway-stream: viewers at once, in all and for one token (a 429
 * before the upgrade past either).  Each viewer holds two of nginx's
 * connections; nginx/slipway.conf.in sizes worker_connections for
 * these with room to spare for REST, MCP and health. */
#define SW_STREAM_MAX_VIEWERS 512
#define SW_STREAM_MAX_PER_TOKEN 64
/* Instance groups of one cluster create (its field table's max). */
#define SW_MAX_GROUPS 20

/* Longest provider access token (a JWT) read from an Authorization
 * header; nginx's header buffers hold 8 KiB. */
#define SW_MAX_JWT 8192
/* Largest discovery document or JWK Set read from a provider. */
#define SW_MAX_OIDC_DOC (256 * 1024)
/* A provider's keys are fetched again after this long (ms), and a token
 * whose kid no cached key has asks for them again, at most once per
 * SW_OIDC_REFRESH_MIN_MS in each process so a flood of unknown kids
 * cannot make Slipway flood the provider. */
#define SW_OIDC_JWKS_TTL_MS (3600 * 1000)
#define SW_OIDC_REFRESH_MIN_MS 5000
/* Keys past their TTL stay usable this long (ms) while the provider
 * cannot be reached; with none at all, every provider token is refused. */
#define SW_OIDC_JWKS_MAX_STALE_MS (24 * 3600 * 1000)
/* A fetch from the provider gives up after this long (ms): it holds the
 * request that needed the keys. */
#define SW_OIDC_FETCH_TIMEOUT_MS 5000
/* Clock difference allowed on exp, nbf and iat (seconds), by default
 * and at most (oidc.clock_skew). */
#define SW_OIDC_SKEW_DEFAULT 60
#define SW_OIDC_SKEW_MAX 300
/* Provider tokens each process remembers as checked (by SHA-256), so a
 * client's next request with the same token skips the signature. */
#define SW_OIDC_SEEN 64
/* Groups of a provider principal, as a comma list, at most. */
#define SW_MAX_PRINCIPAL_GROUPS 255

/* Notifications (poller/notify.c).  Deliveries one poller pass sends at
 * most; attempts before a delivery is dead (a dead letter); the first
 * retry's delay (ms), doubled each attempt up to the cap; how long one
 * webhook POST may take (ms, its connection 2 s of it); the lease an attempt holds (ms; longer
 * than any send); the largest event sent (bytes). */
#define SW_NOTIFY_BATCH 32
#define SW_NOTIFY_ATTEMPTS 8
#define SW_NOTIFY_BACKOFF_MS 2000
#define SW_NOTIFY_BACKOFF_CAP_MS (3600 * 1000)
#define SW_NOTIFY_TIMEOUT_MS 5000
/* A poller pass sends for at most this long (ms): operations wait. */
#define SW_NOTIFY_PASS_MS 2000
#define SW_NOTIFY_LEASE_MS 60000
#define SW_NOTIFY_MAX_BODY (64 * 1024)

#endif
