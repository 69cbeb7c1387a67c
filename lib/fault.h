/*
 * fault.h: fault injection for tests, driven by the environment and
 * inert when it is unset.  SLIPWAY_FAULT names one fault:
 *
 *	kill-after:<point>[,<point>...]
 *		SIGKILL this process right after a point: a pipeline
 *		step's mutating AWS call by name (e.g.
 *		kill-after:UpdateClusterSoftware: after that request was
 *		answered, before the answer is recorded).  With
 *		$SLIPWAY_FAULT_ONCE set, once per point: the file
 *		$SLIPWAY_FAULT_ONCE.<point> is created first, and a process
 *		that finds it does not die there again.
 *
 * Built only with --enable-fault-injection (the test build); otherwise
 * every hook is an empty inline function.
 */
#ifndef SW_FAULT_H
#define SW_FAULT_H

#include "config.h"

#ifdef SW_FAULT_INJECTION
/* Die here when SLIPWAY_FAULT is kill-after:<point>. */
void	sw_fault_kill_after(const char *point);
#else
static inline void
sw_fault_kill_after(const char *point)
{
	(void)point;
}
#endif

#endif
