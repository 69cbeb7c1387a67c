// budgets-ui.js: the Costs page's budgets in Chromium.  Usage: node
// budgets-ui.js <slipway url> <token>.  Logs in with the token, opens
// the Costs page, reads the budgets table, sets a budget with the form
// (first with thresholds out of order, which the server refuses, then
// right) and reads the table again.  Prints one JSON line: {rows,
// refusal, after, copy, error}.
"use strict";
const path = require("path");
const { chromium } = require(path.join(__dirname, "..", "node_modules",
  "playwright-core"));

const rows = (page) => page.$$eval("#budgets tr[data-budget]", (l) =>
  l.map((tr) => [tr.dataset.budget,
    ...[...tr.querySelectorAll("td")].map((td) => td.textContent.trim())]));

(async () => {
  const [url, token] = process.argv.slice(2);
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
    await page.goto(url + "/#/costs");
    await page.waitForSelector("#budgets tr[data-budget]");
    out.rows = await rows(page);
    out.copy = await page.$$eval("form#budget-form button.copy",
      (l) => l.map((b) => b.textContent.trim()));
    await page.selectOption("#budget-scope", "cluster");
    await page.fill("#budget-name", "c9");
    await page.fill("#budget-limit", "1200");
    await page.fill("#budget-thresholds", "90, 75");
    await page.click("#budget-set");
    await page.waitForSelector("#budget-form [data-error-for]");
    out.refusal = await page.$$eval("#budget-form [data-error-for]",
      (l) => l.map((e) => [e.dataset.errorFor, e.textContent.trim()]));
    await page.fill("#budget-thresholds", "75, 90");
    await page.click("#budget-set");
    await page.waitForSelector("#budgets tr[data-budget='cluster/c9']");
    out.after = await rows(page);
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
