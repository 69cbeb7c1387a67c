/*
 * logs.c: training_job_logs, the tail of each started pod's log of a
 * job (found by handlers/jobs.c), with the training metrics read from
 * the S3 contract's progress line ("step N/M loss=X tokens/s=Y"): the
 * last step, loss and throughput, and the mean throughput.  A pod
 * whose log cannot be read is answered with its error, not failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/workloads.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "cloud/k8s.h"

#define WL_MAX_LOG_PODS	8		/* pods read by one logs call */
#define WL_MAX_LOG_BYTES (512 * 1024)	/* log text kept per call */
#define WL_LOG_TIMEOUT	15		/* seconds per pod log read */

struct metrics {
	long	step, max_steps;
	double	loss, tps, tps_sum;
	int	have_step, have_loss, have_tps, tps_n, lines;
};

/* The number after key in line, if any. */
static int
num_after(const char *line, const char *key, double *v)
{
	const char *p = strstr(line, key);
	char *end;

	if (p == NULL)
		return 0;
	p += strlen(key);
	while (*p == ' ')
		p++;
	*v = strtod(p, &end);
	return end != p;
}

/*
 * Parse one line: "step N[/M]", "loss=X" or "loss: X", "tokens/s=Y"
 * or "throughput=Y"; the last values win, throughput is also averaged.
 */
static void
metrics_line(struct metrics *m, const char *line)
{
	const char *p = strstr(line, "step ");
	char *end;
	double v;
	long n;

	if (p != NULL && (p == line || p[-1] == ' ' || p[-1] == '\t')) {
		n = strtol(p + 5, &end, 10);
		if (end != p + 5 && n >= 0) {
			m->step = n;
			m->have_step = 1;
			m->lines++;
			if (*end == '/') {
				n = strtol(end + 1, &end, 10);
				if (n > 0)
					m->max_steps = n;
			}
		}
	}
	if (num_after(line, "loss=", &v) || num_after(line, "loss:", &v)) {
		m->loss = v;
		m->have_loss = 1;
	}
	if (num_after(line, "tokens/s=", &v) ||
	    num_after(line, "throughput=", &v)) {
		m->tps = v;
		m->tps_sum += v;
		m->tps_n++;
		m->have_tps = 1;
	}
}

static json_object *
metrics_json(const struct metrics *m)
{
	if (!m->have_step && !m->have_loss && !m->have_tps)
		return NULL;
	return sw_jo(
	    "step", m->have_step ? sw_ji(m->step) : NULL,
	    "max_steps", m->max_steps > 0 ? sw_ji(m->max_steps) : NULL,
	    "progress", m->have_step && m->max_steps > 0 ?
		json_object_new_double((double)m->step /
		(double)m->max_steps) : NULL,
	    "loss", m->have_loss ? json_object_new_double(m->loss) : NULL,
	    "tokens_per_second", m->have_tps ?
		json_object_new_double(m->tps) : NULL,
	    "mean_tokens_per_second", m->tps_n > 0 ?
		json_object_new_double(m->tps_sum / m->tps_n) : NULL,
	    "samples", sw_ji(m->tps_n), NULL);
}

static int
log_chunk(void *arg, const char *data, size_t len)
{
	struct sw_buf *b = arg;

	return sw_buf_add(b, data, len) != SW_OK;
}

sw_err
h_training_job_logs(struct sw_req *r)
{
	const char *only = sw_json_get_str(r->args, "pod");
	long tail = (long)sw_json_get_int(r->args, "tail", 100);
	const struct job_kind *k;
	json_object *obj = NULL, *pods = NULL, *out_pods, *first = NULL;
	struct sw_kube kb;
	struct sw_buf b;
	size_t i;
	int read = 0;

	sw_buf_init(&b, WL_MAX_LOG_BYTES);
	if (wl_kube_open(r, sw_json_get_str(r->args, "name"), &kb) != SW_OK)
		return r->err;
	if (wl_job_find(r, &kb, sw_json_get_str(r->args, "namespace"),
	    sw_json_get_str(r->args, "job"), &obj, &k) != SW_OK ||
	    wl_job_pods(r, &kb, obj, &pods) != SW_OK)
		goto out;
	out_pods = json_object_new_array();
	for (i = 0; i < json_object_array_length(pods) &&
	    read < WL_MAX_LOG_PODS; i++) {
		json_object *p = json_object_array_get_idx(pods, i), *lines;
		const char *pname = sw_json_path_str(p, "metadata.name");
		const char *phase = sw_json_path_str(p, "status.phase");
		struct k8s_error ke;
		struct metrics m;
		char *s, *nl;
		sw_err e;

		if (only != NULL && strcmp(only, pname) != 0)
			continue;
		if (phase == NULL || strcmp(phase, "Pending") == 0 ||
		    !sw_kube_pod_ours(p))
			continue;	/* the stream's rule too */
		read++;
		sw_buf_reset(&b);
		memset(&ke, 0, sizeof(ke));
		e = k8s_logs(&kb.k, sw_json_path_str(p, "metadata.namespace"),
		    pname, NULL, 0, tail, WL_LOG_TIMEOUT, log_chunk, &b, &ke);
		lines = json_object_new_array();
		memset(&m, 0, sizeof(m));
		for (s = b.len > 0 ? b.data : NULL;
		    s != NULL && *s != '\0'; s = nl ? nl + 1 : NULL) {
			if ((nl = strchr(s, '\n')) != NULL) {
				*nl = '\0';
				if (nl > s && nl[-1] == '\r')
					nl[-1] = '\0';
			}
			json_object_array_add(lines, sw_js(s));
			metrics_line(&m, s);
		}
		json_object_array_add(out_pods, sw_jo(
		    "pod", sw_js(pname), "phase", sw_js(phase),
		    "lines", lines, "truncated", sw_jb(b.len >=
			WL_MAX_LOG_BYTES),
		    "error", e != SW_OK ? sw_js(ke.message[0] ? ke.message :
			"cannot read the log") : NULL,
		    "metrics", metrics_json(&m), NULL));
		if (first == NULL)
			first = metrics_json(&m);
	}
	if (only != NULL && read == 0) {
		json_object_put(out_pods);
		sw_req_fail(r, SW_ENOTFOUND, "no started pod %s in job %s",
		    only, sw_json_get_str(r->args, "job"));
		goto out;
	}
	sw_req_reply(r, 200, sw_jo(
	    "job", sw_js(sw_json_path_str(obj, "metadata.name")),
	    "namespace", sw_js(sw_json_path_str(obj, "metadata.namespace")),
	    "state", sw_js(wl_job_state(k, obj)), "tail", sw_ji(tail),
	    "pods", out_pods, "metrics", first, NULL));
	first = NULL;
out:
	json_object_put(first);
	json_object_put(obj);
	json_object_put(pods);
	sw_buf_free(&b);
	sw_kube_close(&kb);
	return r->err;
}
