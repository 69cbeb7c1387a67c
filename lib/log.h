/*
 * log.h: one-line structured log records on stderr (the launcher points
 * each process's stderr at its log file).  Never pass a secret: tokens,
 * session ids and AWS keys are not logged anywhere.
 */
#ifndef SW_LOG_H
#define SW_LOG_H

enum sw_log_level { SW_LOG_DEBUG, SW_LOG_INFO, SW_LOG_WARN, SW_LOG_ERROR };

/* Name used as the record's "proc" field; borrowed, must outlive use. */
void	sw_log_init(const char *procname);
/* That name ("slipway" before sw_log_init).  Borrowed. */
const char *sw_log_proc(void);
void	sw_log_set_level(enum sw_log_level);
void	sw_log(enum sw_log_level, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

#define sw_info(...)	sw_log(SW_LOG_INFO, __VA_ARGS__)
#define sw_warn(...)	sw_log(SW_LOG_WARN, __VA_ARGS__)
#define sw_error(...)	sw_log(SW_LOG_ERROR, __VA_ARGS__)
#define sw_debug(...)	sw_log(SW_LOG_DEBUG, __VA_ARGS__)

#endif
