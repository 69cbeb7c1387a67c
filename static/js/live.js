// live.js: following things as they change.  An operation comes over
// the WebSocket /ws/operations/{id} (a snapshot, then an update each
// time it changes, then end); when the socket cannot open, the long
// poll GET /api/v1/operations/{id}:wait takes over.  Pod logs come over
// /ws/clusters/.../logs (lines with a seq, resumable with after=SEQ);
// without the socket, the REST logs route is read again.

import { api, enc } from "./api.js";

const TERMINAL = ["succeeded", "failed", "cancelled"];

function wsUrl(path) {
  return (location.protocol === "https:" ? "wss://" : "ws://") +
    location.host + path;
}

// Follow operation id: onOp(op, via) on each version ("ws" or "poll").
// Returns a stop function.
export function followOperation(id, onOp) {
  let stopped = false;
  let ws = null;
  let opened = false;
  const poll = async (since) => {
    while (!stopped) {
      let op;
      try {
        op = await api("GET", "/operations/" + enc(id));
      } catch (e) {
        if (!stopped) onOp(null, "poll", e);
        return;
      }
      if (stopped) return;
      onOp(op, "poll");
      if (TERMINAL.includes(op.state)) return;
      since = op.updated_ms;
      try {
        await api("GET", `/operations/${enc(id)}:wait?timeout=20` +
          `&since_updated_ms=${since}`);
      } catch (e) {
        if (stopped) return;
      }
    }
  };
  try {
    ws = new WebSocket(wsUrl("/ws/operations/" + enc(id)));
  } catch (e) {
    ws = null;
  }
  if (!ws) {
    poll(-1);
  } else {
    let ended = false;
    let last = null;
    ws.onopen = () => { opened = true; };
    ws.onmessage = (ev) => {
      let m;
      try { m = JSON.parse(ev.data); } catch (e) { return; }
      if (m.type === "snapshot" || m.type === "update") {
        last = m.operation;
        onOp(m.operation, "ws");
      } else if (m.type === "end") {
        ended = true;
        /* the end names the final state; make sure it is the one shown */
        if (!last || last.state !== m.state) {
          api("GET", "/operations/" + enc(id)).then((op) => {
            if (!stopped) onOp(op, "ws");
          }, () => {});
        }
      }
      else if (m.type === "error") onOp(null, "ws", new Error(m.detail ||
        m.title));
    };
    ws.onclose = () => {
      ws = null;
      /* never opened, or dropped before the end: the long poll goes on */
      if (!stopped && !ended) poll(-1);
    };
  }
  return () => {
    stopped = true;
    if (ws && opened) ws.close(1000);
    else if (ws) ws.onclose = null;
  };
}

// Follow one pod container's log: onLine(seq, text) per line,
// onEnd(via) when it ends.  The REST fallback reads the job's logs for
// this pod again every few seconds and passes on the lines not seen.
export function followLogs({ cluster, namespace, pod, container, job },
  onLine, onEnd) {
  let stopped = false;
  let last = 0;
  let ws = null;
  let opened = false;
  let ended = false;
  let timer = null;
  const rest = async () => {
    if (stopped) return;
    let seen = last;
    try {
      const r = await api("GET", `/clusters/${enc(cluster)}/training-jobs/` +
        `${enc(job)}/logs?tail=2000&pod=${enc(pod)}` +
        (namespace ? "&namespace=" + enc(namespace) : ""));
      const p = (r.pods || []).find((x) => x.pod === pod || x.name === pod) ||
        (r.pods || [])[0];
      const lines = (p && p.lines) || [];
      /* the REST route has no seq: count lines from the start */
      for (let i = seen; i < lines.length; i++) onLine(i + 1, lines[i]);
      last = Math.max(last, lines.length);
      if (p && ["Succeeded", "Failed"].includes(p.phase)) {
        ended = true;
        onEnd("rest");
        return;
      }
    } catch (e) {
      /* the next round tries again */
    }
    if (!stopped) timer = setTimeout(rest, 2000);
  };
  const open = () => {
    const q = new URLSearchParams();
    if (container) q.set("container", container);
    if (last) q.set("after", String(last));
    try {
      ws = new WebSocket(wsUrl(`/ws/clusters/${enc(cluster)}/pods/` +
        `${enc(namespace || "default")}/${enc(pod)}/logs` +
        (q.toString() ? "?" + q : "")));
    } catch (e) {
      rest();
      return;
    }
    let heard = false;
    let refused = false;
    ws.onopen = () => { opened = true; };
    ws.onmessage = (ev) => {
      let m;
      try { m = JSON.parse(ev.data); } catch (e) { return; }
      heard = true;
      if (m.type === "line" && m.seq > last) {
        last = m.seq;
        onLine(m.seq, m.text, "ws");
      } else if (m.type === "end") {
        ended = true;
        onEnd("ws");
      } else if (m.type === "error") {
        refused = true;
      }
    };
    /* A socket that carried lines and dropped is opened again from the
     * last seq; one that never opened, was refused or said nothing
     * leaves the REST route to go on. */
    ws.onclose = () => {
      ws = null;
      if (stopped || ended) return;
      const again = opened && heard && !refused;
      opened = false;
      if (again) open(); else rest();
    };
  };
  open();
  return () => {
    stopped = true;
    clearTimeout(timer);
    if (ws && opened) ws.close(1000);
    else if (ws) ws.onclose = null;
  };
}
