// ws-csp.js URL TOKEN: in headless Debian Chromium, under the CSP our
// nginx sends (connect-src 'self'), log in as the UI does and open a
// WebSocket to our own /ws/ (same origin: allowed by 'self') and one to
// another origin (must be blocked).  Prints one JSON line of findings
// for t/21-stream.t.
"use strict";
const { run } = require("./browser.js");

const [url, token] = process.argv.slice(2);
run(async (page, context, out) => {
  out.console = [];
  page.on("console", (m) => {
    if (m.type() === "error") out.console.push(m.text());
  });
  await page.goto(url + "/");
  out.csp = await page.evaluate(async () =>
    (await fetch("/")).headers.get("content-security-policy"));
  out.login = await page.evaluate(async (tok) => (await fetch(
    "/api/v1/login", { method: "POST", body: JSON.stringify({ token: tok }),
      headers: { "Content-Type": "application/json" } })).status, token);
  const open = (u) => page.evaluate((u) => new Promise((resolve) => {
    let ws;
    const seen = [];
    document.addEventListener("securitypolicyviolation",
      (e) => seen.push("csp:" + e.violatedDirective), { once: true });
    try {
      ws = new WebSocket(u);
    } catch (e) {
      resolve({ thrown: String(e) });
      return;
    }
    ws.onmessage = (e) => { seen.push(JSON.parse(e.data)); ws.close(); };
    ws.onclose = (e) => resolve({ seen, code: e.code });
    ws.onerror = () => seen.push("error");
    setTimeout(() => resolve({ seen, timeout: true }), 5000);
  }), u);
  const host = new URL(url).host;
  out.same = await open("ws://" + host + "/ws/operations/nope");
  out.foreign = await open("ws://127.0.0.2:" + new URL(url).port +
    "/ws/operations/nope");
});
