/*
 * logs.c: training_job_logs, the tail of each started pod's log of a
 * job (found by handlers/jobs.c), and inference_logs, the same of an
 * inference endpoint's pods (found by handlers/inference.c); with the
 * training metrics read from the S3 contract's progress line ("step
 * N/M loss=X tokens/s=Y"): the last step, loss and throughput, and the
 * mean throughput.  A pod
 * whose log cannot be read is answered with its error, not failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "handlers/inference.h"
#include "handlers/workloads.h"
#include "lib/buf.h"
#include "lib/json.h"
#include "cloud/k8s.h"

#define WL_MAX_LOG_PODS 8 /* pods read by one logs call */
#define WL_MAX_LOG_BYTES (512 * 1024) /* log text kept per call */
#define WL_LOG_TIMEOUT 15 /* seconds per pod log read */

struct metrics {
	long step, max_steps;
	double loss, tps, tps_sum;
	int have_step, have_loss, have_tps, tps_n, lines;
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
	return sw_jo("step", m->have_step ? sw_ji(m->step) : NULL, "max_steps",
	    m->max_steps > 0 ? sw_ji(m->max_steps) : NULL, "progress",
	    m->have_step && m->max_steps > 0
		? json_object_new_double((double)m->step / (double)m->max_steps)
		: NULL,
	    "loss", m->have_loss ? json_object_new_double(m->loss) : NULL,
	    "tokens_per_second",
	    m->have_tps ? json_object_new_double(m->tps) : NULL,
	    "mean_tokens_per_second",
	    m->tps_n > 0 ? json_object_new_double(m->tps_sum / m->tps_n) : NULL,
	    "samples", sw_ji(m->tps_n), NULL);
}

static int
log_chunk(void *arg, const char *data, size_t len)
{
	struct sw_buf *b = arg;

	return sw_buf_add(b, data, len) != SW_OK;
}

/* One started pod's last tail lines, its metrics and its error. */
static json_object *
pod_log(struct sw_kube *kb, json_object *p, long tail, struct sw_buf *b,
    json_object **metrics)
{
	const char *pname = sw_json_path_str(p, "metadata.name");
	json_object *lines = json_object_new_array();
	struct k8s_error ke;
	struct metrics m;
	char *s, *nl;
	sw_err e;

	sw_buf_reset(b);
	memset(&ke, 0, sizeof(ke));
	e = k8s_logs(&kb->k, sw_json_path_str(p, "metadata.namespace"), pname,
	    NULL, 0, tail, WL_LOG_TIMEOUT, log_chunk, b, &ke);
	memset(&m, 0, sizeof(m));
	for (s = b->len > 0 ? b->data : NULL; s != NULL && *s != '\0';
	     s = nl ? nl + 1 : NULL) {
		if ((nl = strchr(s, '\n')) != NULL) {
			*nl = '\0';
			if (nl > s && nl[-1] == '\r')
				nl[-1] = '\0';
		}
		json_object_array_add(lines, sw_js(s));
		metrics_line(&m, s);
	}
	*metrics = metrics_json(&m);
	return sw_jo("pod", sw_js(pname), "phase",
	    sw_js(sw_json_path_str(p, "status.phase")), "lines", lines,
	    "truncated", sw_jb(b->len >= WL_MAX_LOG_BYTES), "error",
	    e != SW_OK
		? sw_js(ke.message[0] ? ke.message : "cannot read the log")
		: NULL,
	    "metrics", json_object_get(*metrics), NULL);
}

/*
 * The lines of the started pods of pods (at most WL_MAX_LOG_PODS; only
 * the one named by the "pod" argument when given; with ours, only
 * Slipway's, the stream's rule) into a new array; *first the first
 * pod's metrics (new, may be NULL).  NULL with a 404 when the named
 * pod is not among them.
 */
static json_object *
pods_logs(struct sw_req *r, struct sw_kube *kb, json_object *pods, int ours,
    const char *what, json_object **first)
{
	const char *only = sw_json_get_str(r->args, "pod");
	long tail = (long)sw_json_get_int(r->args, "tail", 100);
	json_object *out = json_object_new_array(), *m;
	struct sw_buf b;
	size_t i;
	int read = 0;

	*first = NULL;
	sw_buf_init(&b, WL_MAX_LOG_BYTES);
	for (i = 0;
	     i < json_object_array_length(pods) && read < WL_MAX_LOG_PODS;
	     i++) {
		json_object *p = json_object_array_get_idx(pods, i);
		const char *phase = sw_json_path_str(p, "status.phase");

		if (only != NULL &&
		    strcmp(only, sw_json_path_str(p, "metadata.name") ?: "") !=
			0)
			continue;
		if (phase == NULL || strcmp(phase, "Pending") == 0 ||
		    (ours && !sw_kube_pod_ours(p)))
			continue;
		read++;
		json_object_array_add(out, pod_log(kb, p, tail, &b, &m));
		if (*first == NULL)
			*first = m;
		else
			json_object_put(m);
	}
	sw_buf_free(&b);
	if (only == NULL || read > 0)
		return out;
	json_object_put(out);
	json_object_put(*first);
	*first = NULL;
	sw_req_fail(r, SW_ENOTFOUND, "no started pod %s in %s", only, what);
	return NULL;
}

sw_err
h_training_job_logs(struct sw_req *r)
{
	const struct job_kind *k;
	json_object *obj = NULL, *pods = NULL, *out_pods, *first = NULL;
	struct sw_kube kb;
	char what[128];

	if (wl_kube_open(r, sw_json_get_str(r->args, "name"), &kb) != SW_OK)
		return r->err;
	if (wl_job_find(r, &kb, sw_json_get_str(r->args, "namespace"),
		sw_json_get_str(r->args, "job"), &obj, &k) != SW_OK ||
	    wl_job_pods(r, &kb, obj, &pods) != SW_OK)
		goto out;
	sw_fmt_text(
	    what, sizeof(what), "job %s", sw_json_get_str(r->args, "job"));
	if ((out_pods = pods_logs(r, &kb, pods, 1, what, &first)) == NULL)
		goto out;
	sw_req_reply(r, 200,
	    sw_jo("job", sw_js(sw_json_path_str(obj, "metadata.name")),
		"namespace", sw_js(sw_json_path_str(obj, "metadata.namespace")),
		"state", sw_js(wl_job_state(k, obj)), "tail",
		sw_ji(sw_json_get_int(r->args, "tail", 100)), "pods", out_pods,
		"metrics", first, NULL));
	first = NULL;
out:
	json_object_put(first);
	json_object_put(obj);
	json_object_put(pods);
	sw_kube_close(&kb);
	return r->err;
}

/*
 * inference_logs: the last lines of an endpoint's started pods, of any
 * kind (inf_endpoint_pods finds them as inference_get finds the
 * endpoint).  The pods were found through objects Slipway made, so an
 * operator's pods without Slipway's label are read too.
 */
sw_err
h_inference_logs(struct sw_req *r)
{
	json_object *pods = NULL, *out_pods, *first = NULL;
	const char *kind = NULL;
	struct sw_kube kb;
	char ns[64] = "", what[128];

	if (wl_kube_open(r, sw_json_get_str(r->args, "name"), &kb) != SW_OK)
		return r->err;
	if (inf_endpoint_pods(r, &kb, &pods, &kind, ns, sizeof(ns)) != SW_OK)
		goto out;
	sw_fmt_text(what, sizeof(what), "endpoint %s",
	    sw_json_get_str(r->args, "endpoint"));
	if ((out_pods = pods_logs(r, &kb, pods, 0, what, &first)) == NULL)
		goto out;
	json_object_put(first);
	sw_req_reply(r, 200,
	    sw_jo("endpoint", sw_js(sw_json_get_str(r->args, "endpoint")),
		"namespace", sw_js(ns), "kind", sw_js(kind), "tail",
		sw_ji(sw_json_get_int(r->args, "tail", 100)), "pods", out_pods,
		NULL));
out:
	json_object_put(pods);
	sw_kube_close(&kb);
	return r->err;
}
