// node-volumes-ui.js: a node's EBS volumes on the web UI, in Chromium.
// Usage: node node-volumes-ui.js <slipway url> <token> <cluster> <node>
// <volume>.  Logs in, opens the node's page, attaches the volume with
// the form (first without the EBS CSI driver, which the server refuses
// beside install_csi_driver, then with it) and reads where the form
// led; then opens the Training page and reads its MLflow Apps card.
// Prints one JSON line: {refusal, led_to, copy, mlflow, error}.
"use strict";
const { run, tokenLogin } = require("./browser.js");

const [url, token, cluster, node, volume] = process.argv.slice(2);
run(async (page, context, out) => {
  await tokenLogin(page, url, token);
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
});
