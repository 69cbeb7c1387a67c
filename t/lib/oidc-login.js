// oidc-login.js: sign in to Slipway's UI through the OpenID provider in
// Chromium, as a person would.  Usage: node oidc-login.js <slipway url>
// <login>.  Opens the UI, clicks "Sign in with <provider>", signs in at
// the provider's own page (t/lib/oidc-provider.mjs: any password),
// grants consent and waits for the UI to show who is signed in.  Prints
// one JSON line: {button, who, cookie, http_only, same_site, url,
// whoami, roles, team, plan_title, error} (team and plan_title for a
// person of one team: the team worked as, and why the Costs page's
// "Set budget" is disabled for a viewer).
"use strict";
const { run } = require("./browser.js");

const [url, login] = process.argv.slice(2);
run(async (page, context, out) => {
  await page.goto(url + "/#/login");
  out.button = await page.textContent("#login-provider");
  await page.click("#login-provider");
  await page.fill("input[name=login]", login);
  await page.fill("input[name=password]", "any password");
  await page.click("button[type=submit]");
  // Consent, when the provider asks for it, else straight back.
  await page.waitForSelector("button:has-text('Continue'), #who");
  if (await page.$("button:has-text('Continue')"))
    await page.click("button:has-text('Continue')");
  await page.waitForSelector("#who");
  out.who = await page.textContent("#who");
  out.url = page.url();
  const cookies = await context.cookies(url);
  const c = cookies.find((k) => k.name === "sw_session");
  out.cookie = c ? c.value.slice(0, 4) : null;
  out.http_only = c ? c.httpOnly : null;
  out.same_site = c ? c.sameSite : null;
  out.flow_cookie_left = cookies.some((k) => k.name === "sw_oidc");
  out.whoami = await page.evaluate(async () =>
    (await fetch("/api/v1/whoami")).json());
  // The header: the person's teams and roles, and the team worked as
  // (one team of one's own is chosen at once).
  out.roles = await page.textContent("#roles");
  if (out.whoami.teams && out.whoami.teams.length === 1) {
    await page.waitForFunction(() => document.querySelector(
      "#team-switch") && document.querySelector("#team-switch").value);
    out.team = await page.$eval("#team-switch", (e) => e.value);
    // A viewer's actions that change things are disabled, and say why.
    await page.goto(url + "/#/costs");
    await page.waitForSelector("#budget-set");
    await page.waitForFunction(() =>
      document.querySelector("#budget-set").disabled);
    out.plan_title = await page.$eval("#budget-set", (b) => b.title);
  }
}, 120000);
