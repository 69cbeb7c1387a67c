// spaces-ui.js: the Spaces page in Chromium.  Usage: node spaces-ui.js
// <slipway url> <token> <cluster>.  Logs in, opens the cluster's Spaces
// page, reads each Space's name and state badge and the create form's
// template choices, opens Connect on a running Space, then stops it
// with its button.  Prints one JSON line: {spaces, templates, url,
// stopped, error}.
"use strict";
const { run, tokenLogin } = require("./browser.js");

const [url, token, cluster] = process.argv.slice(2);
run(async (page, context, out) => {
  await tokenLogin(page, url, token);
  await page.goto(url + "/#/spaces/" + cluster);
  await page.waitForSelector("#spaces article[data-space]");
  out.spaces = await page.$$eval("#spaces article[data-space]", (l) =>
    l.map((a) => [a.dataset.space, a.querySelector("h3").textContent]));
  out.templates = await page.$$eval("#space-template option",
    (l) => l.map((o) => o.value).filter(Boolean));
  await page.click("#spaces article[data-space] details.connect summary");
  await page.waitForSelector("#spaces details.connect a");
  out.url = await page.$eval("#spaces details.connect a",
    (a) => a.getAttribute("href"));
  await page.click("#spaces article[data-space] button.scale");
  await page.waitForFunction(() => [...document.querySelectorAll(
    "#spaces article[data-space] button.primary")].some((b) =>
    b.textContent.trim() === "Start"));
  out.stopped = true;
});
