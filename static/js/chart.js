// chart.js: the throughput chart of a training job, drawn by uPlot from
// the metrics its log lines carry ("step 10/40 loss=3.32 tokens/s=3777").
import { html, useEffect, useRef } from "./lib.js";
import uPlot from "../vendor/uPlot.esm.js";

// {step, tps, loss} from one log line, or null.
export function parseMetric(text) {
  const step = /\bstep[ =:]+(\d+)/.exec(text);
  const tps = /tokens\/s[=:]\s*([0-9.]+)/.exec(text);
  if (!step || !tps) return null;
  const loss = /\bloss[=:]\s*([0-9.]+)/.exec(text);
  return { step: Number(step[1]), tps: Number(tps[1]),
    loss: loss ? Number(loss[1]) : null };
}

export function ThroughputChart({ points }) {
  const el = useRef(null);
  const plot = useRef(null);
  useEffect(() => () => {
    if (plot.current) plot.current.destroy();
    plot.current = null;
  }, []);
  useEffect(() => {
    if (!el.current || points.length === 0) return;
    const data = [points.map((p) => p.step), points.map((p) => p.tps)];
    if (!plot.current) {
      plot.current = new uPlot({
        width: Math.max(300, el.current.clientWidth || 600), height: 220,
        scales: { x: { time: false } },
        axes: [{ label: "step" }, { label: "tokens/s" }],
        series: [{ label: "step" }, { label: "tokens/s", stroke: "#0969da",
          width: 2 }],
      }, data, el.current);
    } else {
      plot.current.setData(data);
    }
  }, [points]);
  return html`<figure class="chart" id="throughput"
    data-points=${points.length}>
    <figcaption>Throughput (tokens/s by step)${points.length === 0
      ? ": no metrics yet" : ""}</figcaption>
    <div class="chart-area" ref=${el}></div></figure>`;
}
