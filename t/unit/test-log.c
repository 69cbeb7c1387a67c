/* test-log.c: with SLIPWAY_LOG_FORMAT=json each log record is one JSON
 * object on one line (time, level, proc, pid, msg), quotes, backslashes
 * and newlines in the message escaped; without it, the text line.  A
 * record carries the request and operation it is about while a context
 * is set, and nothing that is not an id.  A process following its log
 * file (SLIPWAY_LOG_FILE) writes to the path again once logrotate renamed
 * the file away. */
#include <sys/stat.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/json.h"
#include "lib/log.h"
#include "t/tap.h"

#define RID "0123456789abcdef0123456789abcdef"

/* What sw_log writes to stderr for one record, into out. */
static void
capture(const char *msg, char *out, size_t sz)
{
	char path[] = "/tmp/sw-test-log-XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	ssize_t n;

	out[0] = '\0';
	if (fd < 0 || saved < 0)
		return;
	dup2(fd, 2);
	sw_info("%s", msg);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, out, sz - 1, 0);
	out[n > 0 ? n : 0] = '\0';
	close(fd);
	unlink(path);
}

/* Size of path, -1 when there is none. */
static long long
size_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* The log file renamed: later records go to a new file at the path. */
static void
test_follow(void)
{
	char dir[] = "/tmp/sw-test-logf-XXXXXX", path[64], old[80];
	int saved = dup(2), fd, i;
	long long kept;

	if (mkdtemp(dir) == NULL || saved < 0) {
		ok(0, "temporary directory");
		return;
	}
	snprintf(path, sizeof(path), "%s/api.log", dir);
	snprintf(old, sizeof(old), "%s.1", path);
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
	dup2(fd, 2);
	close(fd);
	setenv("SLIPWAY_LOG_FILE", path, 1);
	sw_log_init("test-log");
	sw_info("before the rotation");
	ok(size_of(path) > 0, "a record goes to the followed file");
	rename(path, old);
	/* The check runs at most once a second: log until it did (30 s at
	 * most), never into the renamed file for more than that. */
	for (i = 0; i < 3000 && size_of(path) <= 0; i++) {
		sw_info("after the rotation %d", i);
		usleep(10000);
	}
	ok(size_of(path) > 0,
	    "after the rename, records go to a new file at "
	    "the path");
	kept = size_of(old);
	sw_info("one more");
	is_int(size_of(old), kept, "and no longer to the renamed one");
	rename(path, old);
	ok(sw_log_reopen() == 0 && (sw_info("reopened"), size_of(path) > 0),
	    "sw_log_reopen() opens the path again at once");
	dup2(saved, 2);
	close(saved);
	unsetenv("SLIPWAY_LOG_FILE");
	sw_log_follow(NULL);
	unlink(path);
	unlink(old);
	rmdir(dir);
}

int
main(void)
{
	char line[4096], why[128];
	json_object *o = NULL;

	unsetenv("SLIPWAY_LOG_FORMAT");
	sw_log_init("test-log");
	capture("plain words", line, sizeof(line));
	ok(strstr(line, " info test-log[") != NULL &&
		strstr(line, "]: plain words\n") != NULL,
	    "text by default");
	sw_log_context(RID, "op-12ab");
	capture("with context", line, sizeof(line));
	ok(strstr(line, "] [req=" RID " op-12ab]: with context\n") != NULL,
	    "text: the request and operation after the pid");
	sw_log_context("abc\"}", NULL);
	capture("no context", line, sizeof(line));
	ok(strstr(line, "]: no context\n") != NULL &&
		strstr(line, "abc") == NULL,
	    "text: a request id that is not one is dropped");
	sw_log_context(NULL, NULL);

	setenv("SLIPWAY_LOG_FORMAT", "json", 1);
	sw_log_init("test-log");
	capture("a \"quoted\" \\ word\nand a second line", line, sizeof(line));
	ok(strchr(line, '\n') == line + strlen(line) - 1,
	    "one record is one line");
	ok(sw_json_parse(line, strlen(line), &o, why, sizeof(why)) == SW_OK,
	    "the line is JSON");
	is_str(sw_json_get_str(o, "msg"),
	    "a \"quoted\" \\ word\nand a second line", "the message, intact");
	is_str(sw_json_get_str(o, "level"), "info", "level");
	is_str(sw_json_get_str(o, "proc"), "test-log", "proc");
	is_int(sw_json_get_int(o, "pid", 0), getpid(), "pid");
	ok(sw_json_get_str(o, "time") != NULL &&
		strlen(sw_json_get_str(o, "time")) == 24,
	    "time, to the ms");
	json_object_put(o);

	sw_log_context(RID, "op-12ab");
	capture("with context", line, sizeof(line));
	ok(sw_json_parse(line, strlen(line), &o, why, sizeof(why)) == SW_OK,
	    "a record with a context is JSON");
	is_str(sw_json_get_str(o, "request_id"), RID, "request_id");
	is_str(sw_json_get_str(o, "operation_id"), "op-12ab", "operation_id");
	json_object_put(o);
	sw_log_context(NULL, NULL);
	capture("none", line, sizeof(line));
	ok(strstr(line, "request_id") == NULL, "no context once it is cleared");
	unsetenv("SLIPWAY_LOG_FORMAT");
	test_follow();
	return tap_done();
}
