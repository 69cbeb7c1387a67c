// node-volumes-ui.js: a node's EBS volumes on the web UI, in Chromium.
// Usage: node node-volumes-ui.js <slipway url> <token> <cluster> <node>
// <volume>.  Logs in, opens the node's page, attaches the volume with
// the form (first without the EBS CSI driver, which the server refuses
// beside install_csi_driver, then with it) and reads where the form
// led; then opens the Training page and reads its MLflow Apps card.
// Prints one JSON line: {refusal, led_to, copy, mlflow, error}.
"use strict";
const path = require("path");
const { chromium } = require(path.join(__dirname, "..", "node_modules",
  "playwright-core"));

(async () => {
  const [url, token, cluster, node, volume] = process.argv.slice(2);
  const out = {};
  let page = null;
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run",
      "--disable-background-networking", "--disable-component-update",
      "--disable-sync"],
  });
  try {
    const context = await browser.newContext();
    context.setDefaultTimeout(60000);
    await context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (r) => r.abort());
    page = await context.newPage();
    await page.goto(url + "/#/login");
    await page.fill("#token", token);
    await page.click("#login-form button[type=submit]");
    await page.waitForSelector("#who");
    await page.goto(url + "/#/clusters/" + cluster + "/nodes/" + node);
    await page.waitForSelector("#node-volumes");
    await page.click("#node-volumes details:first-of-type summary");
    out.copy = await page.$$eval("form#volume-attach-form button.copy",
      (l) => l.map((b) => b.textContent.trim()));
    await page.fill("#volume-attach-form-volume_id", volume);
    await page.click("#volume-attach-form-submit");
    await page.waitForSelector("#volume-attach-form [data-error-for]");
    out.refusal = await page.$$eval("#volume-attach-form [data-error-for]",
      (l) => l.map((e) => [e.dataset.errorFor, e.textContent.trim()]));
    await page.check("#volume-attach-form-install_csi_driver");
    await page.click("#volume-attach-form-submit");
    await page.waitForURL(/#\/operations\/op-/);
    out.led_to = page.url().replace(/^.*#/, "#");
    await page.goto(url + "/#/training/" + cluster);
    await page.waitForSelector("#mlflow-create-form", { state: "attached" });
    out.mlflow = await page.$$eval("#mlflow-apps h2, #mlflow-create-form",
      (l) => l.map((e) => e.tagName + ":" + (e.id || e.textContent.trim())));
  } catch (e) {
    out.error = String(e && e.stack || e);
    if (page) {
      out.error += "\nat " + page.url() + ": " +
        (await page.textContent("body").catch(() => "")).slice(0, 600);
    }
  } finally {
    await browser.close();
  }
  process.stdout.write(JSON.stringify(out) + "\n");
})();
