// The HTML report opened in a real browser (headless Chromium) from a file URL: what a user sees, that
// agent-written payloads stay text, that nothing is fetched, and that the digest re-check works.
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserSkipReason, launchChromium } from "./browser.test-helpers.ts";
import { IMG_PAYLOAD, makeReportData, SCRIPT_PAYLOAD } from "./fixtures.test-helpers.ts";
import { readEmbeddedData, renderHtmlReport } from "./html.ts";
import type { HtmlReportOptions } from "./html.ts";
import type { ReportData } from "./report-data.ts";

const TIMEOUT = 120_000;
let browser: Browser;
let dir: string;
let requests: string[] = [];
let server: ReturnType<typeof createServer>;
let serverUrl: string;

interface Opened {
  readonly page: Page;
  readonly dialogs: string[];
  readonly errors: string[];
  readonly cspViolations: string[];
}

async function open(data: ReportData, name: string, options: HtmlReportOptions = {}, html?: string): Promise<Opened> {
  const path = join(dir, `${name}.html`);
  await writeFile(path, html ?? renderHtmlReport(data, options).html);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const opened: Opened = { page, dialogs: [], errors: [], cspViolations: [] };
  page.on("dialog", (dialog) => {
    opened.dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  page.on("pageerror", (error) => opened.errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") opened.cspViolations.push(message.text());
  });
  await page.goto(pathToFileURL(path).href, { timeout: TIMEOUT });
  await page.waitForSelector("body[data-ready=true]", { timeout: TIMEOUT });
  return opened;
}

const visibleCaseIds = (page: Page): Promise<string[]> =>
  page.$$eval("#case-rows tr:not([hidden])", (rows) => rows.map((row) => row.getAttribute("data-case")!));

beforeAll(async () => {
  if (browserSkipReason !== null) return;
  dir = await mkdtemp(join(tmpdir(), "evalgate-report-browser-"));
  server = createServer((request, response) => {
    requests.push(request.url ?? "");
    response.end("x");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  serverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, TIMEOUT);

afterAll(async () => {
  if (browserSkipReason !== null) return;
  await browser?.close();
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
}, TIMEOUT);

describe.skipIf(browserSkipReason !== null)(
  browserSkipReason === null
    ? "the HTML report in headless Chromium"
    : `the HTML report in headless Chromium (skipped: ${browserSkipReason})`,
  () => {
    it(
      "draws the trend chart inline under the CSP: bound, mean and pass rate per run, told apart by line and marker, with a legend",
      { timeout: TIMEOUT },
      async () => {
        const data = makeReportData(40);
        const { page, errors, cspViolations } = await open(data, "trend");
        expect(errors).toEqual([]);
        expect(cspViolations).toEqual([]);
        const chart = await page.$eval("#trend-chart", (svg) => {
          const box = (selector: string) =>
            [...svg.querySelectorAll(selector)]
              .map((node) => (node as unknown as { getBBox(): { width: number; height: number; y: number } }).getBBox())
              .map((b) => ({ width: b.width, height: b.height, y: b.y }));
          const style = (selector: string) => {
            const node = svg.querySelector(selector)!;
            const computed = (
              globalThis as unknown as {
                getComputedStyle(element: unknown): { stroke: string; strokeDasharray: string };
              }
            ).getComputedStyle(node);
            return { stroke: computed.stroke, dash: computed.strokeDasharray };
          };
          return {
            lines: Object.fromEntries(
              ["bound", "mean", "pass"].map((name) => [
                name,
                { box: box(`polyline.${name}`)[0], style: style(`polyline.${name}`) },
              ]),
            ),
            rects: box("rect.pass"),
            circles: box("circle.bound").length,
            legend: [...svg.querySelectorAll("text.legend")].map((node) => node.textContent),
            visible: svg.getBoundingClientRect().width,
          };
        });
        expect(chart.visible).toBeGreaterThan(300);
        for (const line of Object.values(chart.lines)) expect(line.box!.width).toBeGreaterThan(300);
        // Told apart by more than colour: three different dash patterns and strokes.
        expect(new Set(Object.values(chart.lines).map((line) => line.style.dash)).size).toBe(3);
        expect(new Set(Object.values(chart.lines).map((line) => line.style.stroke)).size).toBe(3);
        expect(chart.rects).toHaveLength(data.trend.length);
        expect(chart.circles).toBe(data.trend.length);
        // The pass-rate squares sit where the pass rates are: y = 16 + (1 - rate) * 214 (minus half the 7 px side).
        expect(chart.rects.map((rect) => Number(rect.y.toFixed(1)))).toEqual(
          data.trend.map((point) => Number((16 + (1 - point.pass_rate) * 214 - 3.5).toFixed(1))),
        );
        expect(chart.legend).toEqual(["lower bound (95%)", "mean score", "pass rate"]);
        await page.close();
      },
    );

    it(
      "shows the record's numbers, filters rows, and opens a case with its tool calls",
      { timeout: TIMEOUT },
      async () => {
        const data = makeReportData(300);
        const { page, errors } = await open(data, "plain");
        expect(errors).toEqual([]);
        const text = (field: string): Promise<string> =>
          page.textContent(`[data-field=${field}]`).then((value) => value ?? "");
        expect(await text("lower_bound_95")).toBe(data.run.lower_bound_95.toFixed(4));
        expect(await text("mean_score")).toBe(data.run.mean_score.toFixed(4));
        expect(await text("passed_count")).toBe(`${data.run.passed_count} / ${data.run.case_count}`);
        expect(await text("run_id")).toBe(data.run.run_id);
        expect(await text("lower_bound_method")).toBe("betting");
        expect(await page.textContent(".verdict[data-tier=bronze]")).toContain(
          "lower_bound_95 0.4443 < 0.6 required for bronze",
        );
        expect(await page.$$eval("#trend-chart circle.bound", (dots) => dots.length)).toBe(data.trend.length);
        expect(await visibleCaseIds(page)).toHaveLength(300);

        await page.selectOption("#filter-status", "fail");
        const failing = data.cases
          .filter((c) => !c.score.passed && !c.score.failure_modes.some((m) => m.code === "sut.timeout"))
          .map((c) => c.case_id);
        expect(await visibleCaseIds(page)).toEqual(failing);
        expect(await page.textContent("#shown-count")).toBe(`${failing.length} of 300 cases shown`);
        await page.selectOption("#filter-status", "");
        await page.selectOption("#filter-mode", "still_vulnerable");
        expect(await visibleCaseIds(page)).toEqual(
          data.cases
            .filter((c) => c.score.failure_modes.some((m) => m.code === "still_vulnerable"))
            .map((c) => c.case_id),
        );
        await page.selectOption("#filter-mode", "");
        await page.selectOption("#filter-curation", "held-out");
        expect(await visibleCaseIds(page)).toEqual(
          data.cases.filter((c) => c.curation_class === "held-out").map((c) => c.case_id),
        );
        await page.selectOption("#filter-curation", "");

        // A case in the second details block (cases 250-499): decoded when it opens.
        const target = data.cases[257]!;
        await page.click(`#case-rows tr[data-case="${target.case_id}"]`);
        await page.waitForSelector("#case-detail:not([hidden])");
        const tools = await page.$$eval("#case-detail .tool-call", (calls) =>
          calls.map((call) => call.getAttribute("data-tool")),
        );
        expect(tools).toEqual(target.transcript!.tool_calls.map((call) => call.name));
        const firstCall = page.locator("#case-detail .tool-call").nth(1);
        await firstCall.locator("summary").click();
        expect(await firstCall.locator("pre").first().textContent()).toBe(
          JSON.stringify(target.transcript!.tool_calls[1]!.input, null, 2),
        );
        expect(await page.textContent("#failure-modes")).toContain(target.score.failure_modes[0]!.code);
        expect(await page.textContent("#case-detail pre.diff")).toBe(
          `${target.evidence!.diff!.split("\n").join("\n")}\n`,
        );
        await page.close();
      },
    );

    it(
      "shows a flaky case's k of n and flaky mark, opens on its failing trial, and switches between trials",
      { timeout: TIMEOUT },
      async () => {
        const data = makeReportData(4);
        const base = data.cases[0]!;
        const failed = {
          ...base.score,
          passed: false,
          score: 0.25,
          failure_modes: [
            { code: "still_vulnerable", severity: "block" as const, detail: "trial 1 left lodash 4.17.20" },
          ],
        };
        const passedScore = { ...base.score, passed: true, score: 1, failure_modes: [] };
        const evidenceOf = (diff: string) => ({
          ...base.evidence!,
          diff,
          changed_files: [{ path: "package.json", status: "changed" as const, bytes: 10 }],
        });
        const flaky = {
          ...base,
          score: passedScore,
          trials: { passed: 2, total: 3 },
          trial_runs: [
            {
              trial: 0,
              score: passedScore,
              evidence: evidenceOf("--- a/package.json\n+++ b/package.json\n@@ -1 +1 @@\n-old\n+trial zero\n"),
              transcript: null,
            },
            {
              trial: 1,
              score: failed,
              evidence: evidenceOf("--- a/package.json\n+++ b/package.json\n@@ -1 +1 @@\n-old\n+trial one\n"),
              transcript: null,
            },
            { trial: 2, score: passedScore, evidence: evidenceOf(""), transcript: null },
          ],
        };
        const { page, errors } = await open({ ...data, cases: [flaky, ...data.cases.slice(1)] }, "trials");
        expect(await page.textContent(`#case-rows tr[data-case="${flaky.case_id}"] td.flaky`)).toBe("2 of 3 flaky");
        await page.click(`#case-rows tr[data-case="${flaky.case_id}"]`);
        await page.waitForSelector("#case-detail:not([hidden])");
        expect(await page.textContent("#trials b")).toBe("2 of 3 trials passed");
        expect(await page.textContent("#trials .flaky")).toBe(" flaky");
        expect(await page.$$eval("#trials button.trial", (buttons) => buttons.map((b) => b.textContent))).toEqual([
          "trial 0: pass",
          "trial 1: fail",
          "trial 2: pass",
        ]);
        // It opens on the failing trial: its status, modes and diff, not trial 0's.
        expect(await page.textContent("#trial-heading")).toBe("trial 1: fail, score 0.250");
        expect(await page.textContent("#failure-modes")).toContain("still_vulnerable");
        expect(await page.textContent("#failure-modes")).toContain("trial 1 left lodash 4.17.20");
        expect(await page.textContent("#workspace-diff")).toContain("+trial one");
        await page.click('#trials button[data-trial="0"]');
        expect(await page.textContent("#trial-heading")).toBe("trial 0: pass, score 1.000");
        expect(await page.textContent("#failure-modes")).toBe("failure modes (0)");
        expect(await page.textContent("#workspace-diff")).toContain("+trial zero");
        expect(await page.getAttribute('#trials button[data-trial="0"]', "class")).toContain("selected");
        expect(errors).toEqual([]);
        await page.close();
      },
    );

    it(
      "shows agent- and rubric-written <script> and <img onerror> payloads as text and runs nothing",
      { timeout: TIMEOUT },
      async () => {
        const data = makeReportData(12, { hostile: true, sutLabel: `command:./fix ${IMG_PAYLOAD}` });
        const opened = await open(data, "hostile");
        const { page } = opened;
        expect(await page.textContent("[data-field=sut_label]")).toBe(`command:./fix ${IMG_PAYLOAD}`);
        await page.click(`#case-rows tr[data-case="${data.cases[1]!.case_id}"]`);
        await page.locator("#case-detail details.messages > summary").click();
        await page.locator("#case-detail details.message").nth(1).locator("summary").click();
        expect(await page.locator("#case-detail details.message").nth(1).locator("pre").textContent()).toBe(
          `Done. ${SCRIPT_PAYLOAD} ${IMG_PAYLOAD}`,
        );
        await page.locator("#case-detail .tool-call").nth(1).locator("summary").click();
        expect(await page.locator("#case-detail .tool-call").nth(1).locator("pre.result").textContent()).toBe(
          SCRIPT_PAYLOAD,
        );
        expect(await page.textContent("#failure-modes")).toContain(IMG_PAYLOAD);
        expect(await page.textContent("#case-detail pre.diff")).toContain(`+${SCRIPT_PAYLOAD}`);
        // The SUT's own output, recorded by the harness: a payload stays text, a terminal escape is shown as \x1b.
        expect(await page.textContent("#sut-stdout pre")).toBe(`out ${SCRIPT_PAYLOAD}\\x1b[2J`);
        expect(await page.textContent("#sut-stdout summary")).toBe("SUT stdout (5 bytes)");
        expect(await page.textContent("#case-detail h4:has(+ #changed-files)")).toBe(
          "workspace diff (recorded by the harness)",
        );
        expect(await page.$$eval("#changed-files tr", (rows) => rows.map((row) => row.textContent))).toEqual([
          "changedpackage-lock.json2048 bytes",
        ]);
        // Nothing ran: no global set by a payload, no element a payload would have made, no dialog, no error.
        expect(await page.evaluate(() => (globalThis as unknown as { __pwned?: string }).__pwned ?? null)).toBeNull();
        expect(await page.$$eval("body img", (images) => images.length)).toBe(0);
        // Only the page's own module script is executable; the data blocks are not scripts to the browser.
        expect(await page.$$eval("script:not([type='application/octet-stream'])", (scripts) => scripts.length)).toBe(1);
        expect(opened.dialogs).toEqual([]);
        expect(opened.errors).toEqual([]);
        await page.screenshot({ path: join(dir, "hostile.png"), fullPage: true });
        expect((await readFile(join(dir, "hostile.png"))).subarray(1, 4).toString()).toBe("PNG");
        await page.close();
      },
    );

    it(
      "shows a large run one page at a time: filters count every case, the pager walks the matches",
      { timeout: TIMEOUT },
      async () => {
        const data = makeReportData(1200);
        const { page } = await open(data, "paged");
        expect(await visibleCaseIds(page)).toEqual(data.cases.slice(0, 500).map((c) => c.case_id));
        expect(await page.textContent("#page-info")).toBe("rows 1-500 (page 1 of 3)");
        await page.click("#page-next");
        expect(await visibleCaseIds(page)).toEqual(data.cases.slice(500, 1000).map((c) => c.case_id));
        await page.selectOption("#filter-status", "error");
        const errors = data.cases
          .filter((c) => c.score.failure_modes.some((m) => m.code === "sut.timeout"))
          .map((c) => c.case_id);
        expect(await page.textContent("#shown-count")).toBe(`${errors.length} of 1200 cases shown`);
        expect(await visibleCaseIds(page)).toEqual(errors);
        expect(await page.isHidden("#page-next")).toBe(true);
        await page.close();
      },
    );

    it(
      "fetches nothing: the CSP blocks a script's fetch and an image load to a live local server",
      { timeout: TIMEOUT },
      async () => {
        requests = [];
        const { page } = await open(makeReportData(3), "csp");
        // Runs in the page (the repo's type check has no DOM library: the page's globals are declared here).
        const outcome = await page.evaluate(async (url) => {
          const { document } = globalThis as unknown as {
            document: { createElement(tag: "img"): { onload: () => void; onerror: () => void; src: string } };
          };
          const fetched = await fetch(`${url}/fetch`).then(
            () => "fetched",
            () => "blocked",
          );
          const image = await new Promise((resolve) => {
            const img = document.createElement("img");
            img.onload = () => resolve("loaded");
            img.onerror = () => resolve("blocked");
            img.src = `${url}/img.png`;
          });
          return { fetched, image };
        }, serverUrl);
        expect(outcome).toEqual({ fetched: "blocked", image: "blocked" });
        expect(requests).toEqual([]);
        await page.close();
      },
    );

    it(
      "re-checks the embedded data's digest in the browser (gzip-compressed data too) and reports a swapped payload",
      { timeout: TIMEOUT },
      async () => {
        const data = makeReportData(30);
        const rendered = renderHtmlReport(data, { compress: "always" });
        expect(rendered.compressed).toBe(true);
        const { page } = await open(data, "gzip", {}, rendered.html);
        expect(await visibleCaseIds(page)).toHaveLength(30);
        await page.click("#verify-digest");
        await page.waitForSelector("#digest-result:not(:empty)");
        expect(await page.textContent("#digest-result")).toBe(`embedded data matches ${rendered.dataSha256}`);
        await page.close();

        // The summary block edited after generation (another SUT label): the button says so.
        const swapped = rendered.html.replace(
          /(id="report-data"[^>]*>)([^<]*)/,
          (_, tag: string) =>
            `${tag}${/id="report-data"[^>]*>([^<]*)/.exec(renderHtmlReport({ ...data, run: { ...data.run, sut_label: "edited" } }, { compress: "always" }).html)![1]}`,
        );
        const { actualSha256 } = readEmbeddedData(swapped);
        expect(actualSha256).not.toBe(rendered.dataSha256);
        const tampered = await open(data, "swapped", {}, swapped);
        await tampered.page.click("#verify-digest");
        await tampered.page.waitForSelector("#digest-result:not(:empty)");
        expect(await tampered.page.textContent("#digest-result")).toBe(
          `MISMATCH: embedded data hashes to ${actualSha256}, the page recorded ${rendered.dataSha256}`,
        );
        await tampered.page.close();
      },
    );
  },
);
