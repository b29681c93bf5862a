import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkAdapterReadiness } from "./doctor.ts";

/** A real executable answering `--version` and `login status` the way the Codex CLI does. */
function fakeCodex(loginAnswer: string): string {
  const dir = mkdtempSync(join(tmpdir(), "doctor-fake-"));
  const path = join(dir, "codex");
  writeFileSync(
    path,
    `#!${process.execPath}
const args = process.argv.slice(2);
if (args[0] === "--version") { process.stdout.write("codex-cli 0.99.1\\n"); process.exit(0); }
if (args[0] === "login" && args[1] === "status") { process.stdout.write(${JSON.stringify(loginAnswer)}); process.exit(0); }
process.exit(2);
`,
  );
  chmodSync(path, 0o755);
  return path;
}

describe("checkAdapterReadiness", () => {
  const complianceDir = join(mkdtempSync(join(tmpdir(), "doctor-state-")), "compliance");

  it("runs binary, version and login checks on a real executable; without a compliance report it is not ready", async () => {
    const binaryPath = fakeCodex("Logged in using ChatGPT\n");
    const readiness = await checkAdapterReadiness("codex", {
      binaryPath,
      env: { PATH: process.env.PATH },
      complianceDir,
    });
    expect(readiness).toMatchObject({
      adapter: "codex",
      ready: false,
      binary: { ok: true, path: binaryPath },
      version: { ok: true, value: "0.99.1" },
      login: { ok: true, detail: "logged in" },
      compliance: { ok: false, report_path: null },
    });
    expect(Object.keys(readiness)).toEqual(["adapter", "ready", "binary", "version", "login", "compliance", "limits"]);
    expect(readiness.limits).toBeNull();
  });

  it("reports a logged-out CLI, and skips every later check when there is no binary", async () => {
    const loggedOut = await checkAdapterReadiness("codex", {
      binaryPath: fakeCodex("Not logged in\n"),
      env: { PATH: process.env.PATH },
      complianceDir,
    });
    expect(loggedOut.login).toEqual({ ok: false, detail: "not logged in (run `codex login`)" });
    const missing = await checkAdapterReadiness("codex", {
      binaryPath: join(complianceDir, "no-such-codex"),
      env: { PATH: "" },
      complianceDir,
    });
    expect(missing).toMatchObject({
      ready: false,
      binary: { ok: false, path: null },
      version: { ok: null, detail: "not checked: no binary" },
      login: { ok: null },
      compliance: { ok: null, detail: "not checked: no version" },
    });
  });

  it("says a CLI without a login-status command has an unknown login", async () => {
    const dir = mkdtempSync(join(tmpdir(), "doctor-gemini-"));
    const path = join(dir, "gemini");
    writeFileSync(path, `#!${process.execPath}\nprocess.stdout.write("0.20.0\\n");\n`);
    chmodSync(path, 0o755);
    const readiness = await checkAdapterReadiness("gemini", {
      binaryPath: path,
      env: { PATH: process.env.PATH },
      complianceDir,
    });
    expect(readiness.login.ok).toBeNull();
    expect(readiness.login.detail).toMatch(/has no login-status command/);
    expect(readiness.limits).toMatch(/Build File Protection/);
  });
});
