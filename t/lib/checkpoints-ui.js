// checkpoints-ui.js: a training job's checkpoints on its page in
// Chromium.  Usage: node checkpoints-ui.js <slipway url> <token>
// <cluster> <job>.  Logs in with the token, opens the job's page, reads
// the checkpoints table and which row is marked newest complete, which
// rows offer "Resume from this checkpoint", then runs the retention dry
// run for keep 1 and reads the keys it lists.  Prints one JSON line:
// {rows, newest, resumable, keys, error}.
"use strict";
const { run, tokenLogin } = require("./browser.js");

const [url, token, cluster, job] = process.argv.slice(2);
run(async (page, context, out) => {
  await tokenLogin(page, url, token);
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
});
