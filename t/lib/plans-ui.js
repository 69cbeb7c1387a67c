// plans-ui.js: the Training plans page in Chromium.  Usage: node
// plans-ui.js <slipway url> <token>.  Logs in with the token, opens
// the Training plans page from the Costs page, searches offerings of
// 2 x ml.p5.48xlarge for 48 h, reserves the first as plan "ui-plan": the confirmation shows the
// upfront fee of the dry run before anything is bought; confirming leads
// to the operation's page.  Prints one JSON line: {offerings, confirm,
// operation, error}.
"use strict";
const path = require("path");
const { chromium } = require(path.join(__dirname, "..", "node_modules",
  "playwright-core"));

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
    await page.click("#plans-link");
    await page.waitForSelector("#plan-search-form");
    await page.selectOption("#plan-instance_type", "ml.p5.48xlarge");
    await page.fill("#plan-count", "2");
    await page.fill("#plan-duration_hours", "48");
    await page.fill("#plan-name", "ui-plan");
    await page.click("#plan-search-submit");
    await page.waitForSelector("#offering-list tr[data-offering]");
    out.offerings = await page.$$eval("#offering-list tr[data-offering]",
      (l) => l.map((tr) => [...tr.querySelectorAll("td")]
        .map((td) => td.textContent.trim())));
    await page.click("#offering-list tr[data-offering] button.reserve");
    await page.waitForSelector("#confirm[open]");
    out.confirm = (await page.textContent("#confirm .confirm-text")).trim();
    await page.click("#confirm-yes");
    await page.waitForURL(/#\/operations\/op-/);
    out.operation = page.url().replace(/.*#\/operations\//, "");
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
