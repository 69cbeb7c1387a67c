/*
 * metrics.c: per-process counter files and their sum (see metrics.h).
 * A file is SW_METRIC_SLOTS fixed slots of {key, value}, written only
 * by its process; the threads of one (the stream's log followers count
 * their AWS calls too) take one lock to claim a slot and add to it.  A
 * reader that catches a slot half written sees at worst a count one
 * scrape late (a key is written before its value becomes non-zero).
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/buf.h"
#include "lib/alloc.h"
#include "lib/conf.h"
#include "lib/log.h"
#include "lib/metrics.h"

struct slot {
	char key[SW_METRIC_KEY];
	int64_t value;
};

static struct {
	struct slot *slots;
	pid_t pid; /* who mapped them */
	int failed; /* logged already */
	int hooked; /* forked() is registered */
	volatile int forked; /* in a child: slots not ours */
} mine;

/* Held to open the file, claim a slot and add to it; across a fork
 * (lock_fork) so a child never inherits it held. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

#define FILE_SIZE (sizeof(struct slot) * SW_METRIC_SLOTS)

static void
lock_fork(void)
{
	pthread_mutex_lock(&lock);
}

static void
unlock_fork(void)
{
	pthread_mutex_unlock(&lock);
}

/* In a child of fork(): its counts go to a file of its own. */
static void
forked(void)
{
	mine.forked = 1;
	pthread_mutex_unlock(&lock);
}

static void
metrics_open(void)
{
	const char *state;
	char path[700];
	void *p;
	int fd;

	/* A fork says so (forked): no getpid() system call per count. */
	if (mine.slots != NULL && !mine.forked)
		return;
	state = sw_config_state_dir(NULL);
	if (!mine.hooked && pthread_atfork(lock_fork, unlock_fork, forked) == 0)
		mine.hooked = 1;
	mine.forked = !mine.hooked; /* unhooked: getpid() each time */
	if (mine.slots != NULL && mine.pid == getpid())
		return;
	if (mine.slots != NULL)
		(void)munmap(mine.slots, FILE_SIZE); /* forked */
	mine.slots = NULL;
	mine.pid = getpid();
	if (state == NULL)
		return;
	if ((size_t)snprintf(path, sizeof(path), "%s/run/metrics", state) >=
		sizeof(path) ||
	    (mkdir(path, 0700) != 0 && errno != EEXIST))
		goto fail;
	if ((size_t)snprintf(path, sizeof(path), "%s/run/metrics/%ld", state,
		(long)mine.pid) >= sizeof(path))
		goto fail;
	if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0)
		goto fail;
	if (ftruncate(fd, (off_t)FILE_SIZE) != 0) {
		close(fd);
		goto fail;
	}
	p = mmap(NULL, FILE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		goto fail;
	mine.slots = p;
	return;
fail:
	if (!mine.failed)
		sw_error("metrics: cannot use %s: %s", path, strerror(errno));
	mine.failed = 1;
}

/* Does a label value keep byte c as it is (else '_')? */
static int
value_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '.' || c == ':' ||
	    c == '/' || c == '-';
}

/*
 * Append s to key (of SW_METRIC_KEY bytes) at *off, each byte through
 * value_char when clean; 0 when it does not fit.  (A key is made for
 * every count: no formatting, no search per byte.)
 */
static int
key_put(char *key, size_t *off, const char *s, int clean, size_t max)
{
	size_t i;

	for (i = 0; s != NULL && s[i] != '\0' && i < max; i++) {
		if (*off + 1 >= SW_METRIC_KEY)
			return 0;
		key[(*off)++] =
		    !clean || value_char((unsigned char)s[i]) ? s[i] : '_';
	}
	key[*off] = '\0';
	return 1;
}

void
sw_metric_add(const char *name, int64_t n, ...)
{
	char key[SW_METRIC_KEY];
	const char *k;
	size_t off = 0, i;
	va_list ap;
	int fits;

	fits = key_put(key, &off, name, 0, SW_METRIC_KEY);
	va_start(ap, n);
	for (i = 0; fits && (k = va_arg(ap, const char *)) != NULL; i++)
		/* A value is cut at 63 bytes, as it always was. */
		fits = key_put(key, &off, i == 0 ? "{" : ",", 0, 1) &&
		    key_put(key, &off, k, 0, SW_METRIC_KEY) &&
		    key_put(key, &off, "=\"", 0, 2) &&
		    key_put(key, &off, va_arg(ap, const char *), 1, 63) &&
		    key_put(key, &off, "\"", 0, 1);
	va_end(ap);
	if (fits && i > 0)
		fits = key_put(key, &off, "}", 0, 1);
	if (!fits) {
		sw_error("metrics: key of %s too long; not counted", name);
		return;
	}
	pthread_mutex_lock(&lock);
	metrics_open();
	if (mine.slots == NULL) {
		pthread_mutex_unlock(&lock);
		return;
	}
	for (i = 0; i < SW_METRIC_SLOTS; i++) {
		if (mine.slots[i].key[0] == '\0') {
			memcpy(mine.slots[i].key, key, off + 1);
			break;
		}
		if (strcmp(mine.slots[i].key, key) == 0)
			break;
	}
	if (i == SW_METRIC_SLOTS) {
		if (!mine.failed)
			sw_error("metrics: all %d slots used; %s dropped",
			    SW_METRIC_SLOTS, key);
		mine.failed = 1;
	} else
		mine.slots[i].value += n;
	pthread_mutex_unlock(&lock);
}

static int
by_key(const void *a, const void *b)
{
	return strcmp(
	    ((const struct slot *)a)->key, ((const struct slot *)b)->key);
}

sw_err
sw_metrics_render_counters(const char *dir, struct sw_buf *out)
{
	struct slot *sum, one;
	struct dirent *de;
	char path[700], name[SW_METRIC_KEY], last[SW_METRIC_KEY] = "";
	size_t nsum = 0, cap = SW_METRIC_SLOTS * 4, i, j;
	sw_err e = SW_OK;
	DIR *d;
	FILE *f;

	if ((d = opendir(dir)) == NULL)
		return SW_OK; /* nothing counted yet */
	if ((sum = sw_calloc(cap, sizeof(*sum))) == NULL) {
		closedir(d);
		return SW_ENOMEM;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' ||
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir,
			de->d_name) >= sizeof(path) ||
		    (f = fopen(path, "re")) == NULL)
			continue;
		for (i = 0;
		     i < SW_METRIC_SLOTS && fread(&one, sizeof(one), 1, f) == 1;
		     i++) {
			if (one.key[0] == '\0' ||
			    memchr(one.key, '\0', sizeof(one.key)) == NULL)
				continue;
			for (j = 0; j < nsum; j++)
				if (strcmp(sum[j].key, one.key) == 0)
					break;
			if (j == nsum && nsum < cap)
				sum[nsum++] = one;
			else if (j < nsum)
				sum[j].value += one.value;
		}
		fclose(f);
	}
	closedir(d);
	qsort(sum, nsum, sizeof(*sum), by_key);
	for (i = 0; i < nsum && e == SW_OK; i++) {
		if ((e = sw_fmt(name, sizeof(name), "%.*s",
			 (int)strcspn(sum[i].key, "{"), sum[i].key)) != SW_OK)
			break;
		if (strcmp(name, last) != 0) {
			e = sw_buf_printf(out, "# TYPE %s counter\n", name);
			memcpy(last, name, sizeof(last));
		}
		if (e == SW_OK)
			e = sw_buf_printf(out, "%s %lld\n", sum[i].key,
			    (long long)sum[i].value);
	}
	free(sum);
	return e;
}
