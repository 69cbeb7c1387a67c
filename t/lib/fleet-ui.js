// fleet-ui.js: the Fleet page in Chromium.  Usage: node fleet-ui.js
// <slipway url> <token> <document JSON> <refused document JSON>.  Logs
// in with the token, goes from the Clusters page to the Fleet page,
// loads today's state, pastes the document and reads its plan, then
// pastes the refused one and reads the refusal.  Prints one JSON line:
// {loaded, rows, total, yaml, refusal, error}.  With "drift" <cluster>
// in place of the documents: the cluster page's fleet document panel,
// {drift}.
"use strict";
const { run, tokenLogin } = require("./browser.js");

const [url, token, doc, bad] = process.argv.slice(2);
run(async (page, context, out) => {
  await tokenLogin(page, url, token);
  if (doc === "drift") {
    await page.goto(url + "/#/clusters/" + encodeURIComponent(bad));
    await page.waitForSelector("#drift");
    out.drift = (await page.textContent("#drift")).replace(/\s+/g, " ")
      .trim();
    return;
  }
  await page.goto(url + "/#/clusters");
  await page.click("#fleet-link");
  await page.waitForSelector("#fleet-doc");
  await page.click("#fleet-load");
  await page.waitForFunction(() =>
    document.querySelector("#fleet-doc").value.includes("apiVersion"));
  out.loaded = JSON.parse(await page.inputValue("#fleet-doc")).apiVersion;
  await page.fill("#fleet-doc", doc);
  await page.click("#fleet-plan");
  await page.waitForSelector("#fleet-changes tr[data-change]");
  out.rows = await page.$$eval("#fleet-changes tr[data-change]", (l) =>
    l.map((tr) => [...tr.querySelectorAll("td")].map((td) =>
      td.textContent.trim())));
  out.total = (await page.textContent("#fleet-total")).trim();
  out.yaml = await page.textContent("#fleet-yaml");
  await page.fill("#fleet-doc", bad);
  await page.click("#fleet-plan");
  await page.waitForSelector("#fleet-form [data-error-for]");
  out.refusal = await page.$$eval("#fleet-form [data-error-for]",
    (l) => l.map((e) => [e.dataset.errorFor, e.textContent.trim()]));
});
