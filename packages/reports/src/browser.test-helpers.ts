// Headless Chromium for the report's tests and benchmark: Debian's `chromium` driven by playwright-core
// (no browser download). scripts/system-packages.sh installs it where it can (as root with apt-get).
import { existsSync } from "node:fs";
import type { Browser } from "playwright-core";

const CANDIDATES = [process.env.EVALGATE_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"].filter(
  (path): path is string => path !== undefined && path !== "",
);

export const chromiumPath: string | null = CANDIDATES.find((path) => existsSync(path)) ?? null;

/** Why the browser tests cannot run here, or null when they can. */
export const browserSkipReason: string | null =
  chromiumPath === null
    ? "no Chromium at /usr/bin/chromium (apt-get install -y chromium, or set EVALGATE_CHROMIUM)"
    : null;

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import("playwright-core");
  // --no-sandbox: Chromium's own sandbox cannot start as root in a container; the page is our own file.
  return chromium.launch({
    executablePath: chromiumPath!,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
    timeout: 120_000,
  });
}
