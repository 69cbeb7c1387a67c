// teams-ui.js: the header's roles and team switcher and the Teams page
// in Chromium.  Usage: node teams-ui.js <slipway url> <operator token>
// <admin token>.  Logs in with the operator's token (a service account
// of one team): reads the header's roles and the switcher's team (its
// own, chosen at once) and the Teams page.  Then logs in with the admin
// token: reads the Teams page's teams and service-account tables, works
// as team b and records the Slipway-Team header of a call after.
// Prints one JSON line: {op_roles, op_team, op_teams, op_accounts,
// admin_roles, admin_teams, admin_accounts, switched, sent (the header
// of the Clusters page's call after switching), error}.
"use strict";
const { run, tokenLogin } = require("./browser.js");

const [url, operator, admin] = process.argv.slice(2);
const teamRows = (page) => page.$$eval("#team-list tr[data-team]", (l) =>
  l.map((tr) => [tr.dataset.team, tr.children[1].textContent.trim()]));
const accountTables = (page) => page.$$eval("table[id^=accounts-]",
  (l) => l.map((t) => [t.id, [...t.querySelectorAll("tr[data-account]")]
    .map((r) => r.dataset.account)]));

run(async (page, context, out) => {
  await tokenLogin(page, url, operator);
  await page.waitForSelector("#team-switch");
  out.op_roles = await page.textContent("#roles");
  await page.waitForFunction(() =>
    document.querySelector("#team-switch").value !== "");
  out.op_team = await page.$eval("#team-switch", (s) => s.value);
  await page.goto(url + "/#/teams");
  await page.waitForSelector("#team-list tr[data-team]");
  out.op_teams = await teamRows(page);
  out.op_accounts = await accountTables(page);
  await page.click("#logout");
  await page.waitForSelector("#token");

  await tokenLogin(page, url, admin);
  out.admin_roles = await page.textContent("#roles");
  await page.goto(url + "/#/teams");
  await page.waitForSelector("table[id^=accounts-] tr[data-account]");
  out.admin_teams = await teamRows(page);
  out.admin_accounts = await accountTables(page);
  await page.click("#team-list tr[data-team=b] button.work-as");
  await page.waitForFunction(() =>
    document.querySelector("#team-switch").value === "b");
  out.switched = await page.$eval("#team-switch", (s) => s.value);
  const [answer] = await Promise.all([
    page.waitForResponse((r) => r.url().includes("/api/v1/clusters")),
    page.goto(url + "/#/clusters")]);
  out.sent = answer.request().headers()["slipway-team"] || "";
});
