// spaces-ui.js: the Spaces page in Chromium.  Usage: node spaces-ui.js
// <slipway url> <token> <cluster>.  Logs in, opens the cluster's Spaces
// page, reads each Space's name and state badge and the create form's
// template choices, opens Connect on a running Space, then stops it
// with its button.  Prints one JSON line: {spaces, templates, url,
// stopped, error}.
"use strict";
const path = require("path");
const { chromium } = require(path.join(__dirname, "..", "node_modules",
  "playwright-core"));

(async () => {
  const [url, token, cluster] = process.argv.slice(2);
  const out = {};
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
    const page = await context.newPage();
    await page.goto(url + "/#/login");
    await page.fill("#token", token);
    await page.click("#login-form button[type=submit]");
    await page.waitForSelector("#who");
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
  } catch (e) {
    out.error = String(e && e.stack || e);
  }
  await browser.close();
  process.stdout.write(JSON.stringify(out) + "\n");
})();
