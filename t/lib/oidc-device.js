// oidc-device.js: a person approves (or aborts) a device sign-in at the
// OpenID provider in Chromium, as they would on their phone or laptop.
// Usage: node oidc-device.js <verification_uri_complete> <login>
// approve|abort.  Opens the page (the user code already in it),
// continues or aborts, signs in at the provider's own page (any
// password) and grants consent.  Prints one JSON line: {text, error}
// (text: what the provider's last page says).
"use strict";
const { run } = require("./browser.js");

const [url, login, what] = process.argv.slice(2);
run(async (page, context, out) => {
  const go = (sel) => Promise.all([page.waitForNavigation(),
    page.click(sel)]);
  await page.goto(url);
  if (what === "abort") {
    await go("button[name=abort]");
  } else {
    await go("button[autofocus]");
    await page.fill("input[name=login]", login);
    await page.fill("input[name=password]", "any password");
    await go("button[type=submit]");
    // Consent, when the provider asks for it.
    while (await page.$("button:has-text('Continue')"))
      await go("button:has-text('Continue')");
  }
  out.text = (await page.textContent("body")).replace(/\s+/g, " ")
    .slice(0, 300);
}, 120000);
