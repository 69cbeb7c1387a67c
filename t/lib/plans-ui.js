// plans-ui.js: the Training plans page in Chromium.  Usage: node
// plans-ui.js <slipway url> <token>.  Logs in with the token, opens
// the Training plans page from the Costs page, searches offerings of
// 2 x ml.p5.48xlarge for 48 h, reserves the first as plan "ui-plan": the confirmation shows the
// upfront fee of the dry run before anything is bought; confirming leads
// to the operation's page.  Prints one JSON line: {offerings, confirm,
// operation, error}.
"use strict";
const { run, tokenLogin } = require("./browser.js");

const [url, token] = process.argv.slice(2);
run(async (page, context, out) => {
  await tokenLogin(page, url, token);
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
});
