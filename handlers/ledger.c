/*
 * ledger.c: reading the usage ledger (lib/ledger.h) the poller keeps:
 * node-hours, GPU-hours held by each team's jobs and GPU-hours no job
 * held, with their on-demand cost, summed by the columns the caller
 * groups by, as JSON or CSV.  Nothing is recomputed: a read sums the
 * stored rows of the days asked for.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "handlers/handlers.h"
#include "lib/alloc.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "lib/ledger.h"

#define MAX_GROUP_BY 7

static const char *const columns[] = { "day", "cluster", "instance_group",
	"instance_type", "team", "job", NULL };

struct sums {
	int64_t seconds[3]; /* node, gpu, idle */
	int64_t usd_us[3];
	int unknown[3];
};

static int
kind_index(const char *kind)
{
	return strcmp(kind, "node") == 0 ? 0 : strcmp(kind, "gpu") == 0 ? 1 : 2;
}

/* Hours from seconds, exact to the second: 3600 s is 1. */
static json_object *
hours(int64_t s)
{
	char text[48];

	if (sw_fmt(text, sizeof(text), "%" PRId64 ".%04" PRId64, s / 3600,
		(s % 3600) * 10000 / 3600) != SW_OK)
		return NULL;
	return json_object_new_double_s((double)s / 3600.0, text);
}

/* The group's key: the values of the grouped columns, tab-separated. */
static void
key_of(json_object *row, const char *const *by, size_t nby, struct sw_buf *k)
{
	size_t i;

	k->len = 0;
	for (i = 0; i < nby; i++)
		(void)sw_buf_printf(k, "%s\t", sw_json_get_str(row, by[i]));
}

static void
add_row(struct sums *s, json_object *row)
{
	int i = kind_index(sw_json_get_str(row, "kind"));
	json_object *usd = sw_json_get(row, "usd_us");

	s->seconds[i] += sw_json_get_int(row, "seconds", 0);
	if (usd == NULL)
		s->unknown[i] = 1;
	else
		s->usd_us[i] += json_object_get_int64(usd);
}

static json_object *
sums_json(const struct sums *s, json_object *o)
{
	static const char *const names[] = { "node", "gpu", "idle_gpu" };
	char key[32];
	int i;

	for (i = 0; i < 3; i++) {
		if (sw_fmt(key, sizeof(key), "%s_hours", names[i]) == SW_OK)
			json_object_object_add(o, key, hours(s->seconds[i]));
		if (sw_fmt(key, sizeof(key), "%s_usd", names[i]) == SW_OK)
			json_object_object_add(o, key,
			    s->unknown[i] ? NULL : h_usd(s->usd_us[i] / 3600));
	}
	/* what the nodes cost: held and idle GPUs are its parts */
	json_object_object_add(
	    o, "usd", s->unknown[0] ? NULL : h_usd(s->usd_us[0] / 3600));
	return o;
}

static void
csv_cell(struct sw_buf *b, json_object *v, int last)
{
	const char *s = v ? json_object_get_string(v) : "";

	if (strpbrk(s, ",\"\r\n") != NULL) {
		(void)sw_buf_putc(b, '"');
		for (; *s != '\0'; s++)
			(void)sw_buf_puts(
			    b, *s == '"' ? "\"\"" : (char[2]){ *s, '\0' });
		(void)sw_buf_putc(b, '"');
	} else
		(void)sw_buf_puts(b, s);
	(void)sw_buf_puts(b, last ? "\r\n" : ",");
}

/* The items as CSV (RFC 4180), columns in the order of the first. */
static sw_err
reply_csv(struct sw_req *r, json_object *items)
{
	struct sw_buf b;
	json_object *first = json_object_array_get_idx(items, 0);
	struct json_object_iter it;
	size_t i, n, k;

	sw_buf_init(&b, 64 << 20);
	n = first ? (size_t)json_object_object_length(first) : 0;
	k = 0;
	if (first != NULL)
		json_object_object_foreachC(first, it)
		{
			json_object *name = json_object_new_string(it.key);

			csv_cell(&b, name, ++k == n);
			json_object_put(name);
		}
	for (i = 0; i < json_object_array_length(items); i++) {
		k = 0;
		json_object_object_foreachC(json_object_array_get_idx(items, i),
		    it) csv_cell(&b, it.val, ++k == n);
	}
	r->raw = b.data;
	r->raw_len = b.len;
	r->raw_type = "text/csv; charset=utf-8; header=present";
	r->status = 200;
	return SW_OK;
}

sw_err
h_cost_ledger(struct sw_req *r)
{
	const char *by[MAX_GROUP_BY], *from = sw_json_get_str(r->args, "from");
	const char *to = sw_json_get_str(r->args, "to");
	json_object *rows, *groups, *items;
	const char *list;
	struct sw_buf key;
	struct sums total, *sums;
	char today[16], week[16];
	size_t i, j, nby = 0;
	time_t now = time(NULL);
	struct tm tm;
	sw_err e;

	gmtime_r(&now, &tm);
	strftime(today, sizeof(today), "%Y-%m-%d", &tm);
	now -= 6 * 86400;
	gmtime_r(&now, &tm);
	strftime(week, sizeof(week), "%Y-%m-%d", &tm);
	/* "team,day": the pattern of the row allows only the columns */
	for (list = sw_json_get_str(r->args, "group_by");
	     list && *list && nby < MAX_GROUP_BY;
	     list += strcspn(list, ","), list += *list == ',')
		for (j = 0; columns[j] != NULL; j++)
			if (strncmp(columns[j], list, strcspn(list, ",")) ==
				0 &&
			    columns[j][strcspn(list, ",")] == '\0')
				by[nby++] = columns[j];
	if (nby == 0)
		by[nby++] = "day";
	if ((e = sw_ledger_read(r->db, from ? from : week, to ? to : today,
		 sw_json_get_str(r->args, "cluster"),
		 sw_json_get_str(r->args, "team"), &rows)) != SW_OK)
		return sw_req_fail(r, e, "cannot read the ledger");
	groups = json_object_new_object();
	items = json_object_new_array();
	memset(&total, 0, sizeof(total));
	sums = sw_calloc(json_object_array_length(rows) + 1, sizeof(*sums));
	if (sums == NULL) {
		json_object_put(groups);
		json_object_put(items);
		json_object_put(rows);
		return sw_req_fail(r, SW_ENOMEM, "no memory for the ledger");
	}
	sw_buf_init(&key, 4096);
	for (i = 0; sums && i < json_object_array_length(rows); i++) {
		json_object *row = json_object_array_get_idx(rows, i), *g;

		key_of(row, by, nby, &key);
		(void)sw_buf_putc(&key, '\0');
		if ((g = sw_json_get(groups, key.data)) == NULL) {
			g = json_object_new_int64(
			    (int64_t)json_object_array_length(items));
			json_object_object_add(groups, key.data, g);
			json_object_array_add(items, json_object_new_object());
			for (j = 0; j < nby; j++)
				sw_json_add_str(
				    json_object_array_get_idx(items,
					json_object_array_length(items) - 1),
				    by[j], sw_json_get_str(row, by[j]));
		}
		add_row(&sums[json_object_get_int64(g)], row);
		add_row(&total, row);
	}
	sw_buf_free(&key);
	for (i = 0; sums && i < json_object_array_length(items); i++)
		sums_json(&sums[i], json_object_array_get_idx(items, i));
	free(sums);
	json_object_put(groups);
	json_object_put(rows);
	if (sw_json_get_str(r->args, "format") != NULL &&
	    strcmp(sw_json_get_str(r->args, "format"), "csv") == 0) {
		e = reply_csv(r, items);
		json_object_put(items);
		return e;
	}
	sw_req_reply(r, 200,
	    sw_jo("from", sw_js(from ? from : week), "to",
		sw_js(to ? to : today), "currency", sw_js("USD"), "items",
		items, "totals", sums_json(&total, json_object_new_object()),
		NULL));
	return SW_OK;
}
