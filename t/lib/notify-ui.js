// notify-ui.js: the web UI's notifications page in Chromium.  Usage:
// node notify-ui.js <slipway url> <token>.  Logs in with the token,
// follows the Operations page's link to Notifications, filters the
// deliveries by state "dead" and prints one JSON line: {subs, dead,
// dead_error, error} (subs: the subscription names listed; dead: the
// subscriptions of the dead letters shown; dead_error: the first one's
// last error).
"use strict";
const { run, tokenLogin } = require("./browser.js");

const [url, token] = process.argv.slice(2);
run(async (page, context, out) => {
  await tokenLogin(page, url, token);
  await page.goto(url + "/#/operations");
  await page.click("#notifications-link");
  await page.waitForSelector("#subscription-list [data-subscription]");
  out.subs = await page.$$eval("#subscription-list [data-subscription]",
    (l) => l.map((r) => r.dataset.subscription));
  await page.selectOption("#delivery-list-f-state", "dead");
  await page.waitForFunction(() => document.querySelectorAll(
    "#delivery-list tr[data-state]").length > 0 && [...document
    .querySelectorAll("#delivery-list tr[data-state]")].every(
    (r) => r.dataset.state === "dead"));
  out.dead = await page.$$eval("#delivery-list tr[data-state]",
    (l) => l.map((r) => r.children[3].textContent.trim()));
  out.dead_error = await page.$eval("#delivery-list tr[data-state]",
    (r) => r.children[6].textContent.trim());
});
