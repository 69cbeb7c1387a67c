/* test-metrics.c: counters added from several threads of one process at
 * once are all counted, each key in one slot of the process's file, as
 * GET /metrics sums them; the stream's log followers count from threads
 * of their own. */
#include <sys/stat.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/metrics.h"
#include "t/tap.h"

#define THREADS 4
#define ADDS 1000000

static void *
adder(void *arg)
{
	const char *own = arg;
	int i;

	for (i = 0; i < ADDS; i++) {
		sw_metric_add("test_shared_total", 1, "k", "a", NULL);
		sw_metric_add("test_own_total", 1, "t", own, NULL);
	}
	return NULL;
}

int
main(void)
{
	static char names[THREADS][4] = { "t0", "t1", "t2", "t3" };
	char dir[] = "/tmp/sw-test-metrics-XXXXXX", run[64], metrics[80];
	char want[128];
	pthread_t th[THREADS];
	struct sw_buf out;
	int i, started = 0;

	if (mkdtemp(dir) == NULL)
		skip_all("cannot make a state directory");
	snprintf(run, sizeof(run), "%s/run", dir);
	snprintf(metrics, sizeof(metrics), "%s/metrics", run);
	if (!ok(mkdir(run, 0700) == 0 &&
		    setenv("SLIPWAY_STATE_DIR", dir, 1) == 0,
		"a state directory %s", dir))
		return tap_done();
	for (i = 0; i < THREADS; i++)
		started += pthread_create(&th[i], NULL, adder, names[i]) == 0;
	is_int(started, THREADS, "four threads count at once");
	for (i = 0; i < started; i++)
		pthread_join(th[i], NULL);

	sw_buf_init(&out, 1 << 20);
	is_int(sw_metrics_render_counters(metrics, &out), SW_OK,
	    "the counters are read back");
	snprintf(want, sizeof(want), "test_shared_total{k=\"a\"} %d\n",
	    THREADS * ADDS);
	ok(strstr(sw_buf_str(&out), want) != NULL,
	    "one key added to by every thread: every add counted (%d)",
	    THREADS * ADDS);
	for (i = 0; i < THREADS; i++) {
		snprintf(want, sizeof(want), "test_own_total{t=\"%s\"} %d\n",
		    names[i], ADDS);
		ok(strstr(sw_buf_str(&out), want) != NULL,
		    "a key of thread %s's own: every add counted", names[i]);
	}
	if (!ok(strstr(sw_buf_str(&out), "# TYPE test_own_total") != NULL &&
		    strstr(sw_buf_str(&out), "# TYPE test_shared_total") !=
			NULL,
		"two counters"))
		diag("%s", sw_buf_str(&out));
	sw_buf_free(&out);
	snprintf(want, sizeof(want), "%s/%ld", metrics, (long)getpid());
	unlink(want);
	rmdir(metrics);
	rmdir(run);
	rmdir(dir);
	return tap_done();
}
