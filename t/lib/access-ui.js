// access-ui.js: a cluster's team access panel in Chromium.  Usage: node
// access-ui.js <slipway url> <token> <cluster>.  Logs in with the token,
// opens the cluster's page, reads the team access table, presses
// Reconcile, reads what the confirmation lists (the dry run's calls),
// confirms, and waits for the operation's page.  Prints one JSON line:
// {rows, summary, button, listed, operation, error}.
"use strict";
const { run, tokenLogin } = require("./browser.js");

const [url, token, cluster] = process.argv.slice(2);
run(async (page, context, out) => {
  await tokenLogin(page, url, token);
  await page.goto(url + "/#/clusters/" + encodeURIComponent(cluster));
  await page.waitForSelector("#team-access tr[data-principal]");
  out.rows = await page.$$eval("#team-access tr[data-principal]", (l) =>
    l.map((tr) => [tr.dataset.principal,
      ...[...tr.querySelectorAll("td")].map((td) => td.textContent.trim())]));
  out.summary = (await page.textContent("#team-access p")).replace(/\s+/g,
    " ").trim();
  out.button = (await page.textContent("#team-access-on")).trim();
  await page.click("#team-access-on");
  await page.waitForSelector("#confirm[open]");
  out.listed = await page.$$eval("#confirm-list li",
    (l) => l.map((li) => li.textContent.trim()));
  await page.click("#confirm-yes");
  await page.waitForURL(/#\/operations\/op-/);
  out.operation = page.url().split("#/operations/")[1];
});
