// SPDX-License-Identifier: MIT
// gcev allocs' speedscope export opened in speedscope itself (the npm package's own page, from
// file://, network off) under Debian's headless Chromium driven by playwright-core:
// the profile loads through the page's file input, no console or page error, the sandwich view
// (key 3) lists the frames, and its first row (heaviest self weight) is the frame the file itself
// says is heaviest.
// usage: node speedscope_test.mjs --modules NODE_MODULES_DIR --out DIR PROFILE.speedscope.json
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const opt = {};
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--modules") opt.modules = args[++i];
  else if (args[i] === "--out") opt.out = args[++i];
  else opt.profile = args[i];
}
if (!opt.modules || !opt.out || !opt.profile) {
  console.error("usage: node speedscope_test.mjs --modules DIR --out DIR PROFILE");
  process.exit(2);
}
const require = createRequire(join(resolve(opt.modules), "noop.js"));
const { chromium } = require("playwright-core");
mkdirSync(opt.out, { recursive: true });

const file = JSON.parse(readFileSync(opt.profile, "utf8"));
const p = file.profiles[0];
const self = new Map();
p.samples.forEach((s, i) => {
  const leaf = s[s.length - 1];
  self.set(leaf, (self.get(leaf) || 0) + p.weights[i]);
});
let heaviest = -1, best = -1;
for (const [f, w] of self) if (w > best) { best = w; heaviest = f; }
const expected = file.shared.frames[heaviest].name;
console.log(`profile: ${p.samples.length} stacks, ${file.shared.frames.length} frames; heaviest self: ${expected} (${best} bytes)`);

const page_url = pathToFileURL(join(resolve(opt.modules), "speedscope/dist/release/index.html")).href;
const userDataDir = mkdtempSync(join(tmpdir(), "gcev-speedscope-"));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: "/usr/bin/chromium", headless: true, offline: true,
  args: ["--no-sandbox", "--disable-gpu"], viewport: { width: 1400, height: 900 },
});
let failed = 0;
const errors = [];
const page = await context.newPage();
page.on("console", (m) => { if (m.type() === "error") errors.push("console: " + m.text()); });
page.on("pageerror", (e) => errors.push("page: " + e.message));
page.on("request", (r) => { if (!r.url().startsWith("file:") && !r.url().startsWith("data:") && !r.url().startsWith("blob:")) errors.push("request: " + r.url()); });
try {
  await page.goto(page_url);
  await page.locator("input[type=file]").setInputFiles(resolve(opt.profile));
  await page.waitForFunction(() => document.title.includes("speedscope") && !document.body.innerText.includes("Drag and drop"), null, { timeout: 20000 });
  await page.waitForTimeout(500);
  await page.keyboard.press("3"); // the sandwich view: a table of frames
  await page.waitForTimeout(1000);
  const text = await page.evaluate(() => document.body.innerText);
  await page.screenshot({ path: join(opt.out, "speedscope.png") });
  const rows = text.split("\n").map((l) => l.trim()).filter((l) => l.length);
  const first = rows.find((l) => file.shared.frames.some((f) => f.name === l));
  console.log(`first frame row of the sandwich table: ${first}`);
  if (first !== expected) { failed++; console.log(`FAIL: expected the heaviest frame ${expected} first`); }
  if (!text.includes("Gcev.Workload.AllocSites.NewOrder")) { failed++; console.log("FAIL: NewOrder not listed"); }
} catch (e) {
  failed++;
  console.log("FAIL: " + e.message);
}
for (const e of errors) { failed++; console.log("FAIL: " + e); }
await context.close();
rmSync(userDataDir, { recursive: true, force: true });
console.log(failed ? `speedscope: ${failed} failure(s)` : "speedscope: ok");
process.exit(failed ? 1 : 0);
