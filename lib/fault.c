/*
 * fault.c: the fault hooks of fault.h.  Tests set SLIPWAY_FAULT in the
 * environment of `slipway start`; every child inherits it.  The hooks
 * read it each time (they sit on rare paths: after a mutating call), so
 * a test needs no restart to arm or disarm one.
 */
#include "config.h"

#ifdef SW_FAULT_INJECTION
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/fault.h"
#include "lib/log.h"

/* point is one of the comma-separated names in list. */
static int
in_list(const char *list, const char *point)
{
	size_t n = strlen(point);
	const char *p = list;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, point, n) == 0 && (p[n] == ',' ||
		    p[n] == '\0'))
			return 1;
		p = strchr(p, ',');
		if (p != NULL)
			p++;
	}
	return 0;
}

void
sw_fault_kill_after(const char *point)
{
	const char *f = getenv("SLIPWAY_FAULT");
	const char *once = getenv("SLIPWAY_FAULT_ONCE");
	char path[600];
	int fd;

	if (f == NULL || strncmp(f, "kill-after:", 11) != 0 ||
	    !in_list(f + 11, point))
		return;
	if (once != NULL && once[0] != '\0') {
		if ((size_t)snprintf(path, sizeof(path), "%s.%s", once,
		    point) >= sizeof(path))
			return;
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0)
			return;		/* died here once already */
		close(fd);
	}
	sw_error("fault injection: SIGKILL after %s", point);
	(void)raise(SIGKILL);
}

#else
/* ISO C wants a translation unit to declare something. */
typedef int sw_fault_unused;
#endif
