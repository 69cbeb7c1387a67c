// chart.js: a training job's charts (throughput and loss by step),
// drawn by uPlot from the metrics its log lines carry ("step 10/40
// loss=3.32 tokens/s=3777").  uPlot and its stylesheet are loaded the
// first time a chart is drawn, so pages without a chart never fetch
// them.
import { html, useEffect, useRef } from "./lib.js";

let uplot = null;

function loadUplot() {
  if (!uplot) {
    const css = document.createElement("link");
    css.rel = "stylesheet";
    css.href = "/vendor/uPlot.min.css";
    document.head.appendChild(css);
    uplot = import("../vendor/uPlot.esm.js").then((m) => m.default);
  }
  return uplot;
}

// {step, total, tps, loss} from one log line, or null.
export function parseMetric(text) {
  const step = /\bstep[ =:]+(\d+)(?:\s*\/\s*(\d+))?/.exec(text);
  const tps = /tokens\/s[=:]\s*([0-9.]+)/.exec(text);
  if (!step || !tps) return null;
  const loss = /\bloss[=:]\s*([0-9.]+)/.exec(text);
  return { step: Number(step[1]), total: step[2] ? Number(step[2]) : null,
    tps: Number(tps[1]), loss: loss ? Number(loss[1]) : null };
}

// One metric by step (metric: the point's member); the axis is labelled
// with room for its tick values.
export function MetricChart({ id, points, metric, label, color }) {
  const el = useRef(null);
  const plot = useRef(null);
  const pts = points.filter((p) => p[metric] !== null &&
    p[metric] !== undefined);
  useEffect(() => () => {
    if (plot.current) plot.current.destroy();
    plot.current = null;
  }, []);
  useEffect(() => {
    if (!el.current || pts.length === 0) return undefined;
    let gone = false;
    const data = [pts.map((p) => p.step), pts.map((p) => p[metric])];
    loadUplot().then((uPlot) => {
      if (gone || !el.current) return;
      if (plot.current) {
        plot.current.setData(data);
        return;
      }
      const fg = getComputedStyle(document.body).color;
      const axis = { stroke: fg, labelSize: 18, labelGap: 4,
        grid: { stroke: "rgba(128,128,128,.25)" },
        ticks: { stroke: "rgba(128,128,128,.4)" } };
      plot.current = new uPlot({
        width: Math.max(260, el.current.clientWidth || 600), height: 200,
        scales: { x: { time: false } }, legend: { show: false },
        axes: [{ ...axis, label: "step", size: 40 },
          { ...axis, label, size: 70 }],
        series: [{ label: "step" }, { label, stroke: color, width: 2 }],
      }, data, el.current);
    });
    return () => { gone = true; };
  }, [pts.length]);
  return html`<figure class="chart" id=${id} data-points=${pts.length}>
    <figcaption>${label} by step${pts.length === 0 ? ": no metrics yet" :
      ": last " + pts[pts.length - 1][metric]}</figcaption>
    <div class="chart-area" ref=${el}></div></figure>`;
}

export function ThroughputChart({ points }) {
  return html`<${MetricChart} id="throughput" points=${points} metric="tps"
    label="tokens/s" color="#0969da"/>`;
}

export function LossChart({ points }) {
  return html`<${MetricChart} id="loss" points=${points} metric="loss"
    label="loss" color="#bf3989"/>`;
}

// Lines by day, one per series ({label, values}); x is the day's index
// into days (YYYY-MM-DD), labelled with the day.
export function DailyChart({ id, days, series, label }) {
  const el = useRef(null);
  const plot = useRef(null);
  const colors = ["#0969da", "#bf3989", "#1a7f37", "#9a6700", "#8250df",
    "#cf222e"];
  useEffect(() => () => {
    if (plot.current) plot.current.destroy();
    plot.current = null;
  }, []);
  useEffect(() => {
    if (!el.current || days.length === 0) return undefined;
    let gone = false;
    const data = [days.map((_, i) => i), ...series.map((s) => s.values)];
    loadUplot().then((uPlot) => {
      if (gone || !el.current) return;
      if (plot.current) plot.current.destroy();
      const fg = getComputedStyle(document.body).color;
      const axis = { stroke: fg, labelSize: 18, labelGap: 4,
        grid: { stroke: "rgba(128,128,128,.25)" },
        ticks: { stroke: "rgba(128,128,128,.4)" } };
      plot.current = new uPlot({
        width: Math.max(260, el.current.clientWidth || 600), height: 220,
        scales: { x: { time: false } }, legend: { show: true },
        axes: [{ ...axis, label: "day", size: 40,
          values: (u, ticks) => ticks.map((i) => (days[i] || "").slice(5)) },
        { ...axis, label, size: 70 }],
        series: [{ label: "day" }, ...series.map((s, i) => ({
          label: s.label, stroke: colors[i % colors.length], width: 2 }))],
      }, data, el.current);
    });
    return () => { gone = true; };
  }, [days.join(), series.map((s) => s.label + s.values.join()).join()]);
  return html`<figure class="chart" id=${id} data-series=${series.length}>
    <figcaption>${label} by day${days.length === 0 ? ": nothing yet" :
      ""}</figcaption><div class="chart-area" ref=${el}></div></figure>`;
}
