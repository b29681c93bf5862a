// The HTML report at 10,000 cases: its size and the time headless Chromium takes to open it from a file
// URL until it is ready (body[data-ready]: summary decoded, every case counted and filterable, the first
// page of 500 rows built), against opening a one-line page in the same browser in the same run (the
// floor); then the time to open the last case (its details block decoded on demand). The cases cycle the demo's 15 recorded cases (their real
// transcripts, diffs and rubric details, renamed per copy), so the data compresses as real evidence does.
// Needs a build (pnpm run build) and Chromium; scripts/report-screenshot.ts uses the same demo.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { browserSkipReason, launchChromium } from "../../packages/reports/src/browser.test-helpers.ts";
import { renderHtmlReport } from "../../packages/reports/src/html.ts";
import type { ReportData } from "../../packages/reports/src/report-data.ts";
import type { BenchRow } from "../bench.ts";
import { median } from "./timing.ts";

const CASES = 10_000;
const SIZE_GOAL_BYTES = 16 * 2 ** 20;
const OPEN_GOAL_MS = 2000;

function demoData(work: string): ReportData {
  const root = join(import.meta.dirname, "..", "..");
  const evalgate = (...args: string[]): string =>
    execFileSync(process.execPath, [join(root, "apps", "cli", "dist", "bin.js"), ...args], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      maxBuffer: 2 ** 28,
    });
  evalgate("run", "--task-class", "vuln-remediation", "--out", join(work, "state"), "--quiet");
  return JSON.parse(evalgate("show", "--format", "json", "--out", join(work, "state"))) as ReportData;
}

export default async function reportBench(): Promise<BenchRow[]> {
  if (browserSkipReason !== null) return [{ benchmark: "report", measure: "skipped", value: browserSkipReason }];
  const work = mkdtempSync(join(tmpdir(), "evalgate-report-bench-"));
  try {
    const demo = demoData(work);
    const cases = Array.from({ length: CASES }, (_, index) => ({
      ...demo.cases[index % demo.cases.length]!,
      case_id: `${demo.cases[index % demo.cases.length]!.case_id}-${index}`,
    }));
    const data: ReportData = { ...demo, cases };
    const started = performance.now();
    const report = renderHtmlReport(data);
    const renderMs = performance.now() - started;
    const bytes = Buffer.byteLength(report.html);
    const path = join(work, "report.html");
    writeFileSync(path, report.html);
    const floorPath = join(work, "floor.html");
    writeFileSync(floorPath, "<!doctype html><body data-ready=true>floor</body>");
    const browser = await launchChromium();
    const open = async (file: string): Promise<number> => {
      const page = await browser.newPage();
      const begin = performance.now();
      await page.goto(pathToFileURL(file).href, { timeout: 120_000 });
      await page.waitForSelector("body[data-ready=true]", { timeout: 120_000 });
      const elapsed = performance.now() - begin;
      if (file === path && (await page.textContent("#shown-count")) !== `${CASES} of ${CASES} cases shown`)
        throw new Error("the page did not count every case");
      if (file === path && (await page.$$eval("#case-rows tr", (rows) => rows.length)) !== 500)
        throw new Error("the first page of rows was not built");
      await page.close();
      return elapsed;
    };
    const first = await open(path);
    const opens: number[] = [];
    const floors: number[] = [];
    for (let round = 0; round < 5; round += 1) {
      opens.push(await open(path));
      floors.push(await open(floorPath));
    }
    const page = await browser.newPage();
    const caseBegin = performance.now();
    await page.goto(`${pathToFileURL(path).href}#case=${cases.at(-1)!.case_id}`, { timeout: 120_000 });
    await page.waitForSelector("body[data-ready=true] #case-detail:not([hidden]) #failure-modes", { timeout: 120_000 });
    const caseMs = performance.now() - caseBegin;
    await browser.close();
    const openMs = median(opens);
    return [
      {
        benchmark: "report",
        measure: `${CASES} cases: HTML size (data ${(report.dataBytes / 2 ** 20).toFixed(1)} MiB JSON, gzip+base64: ${report.compressed})`,
        value: `${(bytes / 2 ** 20).toFixed(2)} MiB`,
        goal: `< ${SIZE_GOAL_BYTES / 2 ** 20} MiB`,
        ok: bytes < SIZE_GOAL_BYTES,
      },
      { benchmark: "report", measure: `${CASES} cases: render in Node`, value: `${renderMs.toFixed(0)} ms` },
      {
        benchmark: "report",
        measure: `${CASES} cases: first open in a fresh browser`,
        value: `${first.toFixed(0)} ms`,
      },
      {
        benchmark: "report",
        measure: "open a one-line page in the same Chromium (median of 5)",
        value: `${median(floors).toFixed(0)} ms`,
      },
      {
        benchmark: "report",
        measure: `${CASES} cases: open until ready (median of 5)`,
        value: `${openMs.toFixed(0)} ms (max ${Math.max(...opens).toFixed(0)})`,
        goal: `< ${OPEN_GOAL_MS} ms`,
        ok: openMs < OPEN_GOAL_MS,
      },
      {
        benchmark: "report",
        measure: `${CASES} cases: open with the last case shown (#case=...)`,
        value: `${caseMs.toFixed(0)} ms`,
      },
    ];
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
