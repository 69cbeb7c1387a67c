// elastic-ui.js: an elastic job on the web UI's training pages in
// Chromium.  Usage: node elastic-ui.js <slipway url> <token> <cluster>
// <job>.  Logs in with the token, opens the job page and reads its
// elastic box, then the cluster's job list and reads the job's Nodes
// cell.  Prints one JSON line: {box, cell, error}.
"use strict";
const { run, tokenLogin } = require("./browser.js");

const [url, token, cluster, job] = process.argv.slice(2);
run(async (page, context, out) => {
  await tokenLogin(page, url, token);
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
});
