// elastic-ui.js: an elastic job on the web UI's training pages in
// Chromium.  Usage: node elastic-ui.js <slipway url> <token> <cluster>
// <job>.  Logs in with the token, opens the job page and reads its
// elastic box, then the cluster's job list and reads the job's Nodes
// cell.  Prints one JSON line: {box, cell, error}.
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
    await page.goto(url + "/#/training/" + cluster + "/" + job);
    await page.waitForSelector("#why-elastic");
    out.box = (await page.textContent("#why-elastic")).replace(/\s+/g, " ")
      .trim();
    await page.goto(url + "/#/training/" + cluster);
    await page.waitForSelector("#job-list a[href$='/" + job + "']");
    out.cell = (await page.$$eval("#job-list tr", (rows, j) => {
      const tr = rows.find((r) => r.querySelector("a") &&
        r.querySelector("a").textContent.trim() === j);
      return tr ? tr.textContent : "";
    }, job)).replace(/\s+/g, " ").trim();
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
