/*
 * log.h: one-line structured log records on stderr (the launcher points
 * each process's stderr at its log file).  Never pass a secret: tokens,
 * session ids and AWS keys are not logged anywhere.
 */
#ifndef SW_LOG_H
#define SW_LOG_H

enum sw_log_level { SW_LOG_DEBUG, SW_LOG_INFO, SW_LOG_WARN, SW_LOG_ERROR };

/* Name used as the record's "proc" field; borrowed, must outlive use. */
void sw_log_init(const char *procname);
/*
 * Write stderr (and stdout, when it is the same file) to path again,
 * reopened (created if gone): after logrotate renamed it.  sw_log_init
 * takes the path from SLIPWAY_LOG_FILE (set by the supervisor for each
 * child), and then every log record checks, at most once a second,
 * that the path still names the file it writes to.
 */
void sw_log_follow(const char *path);
/* Reopen the followed file now.  0, or -1 when it cannot be opened. */
int sw_log_reopen(void);
/*
 * What the records that follow are about, until the next call: the
 * request id nginx gave the request ($request_id, 32 hex digits; any
 * other text is dropped) and the operation, each NULL for none.  A
 * record then carries "request_id" and "operation_id", so one grep
 * follows a request from nginx's access log through the worker that
 * accepted its operation to the poller's stages and AWS calls.
 */
void sw_log_context(const char *request_id, const char *operation_id);
/* That name ("slipway" before sw_log_init).  Borrowed. */
const char *sw_log_proc(void);
void sw_log_set_level(enum sw_log_level);
/* Whether a record of that level would be written. */
int sw_log_enabled(enum sw_log_level);
void sw_log(enum sw_log_level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define sw_info(...) sw_log(SW_LOG_INFO, __VA_ARGS__)
#define sw_warn(...) sw_log(SW_LOG_WARN, __VA_ARGS__)
#define sw_error(...) sw_log(SW_LOG_ERROR, __VA_ARGS__)
#define sw_debug(...) sw_log(SW_LOG_DEBUG, __VA_ARGS__)

#endif
