// SPDX-License-Identifier: MIT
// The gcev report page in headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core;
// never a downloaded browser). For each trace: `gcev stats --format json` and `gcev report`, then the
// page opened from file:// with the network off, and checked against that JSON:
//   - no console error, no page error, no request but the page's own file;
//   - one pause mark per GC (up to 2000 GCs; past that at most 2000, the longest pause among them);
//   - the table holds every GC (over its pages), in order, with the JSON's numbers and pauses;
//   - every summary figure (data-key / data-v) equals the JSON value at that path;
//   - warnings shown, at the top, exactly when the JSON says the analysis is incomplete;
//   - hover shows the GC's numbers (on the pause marks and over the line charts), a click finds
//     its row, a header click sorts, a legend name hides its series;
//   - screenshots at desktop and narrow widths (PNG in the output folder); no sideways scrolling
//     on the narrow one;
//   - what a reader needs named (issue 21): every reason by name, the Gen labels and each column
//     defined, the two allocation figures named apart, one precision per unit, "–" in an empty
//     generation's row, heap sizes drawn as a column per GC (no area between GCs), a PID column
//     exactly when the JSON has several processes, and at 1400 px the GC table fits the page
//     (or scrolls inside it with its first column kept in view).
// usage: node browser_test.mjs --gcev GCEV --out DIR --modules NODE_MODULES_DIR
//                              [--readme-shot NAME] [--expect-warning NAME] TRACE...
import { spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const opt = { traces: [], expectWarning: new Set() };
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === "--gcev") opt.gcev = args[++i];
  else if (a === "--out") opt.out = args[++i];
  else if (a === "--modules") opt.modules = args[++i];
  else if (a === "--readme-shot") opt.readmeShot = args[++i];
  else if (a === "--expect-warning") opt.expectWarning.add(args[++i]);
  else opt.traces.push(a);
}
if (!opt.gcev || !opt.out || !opt.modules || opt.traces.length === 0) {
  console.error("usage: node browser_test.mjs --gcev GCEV --out DIR --modules DIR [--readme-shot NAME] TRACE...");
  process.exit(2);
}
const require = createRequire(join(resolve(opt.modules), "noop.js"));
const { chromium } = require("playwright-core");
mkdirSync(opt.out, { recursive: true });

let passed = 0, failed = 0;
function check(ok, what) {
  if (ok) {
    passed++;
  } else {
    failed++;
    console.log("FAIL: " + what);
  }
}

// The JSON value at a dotted path ("processes.0.pauses.all.p50_ms"), or undefined.
function at(json, path) {
  let v = json;
  for (const k of path.split(".")) {
    if (v == null) return undefined;
    v = Array.isArray(v) ? v[Number(k)] : v[k];
  }
  return v;
}

const DESKTOP = { width: 1280, height: 900 };
const WIDE = { width: 1400, height: 900 };
const NARROW = { width: 390, height: 844 };

const userDataDir = mkdtempSync(join(tmpdir(), "gcev-chromium-"));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: "/usr/bin/chromium",
  headless: true,
  offline: true,
  viewport: DESKTOP,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});

try {
  for (const trace of opt.traces) {
    const name = basename(trace).replace(/\.(nettrace|netperf|etl)$/, "");
    console.log(`== ${name}`);
    // exit status 1: a trace error after partial output (a truncated trace); both still write
    const stats = spawnSync(opt.gcev, ["stats", "--format", "json", trace], { maxBuffer: 1 << 30, encoding: "utf8" });
    check(stats.status === 0 || stats.status === 1, `${name}: gcev stats exited ${stats.status}`);
    const json = JSON.parse(stats.stdout);
    const html = join(resolve(opt.out), `${name}.html`);
    // from the trace's folder, so that the page names it as a user would have typed it
    const rep = spawnSync(resolve(opt.gcev), ["report", "-o", html, basename(trace)],
      { cwd: dirname(resolve(trace)), stdio: ["ignore", "ignore", "inherit"] });
    check(rep.status === stats.status, `${name}: gcev report exited ${rep.status}, gcev stats ${stats.status}`);
    const truncated = stats.status === 1;
    const size = statSync(html).size, gcs = json.gcs.length;
    console.log(`   ${gcs} GCs, page ${size} bytes (budget ${200000 + 400 * gcs})`);
    check(size <= 200000 + 400 * gcs, `${name}: page ${size} bytes over the budget`);
    check(gcs === json.summary.gc_count, `${name}: the JSON's gcs[] and gc_count differ`);

    const page = await context.newPage();
    await page.setViewportSize(DESKTOP);
    const errors = [], requests = [];
    page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
    page.on("pageerror", (e) => errors.push(String(e)));
    page.on("request", (r) => requests.push(r.url()));
    const url = pathToFileURL(html).href;
    await page.goto(url, { waitUntil: "load" });
    await page.waitForSelector("#gc-table tbody tr, #no-gc", { state: "attached" });
    check((gcs === 0) === (await page.locator("#no-gc").count() === 1), `${name}: the "no GC" note ${gcs ? "shown" : "missing"}`);

    // the pause marks
    const marks = await page.locator("#chart-pause .mark").count();
    let longest = -1;
    if (json.summary.pause_max_ms !== undefined) {
      longest = json.gcs.findIndex((g) => g.number === json.summary.pause_max_gc && g.pause_ms === json.summary.pause_max_ms);
      check(longest >= 0, `${name}: no GC has the JSON's longest pause`);
    }
    if (gcs <= 2000) {
      check(marks === gcs, `${name}: ${marks} pause marks for ${gcs} GCs`);
    } else {
      check(marks > 0 && marks <= 2000, `${name}: ${marks} pause marks for ${gcs} GCs (at most 2000)`);
    }
    if (longest >= 0) {
      check(await page.locator(`#chart-pause .mark[data-i="${longest}"]`).count() === 1,
        `${name}: the longest pause (GC #${json.summary.pause_max_gc}) has no mark`);
    }
    for (const fig of await page.locator("figure.chart svg").all()) {
      const n = await fig.locator(".mark, .bar, .span").count();
      const id = await fig.getAttribute("data-chart");
      check(gcs <= 2000 || n <= 2000, `${name}: chart ${id} draws ${n} marks`);
    }

    // the table: every GC over its pages, in the JSON's order, with its number and pause
    const rowsPerPage = Number(await page.locator("#gc-table").getAttribute("data-rows"));
    const colOf = async (c) => page.$$eval("#gc-table thead th", (ths, c) => ths.findIndex((th) => th.dataset.c === c), c);
    const pauseCol = await colOf("pause"), reasonCol = await colOf("reason");
    const pages = Math.max(1, Math.ceil(gcs / rowsPerPage));
    let seen = 0, mismatch = "";
    for (let p = 0; p < pages; p++) {
      const cells = await page.$$eval("#gc-table tbody tr", (trs, [pc, rc]) =>
        trs.map((tr) => [tr.cells[0].textContent, tr.cells[pc].textContent, tr.cells[rc].textContent]), [pauseCol, reasonCol]);
      for (const [n, pause, reason] of cells) {
        const g = json.gcs[seen++];
        const want = g && g.pause_ms !== undefined ? g.pause_ms.toFixed(3) : "\u2013";
        // every reason the JSON names (reasons 10-17 included) shows by that name
        const wantReason = g && g.reason_name !== undefined ? g.reason_name : (g && g.reason !== undefined ? String(g.reason) : "\u2013");
        if (!mismatch && (!g || String(g.number) !== n || want !== pause || wantReason !== reason)) {
          mismatch = `row ${seen}: GC ${n} pause ${pause} reason ${reason}, JSON GC ${g && g.number} pause ${want} reason ${wantReason}`;
        }
      }
      if (p + 1 < pages) await page.click('#pager button[data-p="1"]');
    }
    check(seen === gcs, `${name}: the table shows ${seen} rows for ${gcs} GCs`);
    check(!mismatch, `${name}: ${mismatch}`);
    console.log(`   ${marks} pause marks, ${seen} table rows over ${pages} page(s)`);

    // the summary figures
    const figs = await page.$$eval("[data-key]", (els) => els.map((e) => [e.dataset.key, e.dataset.v, e.textContent]));
    let compared = 0;
    const unresolved = [];
    for (const [key, v, text] of figs) {
      const want = at(json, key);
      if (want === undefined) {
        unresolved.push(key);
        continue;
      }
      compared++;
      const same = typeof want === "number" ? Number(v) === want : String(want) === v;
      check(same, `${name}: ${key} is ${v} on the page, ${want} in the JSON`);
      check(text.trim() !== "", `${name}: ${key} shows no text`);
    }
    check(json.json_version >= 2, `${name}: gcev stats JSON version ${json.json_version} (2 has processes[])`);
    check(unresolved.length === 0, `${name}: figures not in the JSON: ${unresolved.join(", ")}`);
    for (const key of ["summary.gc_count", "summary.events"]) {
      check(figs.some((f) => f[0] === key), `${name}: the summary lacks ${key}`);
    }
    if (gcs > 0 && json.summary.pause_total_ms !== undefined) {
      for (const key of ["summary.pause_total_ms", "summary.pause_max_ms", "processes.0.gcstats.count",
        "processes.0.pauses.all.p50_ms", "processes.0.pauses.all.p99_ms", "processes.0.generations.0.count"]) {
        check(figs.some((f) => f[0] === key), `${name}: the summary lacks ${key}`);
      }
    }
    console.log(`   ${compared} summary figures equal the JSON`);

    // warnings: shown at the top exactly when the analysis is incomplete
    const warn = page.locator("#warnings");
    const hasWarn = (await warn.count()) === 1;
    check(hasWarn === !json.complete, `${name}: warnings ${hasWarn ? "shown" : "absent"}, JSON complete ${json.complete}`);
    if (opt.expectWarning.has(name)) {
      check(hasWarn, `${name}: the expected warning is missing`);
    }
    if (hasWarn) {
      const box = await warn.boundingBox();
      check(await warn.isVisible(), `${name}: the warning is not visible`);
      check(box && box.y < DESKTOP.height / 3 && box.height > 30, `${name}: the warning is not at the top (${JSON.stringify(box)})`);
      const text = await warn.textContent();
      if (truncated) {
        check(await page.locator('#warnings [data-kind="truncated"]').isVisible(), `${name}: no warning that the trace ends early`);
      }
      if (json.summary.dropped_events > 0) {
        check(text.includes(`${json.summary.dropped_events} events were lost`), `${name}: the warning does not count the lost events`);
      }
      const color = await warn.evaluate((e) => getComputedStyle(e).borderLeftColor);
      check(color !== "rgba(0, 0, 0, 0)", `${name}: the warning has no coloured edge`);
    }

    // what a reader needs named (issue 21 item 5)
    const heads = await page.$$eval("#gc-table thead th", (ths) => ths.map((th) => [th.dataset.c, th.title]));
    check(heads.every(([, t]) => t && t.length > 10), `${name}: a GC table heading has no definition`);
    check(heads.some(([c]) => c === "pid") === (json.processes.length > 1),
      `${name}: PID column ${heads.some(([c]) => c === "pid") ? "shown" : "absent"} for ${json.processes.length} process(es)`);
    const legend = await page.locator("#gc-legend").textContent();
    check(/2NI/.test(legend) && /background/.test(legend) && /induced/.test(legend), `${name}: the Gen labels are not defined`);
    if (json.summary.allocated_bytes !== undefined) {
      check(await page.locator(".card .label", { hasText: "Allocated (AllocationTick sum)" }).count() === 1,
        `${name}: the AllocationTick allocation is not named so`);
    }
    if (json.processes.length > 0) {
      check((await page.locator(".rollup thead").first().textContent()).includes("GC-observed"),
        `${name}: the GCStats allocation is not named GC-observed`);
      check(await page.locator("#alloc-note").count() === 1, `${name}: no note on the two allocation figures`);
    }
    // one precision per unit: ms and MB 3 decimals, percentages and rates 1
    const precise = await page.$$eval("[data-key]", (els) => els.map((e) => [e.dataset.key, e.textContent.trim()]));
    for (const [key, text] of precise) {
      if (!/^-?[0-9]/.test(text)) continue;
      const want = /(_ms|_bytes|size_peak_max|size_after_mean|allocated_total|promoted_total)$/.test(key) ? 3
        : /(percent|per_sec)$/.test(key) ? 1 : null;
      if (want === null) continue;
      const dec = (text.split(".")[1] || "").length;
      check(dec === want, `${name}: ${key} shows ${text} (${want} decimals wanted)`);
    }
    // an empty generation's row: "–" wherever a GCStats value needs a GC
    for (const [p, proc] of json.processes.entries()) {
      for (const gen of [0, 1, 2]) {
        if (proc.generations[gen].count !== 0) continue;
        const row = page.locator(`#rollup-${p} tbody tr`).nth(gen + 1);
        const cells = await row.locator("td").allTextContents();
        check(cells.slice(2).every((c) => c === "\u2013"), `${name}: process ${p} gen${gen} has no GC but shows ${cells.join(" ")}`);
      }
    }
    // heap sizes are known at GCs only: a column per GC, no area or line between them
    for (const id of ["heap-before", "heap-after"]) {
      const fig = page.locator(`#chart-${id}`);
      if (await fig.count() === 0) continue;
      check(await fig.locator("polygon, polyline").count() === 0 && await fig.locator("path.col").count() > 0,
        `${name}: chart ${id} interpolates between GCs`);
    }
    // at 1400 px the GC table fits, or scrolls inside its box with the GC number kept in view
    await page.setViewportSize(WIDE);
    const fit = await page.evaluate(() => {
      const w = document.querySelector("#gcs .tablewrap");
      const th = document.querySelector("#gc-table thead th");
      return { over: w.scrollWidth - w.clientWidth, page: document.documentElement.scrollWidth - window.innerWidth,
        sticky: getComputedStyle(th).position };
    });
    check(fit.page <= 1, `${name}: at 1400 px the page scrolls sideways by ${fit.page} px`);
    check(fit.over <= 1 || fit.sticky === "sticky", `${name}: at 1400 px the GC table is cut (${fit.over} px) without a sticky first column`);
    if (json.processes.length <= 1 && gcs > 0) {
      check(fit.over <= 1, `${name}: at 1400 px the GC table does not fit (${fit.over} px over)`);
    }
    await page.locator("#gcs").scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(opt.out, `${name}-1400.png`) }); // the table in view (a 12,000-row page is too tall whole)
    await page.setViewportSize(DESKTOP);

    // screenshots, before any hover or click
    await page.screenshot({ path: join(opt.out, `${name}-desktop.png`), fullPage: true, timeout: 120000 }); // 1,000 rows with a sticky column: slow to paint whole
    if (opt.readmeShot === name) {
      await page.screenshot({ path: join(opt.out, "report-readme.png"), clip: { x: 0, y: 0, width: DESKTOP.width, height: DESKTOP.height } });
    }
    await page.setViewportSize(NARROW);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    check(overflow <= 1, `${name}: the narrow page scrolls sideways by ${overflow} px`);
    if (hasWarn) {
      const box = await warn.boundingBox();
      check(box && box.y < NARROW.height / 2, `${name}: on a narrow screen the warning is not at the top`);
    }
    await page.screenshot({ path: join(opt.out, `${name}-narrow.png`), fullPage: true, timeout: 120000 });
    await page.setViewportSize(DESKTOP);

    // hover and click
    if (longest >= 0) {
      const mark = page.locator(`#chart-pause .mark[data-i="${longest}"]`);
      await mark.scrollIntoViewIfNeeded();
      // near the top of the tallest bar, which no neighbouring mark covers
      const mb = await mark.boundingBox();
      await mark.hover({ force: true, position: { x: mb.width / 2, y: Math.min(2, mb.height / 2) } });
      const tip = page.locator("#tip");
      check(await tip.isVisible(), `${name}: hovering the longest pause shows no tooltip`);
      const tipText = await tip.textContent();
      check(tipText.includes(`GC #${json.summary.pause_max_gc}`) && tipText.includes(json.summary.pause_max_ms.toFixed(3)),
        `${name}: the tooltip does not show GC #${json.summary.pause_max_gc}: ${tipText}`);
      await mark.click({ force: true, position: { x: mb.width / 2, y: Math.min(2, mb.height / 2) } });
      const row = page.locator(`#gc-${longest}`);
      check(await row.count() === 1 && (await row.getAttribute("class") || "").includes("hl"),
        `${name}: clicking the mark does not mark its row`);
      check(await row.isVisible() && await row.evaluate((tr) => {
        const r = tr.getBoundingClientRect();
        return r.top >= 0 && r.bottom <= window.innerHeight;
      }), `${name}: the clicked GC's row is not in view`);
      // sorting by pause, longest first
      await page.click('#gc-table th[data-c="pause"]');
      const first = await page.locator("#gc-table tbody tr").first().locator("td").nth(pauseCol).textContent();
      check(first === json.summary.pause_max_ms.toFixed(3), `${name}: sorted by pause, the first row has ${first}`);
      await page.click('#gc-table th[data-c="n"]');
      await page.mouse.move(0, 0);
    }
    // the line and area charts: hovering anywhere over the plot names the nearest GC drawn
    for (const id of ["heap-after", "alloc"]) {
      const svg = page.locator(`#chart-${id} svg`);
      if (await svg.count() === 0) continue;
      await svg.scrollIntoViewIfNeeded();
      const b = await svg.boundingBox();
      await page.mouse.move(b.x + b.width * 0.6, b.y + b.height * 0.4);
      const tip = page.locator("#tip");
      const shown = await tip.isVisible();
      const i = Number(await tip.getAttribute("data-i"));
      check(shown && i >= 0 && i < gcs && (await tip.textContent()).includes(`GC #${json.gcs[i].number}`),
        `${name}: hovering chart ${id} shows no GC`);
      await page.mouse.move(0, 0);
    }
    // a legend name hides its series, and shows it again
    const key = page.locator('#chart-heap-after button.key[data-s="s2"]');
    if (await key.count() === 1) {
      await key.click();
      const off = await page.locator('#chart-heap-after .col.s2').evaluate((e) => e.classList.contains("off"));
      check(off && (await key.getAttribute("aria-pressed")) === "false", `${name}: the legend does not hide gen2`);
      await key.click();
      check(!(await page.locator('#chart-heap-after .col.s2').evaluate((e) => e.classList.contains("off"))),
        `${name}: the legend does not show gen2 again`);
    }

    check(errors.length === 0, `${name}: console errors: ${errors.join(" | ")}`);
    const foreign = requests.filter((u) => u !== url);
    check(foreign.length === 0, `${name}: requests besides the page: ${foreign.join(", ")}`);
    check(requests.length === 1, `${name}: ${requests.length} requests (the page itself only)`);
    await page.close();
  }
} finally {
  await context.close();
  rmSync(userDataDir, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
