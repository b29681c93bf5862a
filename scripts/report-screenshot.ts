// Produces docs/report-screenshot.png: the README's demo (the vuln-remediation bench replayed from its
// cassettes, twice: a run, then a rerun from the cache) in a fresh state dir, `evalgate report`, and the
// page opened from its file URL in headless Chromium with one failed case open.
// Usage: pnpm run build && node scripts/report-screenshot.ts [out.png]
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { browserSkipReason, launchChromium } from "../packages/reports/src/browser.test-helpers.ts";

const root = join(import.meta.dirname, "..");
const out = process.argv[2] ?? join(root, "docs", "report-screenshot.png");
if (browserSkipReason !== null) {
  console.error(`report-screenshot: ${browserSkipReason}`);
  process.exit(1);
}
const work = mkdtempSync(join(tmpdir(), "evalgate-screenshot-"));
try {
  const evalgate = (...args: string[]): string =>
    execFileSync(process.execPath, [join(root, "apps", "cli", "dist", "bin.js"), ...args], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    });
  for (let run = 0; run < 2; run += 1)
    evalgate("run", "--task-class", "vuln-remediation", "--out", join(work, "state"), "--quiet");
  const html = join(work, "report.html");
  evalgate("report", "--task-class", "vuln-remediation", "--out", join(work, "state"), "-o", html);
  const browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  await page.goto(`${pathToFileURL(html).href}#case=express-open-redirect-cve-2024-29041`);
  await page.waitForSelector("body[data-ready=true]");
  await page.locator("#case-detail .tool-call").first().locator("summary").click();
  await page.screenshot({ path: out, fullPage: true });
  await browser.close();
  console.log(`report-screenshot: ${out}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
