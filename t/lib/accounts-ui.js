// accounts-ui.js: the cluster list of the web UI in Chromium, with
// clusters in several accounts and regions.  Usage: node accounts-ui.js
// <slipway url> <token>.  Logs in with the token, opens the cluster list
// and reads its heading, column labels and rows.  Prints one JSON line:
// {heading, columns, rows, error}.
"use strict";
const { run, tokenLogin } = require("./browser.js");

const [url, token] = process.argv.slice(2);
run(async (page, context, out) => {
  await tokenLogin(page, url, token);
  await page.goto(url + "/#/clusters");
  await page.waitForSelector("#cluster-list tr[data-cluster]");
  out.heading = (await page.textContent("h1")).trim();
  out.columns = await page.$$eval("#cluster-list thead th",
    (l) => l.map((th) => th.textContent.trim()));
  out.rows = await page.$$eval("#cluster-list tr[data-cluster]", (l) =>
    l.map((tr) => [tr.dataset.cluster,
      ...[...tr.querySelectorAll("td")].map((td) => td.textContent.trim())]));
});
