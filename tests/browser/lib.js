// Shared scaffolding of the browser tests: arguments, a musterd demo on an ephemeral port,
// chromium through playwright-core, checks that say what failed.
"use strict";

const { spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");
const { chromium } = require("playwright-core");

function args() {
  const a = {};
  const v = process.argv.slice(2);
  for (let i = 0; i < v.length; i += 2) a[v[i].replace(/^--/, "")] = v[i + 1];
  for (const k of ["musterd", "source", "build", "chromium"])
    if (!a[k]) throw new Error(`missing --${k}`);
  a.screenshots = path.join(a.build, "screenshots");
  a.tmp = fs.mkdtempSync(path.join(a.build, "test-tmp", "browser-"));
  return a;
}

// Starts `musterd --demo` with the demo scenario; resolves to {url, port, hub, proc, log()} once
// it prints its admin API address (hub: the simulated hub's URL, printed just before). listen defaults to an ephemeral port.
function startMusterd(a, { db, listen = "127.0.0.1:0", extra = [], seconds = 600 } = {}) {
  const argv = ["--demo", "--demo-seconds", String(seconds), "--db", db,
    "--scenario", path.join(a.source, "deploy/scenarios/demo.yaml"), "--listen", listen, ...extra];
  const proc = spawn(a.musterd, argv, { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  proc.stdout.on("data", (b) => { out += b; });
  proc.stderr.on("data", (b) => { out += b; });
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error("musterd did not print its address in 30 s:\n" + out)), 30000);
    const check = () => {
      const m = /admin API: (http:\/\/127\.0\.0\.1:(\d+))\//.exec(out);
      if (m) {
        clearTimeout(t);
        proc.stdout.off("data", check);
        const hub = /simulated Karmada hub: (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        resolve({ url: m[1], port: +m[2], hub: hub ? hub[1] : "", proc, log: () => out });
      }
    };
    proc.stdout.on("data", check);
    proc.on("exit", (code) => { clearTimeout(t); reject(new Error(`musterd exited with ${code}:\n${out}`)); });
  });
}

// SIGTERM, and the exit code (musterd closes its API, streams included, before it exits).
function stopMusterd(m) {
  return new Promise((resolve) => {
    if (m.proc.exitCode !== null) return resolve(m.proc.exitCode);
    if (m.proc.signalCode !== null) return resolve(128); // already ended by a signal
    m.proc.removeAllListeners("exit");
    m.proc.on("exit", (code) => resolve(code));
    m.proc.kill("SIGTERM");
  });
}

async function launch(a) {
  return chromium.launch({
    executablePath: a.chromium,
    // Containers and CI run as root, where chromium's sandbox cannot start.
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
  });
}

let failures = 0;
function check(ok, what) {
  if (ok) console.log("ok   " + what);
  else { failures++; console.log("FAIL " + what); }
}

async function step(what, fn) {
  const t0 = Date.now();
  try {
    await fn();
    console.log(`ok   ${what} (${Date.now() - t0} ms)`);
  } catch (e) {
    failures++;
    console.log(`FAIL ${what}: ${e.message.split("\n")[0]}`);
  }
}

function failed() { return failures; }

module.exports = { args, startMusterd, stopMusterd, launch, check, step, failed };
