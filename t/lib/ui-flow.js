// ui-flow.js URL TOKEN SHOTDIR: drive Slipway's web UI in headless
// Debian Chromium with playwright-core, as a person would: log in,
// open the create form, see a field error, plan (dry run), create, and
// follow the operation page until it ends.  Prints one JSON line of
// findings for the TAP test (t/20-ui.t) to assert on.
"use strict";
const path = require("path");
const { chromium } = require(path.join(__dirname, "..", "node_modules",
  "playwright-core"));

(async () => {
  const [url, token, shots] = process.argv.slice(2);
  const out = {};
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update",
      "--disable-sync"],
  });
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const consoleErrors = [];
  page.on("pageerror", (e) => consoleErrors.push(String(e)));
  // Console errors too (a CSP violation is only a console message). The
  // API's own 4xx answers (a wrong token, a field error) are expected and
  // Chromium logs each as "Failed to load resource"; anything else counts.
  page.on("console", (m) => {
    if (m.type() !== "error") return;
    if (/Failed to load resource: the server responded with a status of 4\d\d/.test(m.text())) return;
    consoleErrors.push("console: " + m.text());
  });
  try {
    await page.goto(url + "/#/login");
    await page.fill("#token", "swt_wrong");
    await page.click("button[type=submit]");
    await page.waitForSelector("#login-error:not(:empty)");
    out.bad_login = await page.textContent("#login-error");
    await page.fill("#token", token);
    await page.click("button[type=submit]");
    await page.waitForSelector("h1:has-text('Clusters')");
    out.logged_in = await page.textContent("#who");
    const cookies = await page.context().cookies();
    const c = cookies.find((x) => x.name === "sw_session");
    out.cookie_http_only = !!(c && c.httpOnly);
    out.cookie_same_site = c ? c.sameSite : null;

    // A late answer for a page the user has left must not replace the page
    // now shown: hold the cluster list back, move on to the create form.
    await page.route("**/api/v1/clusters", async (r) => {
      await new Promise((res) => setTimeout(res, 1500));
      await r.continue();
    });
    await page.evaluate(() => { location.hash = "#/"; });
    await page.waitForTimeout(100);
    await page.evaluate(() => { location.hash = "#/create"; });
    await page.waitForSelector("#create-form");
    await page.waitForTimeout(2500);
    out.create_kept = await page.locator("#create-form").count();
    out.create_h1 = await page.textContent("h1");
    await page.unroute("**/api/v1/clusters");

    await page.goto(url + "/#/create");
    await page.waitForSelector("#create-form");
    // A field error from the server, shown beside its input.
    await page.fill("#name", "ui-demo");
    await page.fill("#count", "0");
    await page.click("#create");
    await page.waitForSelector("[data-error-for='instance_groups[0].count']");
    out.field_error = await page.textContent("[data-error-for='instance_groups[0].count']");
    await page.fill("#count", "1");
    await page.click("#plan");
    await page.waitForSelector("#plan-list li");
    out.plan_steps = await page.locator("#plan-list li").count();
    out.plan_first = await page.locator("#plan-list li").first().textContent();
    await page.screenshot({ path: path.join(shots, "create.png"), fullPage: true });
    await page.click("#create");
    await page.waitForSelector("#operation");
    out.operation_url = page.url();
    await page.waitForSelector("#operation[data-state='succeeded'], #operation[data-state='failed']",
      { timeout: 240000 });
    out.final_state = await page.getAttribute("#operation", "data-state");
    out.stages = await page.locator("ol.stages li").count();
    out.stages_succeeded = await page.locator("ol.stages li .state[data-state='succeeded']").count();
    await page.screenshot({ path: path.join(shots, "operation.png"), fullPage: true });

    await page.goto(url + "/#/clusters/ui-demo");
    await page.waitForSelector("tr[data-node]");
    out.nodes = await page.locator("tr[data-node]").count();
  } catch (e) {
    out.error = String(e);
  }
  out.page_errors = consoleErrors;
  console.log(JSON.stringify(out));
  await browser.close();
})();
