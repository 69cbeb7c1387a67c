// browser.js: what every UI script of the tests does around its own
// steps.  run(steps, timeout) launches Debian's Chromium through
// playwright-core, opens one page whose requests may not leave loopback,
// calls steps(page, context, out) and prints out as one JSON line, with
// the error (and the page's address and text) when a step threw.
// tokenLogin(page, url, token) signs in with a Slipway token, as the
// login form does.
"use strict";
const path = require("path");
const { chromium } = require(path.join(__dirname, "..", "node_modules",
  "playwright-core"));

async function run(steps, timeout) {
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
    context.setDefaultTimeout(timeout || 60000);
    // A provider's page may ask for a web font; nothing leaves loopback.
    await context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (r) => r.abort());
    page = await context.newPage();
    await steps(page, context, out);
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
}

async function tokenLogin(page, url, token) {
  await page.goto(url + "/#/login");
  await page.fill("#token", token);
  await page.click("#login-form button[type=submit]");
  await page.waitForSelector("#who");
}

module.exports = { run, tokenLogin };
