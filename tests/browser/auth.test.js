// The dashboard with --token-auth-file: the API answers 401 without a token; the page asks for
// one, refuses a wrong one, works with a viewer token (the event stream authenticates with it
// too), and keeps it for the tab's session only.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const { args, startMusterd, stopMusterd, launch, check, step, failed } = require("./lib.js");

const VIEWER = "viewer-token-" + Math.random().toString(36).slice(2);

async function main() {
  const a = args();
  const tokens = path.join(a.tmp, "tokens.csv");
  fs.writeFileSync(tokens, `${VIEWER},vera,viewer\nadmin-${VIEWER},ada,admin\n`, { mode: 0o600 });
  const m = await startMusterd(a, { db: path.join(a.tmp, "auth.db"), extra: ["--token-auth-file", tokens] });
  const browser = await launch(a);
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  try {
    await step("the API needs the token: 401 without it, 200 with it", async () => {
      const none = await fetch(m.url + "/api/v1/queues");
      const ev = await fetch(m.url + "/api/v1/events");
      const ok = await fetch(m.url + "/api/v1/queues", { headers: { Authorization: "Bearer " + VIEWER } });
      if (none.status !== 401 || ev.status !== 401 || ok.status !== 200)
        throw new Error(`queues ${none.status}, events ${ev.status}, with token ${ok.status}`);
    });

    await step("the page asks for a token and refuses a wrong one", async () => {
      await page.goto(m.url + "/");
      await page.waitForSelector("#login[open]", { timeout: 10000 });
      await page.screenshot({ path: path.join(a.screenshots, "sign-in.png") });
      await page.fill("#login-token", "not-the-token");
      await page.press("#login-token", "Enter");
      await page.waitForFunction(() => true); // let the dialog cycle
      await page.waitForSelector("#login[open]", { timeout: 10000 });
      const msg = await page.textContent("#login-error");
      if (!/not accepted/.test(msg)) throw new Error(`no refusal shown: "${msg}"`);
    });

    await step("with a viewer token the page works and goes live", async () => {
      await page.fill("#login-token", VIEWER);
      await page.press("#login-token", "Enter");
      await page.waitForSelector('#queue-tree tr[data-queue="nlp"]', { timeout: 15000 });
      await page.waitForSelector("#conn.live", { timeout: 15000 });
      const stored = await page.evaluate(() => sessionStorage.getItem("muster.token"));
      if (stored !== VIEWER) throw new Error("the token is not in session storage");
    });

    await step("a reload keeps the session without asking again", async () => {
      await page.reload();
      await page.waitForSelector("#conn.live", { timeout: 15000 });
      if (await page.$("#login[open]")) throw new Error("asked again");
    });

    await step("live updates arrive over the authenticated stream", async () => {
      const name = "auth-" + Date.now().toString(36);
      const r = await fetch(m.url + "/api/v1/queues", {
        method: "POST",
        headers: { Authorization: "Bearer admin-" + VIEWER, "Content-Type": "application/json" },
        body: JSON.stringify({ name }),
      });
      if (r.status !== 201) throw new Error("create: " + r.status);
      await page.waitForSelector(`#queue-tree tr[data-queue="${name}"]`, { timeout: 2000 });
    });
    check(errors.length === 0, "no script error" + (errors.length ? ": " + errors.join(" | ") : ""));
  } finally {
    await browser.close();
    const code = await stopMusterd(m);
    check(code === 0, `musterd exits cleanly (${code})`);
    if (code !== 0) console.log(m.log());
  }
  process.exit(failed() ? 1 : 0);
}

// Whatever ends the script without reaching process.exit (a promise that never settles lets
// node drain its loop and exit 0) is a failure.
process.exitCode = 1;

main().catch((e) => { console.error(e); process.exit(1); });
