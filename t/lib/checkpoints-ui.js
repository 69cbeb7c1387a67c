// checkpoints-ui.js: a training job's checkpoints on its page in
// Chromium.  Usage: node checkpoints-ui.js <slipway url> <token>
// <cluster> <job>.  Logs in with the token, opens the job's page, reads
// the checkpoints table and which row is marked newest complete, which
// rows offer "Resume from this checkpoint", then runs the retention dry
// run for keep 1 and reads the keys it lists.  Prints one JSON line:
// {rows, newest, resumable, keys, error}.
"use strict";
const path = require("path");
const { chromium } = require(path.join(__dirname, "..", "node_modules",
  "playwright-core"));

(async () => {
  const [url, token, cluster, job] = process.argv.slice(2);
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
    await page.goto(url + `/#/training/${cluster}/${job}`);
    await page.waitForSelector("#checkpoint-list tr[data-checkpoint]");
    out.rows = await page.$$eval("#checkpoint-list tr[data-checkpoint]",
      (l) => l.map((tr) => tr.dataset.checkpoint));
    out.newest = await page.$$eval("#checkpoint-list tr[data-checkpoint]",
      (l) => l.filter((tr) => tr.querySelector("#newest-complete"))
        .map((tr) => tr.dataset.checkpoint));
    out.resumable = await page.$$eval("#checkpoint-list tr[data-checkpoint]",
      (l) => l.filter((tr) => tr.querySelector("button.resume"))
        .map((tr) => tr.dataset.checkpoint));
    await page.click("#checkpoints details summary");
    await page.fill("#keep-last", "1");
    await page.click("#retain-plan");
    await page.waitForSelector("#retain-keys li");
    out.keys = await page.$$eval("#retain-keys li",
      (l) => l.map((li) => li.textContent.trim()));
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
