// budgets-ui.js: the Costs page's budgets in Chromium.  Usage: node
// budgets-ui.js <slipway url> <token>.  Logs in with the token, opens
// the Costs page, reads the budgets table, sets a budget with the form
// (first with thresholds out of order, which the server refuses, then
// right) and reads the table again.  Prints one JSON line: {rows,
// refusal, after, copy, error}.
"use strict";
const { run, tokenLogin } = require("./browser.js");

const rows = (page) => page.$$eval("#budgets tr[data-budget]", (l) =>
  l.map((tr) => [tr.dataset.budget,
    ...[...tr.querySelectorAll("td")].map((td) => td.textContent.trim())]));

const [url, token] = process.argv.slice(2);
run(async (page, context, out) => {
  await tokenLogin(page, url, token);
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
});
