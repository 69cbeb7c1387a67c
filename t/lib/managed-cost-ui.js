// managed-cost-ui.js: the deploy form's plan cost for a managed endpoint
// in Chromium.  Usage: node managed-cost-ui.js <slipway url> <token>
// <cluster> <instance type>.  Logs in, opens the cluster's Inference
// page, picks the managed shape, fills the endpoint, its instance type,
// a Hugging Face model source and 2 replicas, asks for a dry run and
// reads the cost sentence of the plan.  Prints one JSON line: {cost,
// error}.
"use strict";
const { run, tokenLogin } = require("./browser.js");

const [url, token, cluster, itype] = process.argv.slice(2);
run(async (page, context, out) => {
  await tokenLogin(page, url, token);
  await page.goto(url + "/#/inference/" + cluster);
  await page.click("#shape-managed");
  await page.waitForSelector("#inf-model_source-uri");
  await page.fill("#inf-endpoint_name", "uiplan");
  await page.fill("#inf-instance_type", itype);
  await page.selectOption("#inf-model_source-type", "huggingface");
  await page.fill("#inf-model_source-uri", "Qwen/Qwen3-0.6B");
  await page.fill("#inf-replicas", "2");
  await page.click("#deploy-plan");
  await page.waitForSelector("#plan-cost");
  out.cost = (await page.textContent("#plan-cost")).replace(/\s+/g, " ")
    .trim();
});
