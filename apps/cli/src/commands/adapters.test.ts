import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { invoke } from "../test-helpers.ts";
import { CLAUDE_NOT_LOGGED_IN, CLAUDE_SUCCESS, fakeClaude } from "./adapters.test-helpers.ts";

const OPT_IN = ["--allow-cli-subscription", "--acknowledge-unsandboxed-cli"];

function lines(text: string): Record<string, unknown>[] {
  return text
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("evalgate adapters list", () => {
  it("lists every adapter as JSON lines, with the binary found on PATH", async () => {
    const fake = fakeClaude({ stream: CLAUDE_SUCCESS });
    const result = await invoke(["adapters", "list"], { env: { PATH: fake.dir } });
    expect(result.code).toBe(0);
    const rows = lines(result.stdout);
    expect(rows.map((row) => row.adapter)).toEqual(["claude-code", "codex", "gemini", "pi"]);
    expect(rows[0]).toMatchObject({
      binary_path: fake.binaryPath,
      sut: "cli:claude-code",
      stream_format: "claude-stream-json",
    });
    expect(rows[1]!.binary_path).toBeNull();
    const human = await invoke(["adapters", "list", "--format", "human"], { env: { PATH: "/nonexistent" } });
    expect(human.stdout).toMatch(/codex\s+Codex CLI\s+not found \(npm i -g @openai\/codex\)/);
  });
});

describe("evalgate adapters compliance-check", () => {
  it("refuses without both opt-in flags, in one line", async () => {
    const result = await invoke(["adapters", "compliance-check", "--adapter", "claude-code"], { env: {} });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/missing: allow_cli_subscription, acknowledge_unsandboxed_cli/);
    const bad = await invoke(["adapters", "compliance-check", "--adapter", "cursor", ...OPT_IN], { env: {} });
    expect(bad.stderr).toMatch(/unknown --adapter "cursor"/);
    const badTimeout = await invoke(
      ["adapters", "compliance-check", "--adapter", "claude-code", "--timeout-per-task", "soon", ...OPT_IN],
      { env: {} },
    );
    expect(badTimeout.code).toBe(1);
    expect(badTimeout.stderr).toMatch(/--timeout-per-task must be a number/);
  });

  it("runs the 20 benign tasks live, prints and writes the JSONL report; doctor then says ready", async () => {
    const fake = fakeClaude({ stream: CLAUDE_SUCCESS, doesBenignTasks: true });
    const state = mkdtempSync(join(tmpdir(), "evalgate-cli-state-"));
    const result = await invoke(
      [
        "adapters",
        "compliance-check",
        "--adapter",
        "claude-code",
        "--binary",
        fake.binaryPath,
        "--out",
        state,
        ...OPT_IN,
      ],
      { env: { PATH: process.env.PATH } },
    );
    expect(result.stderr).toMatch(/task 20\/20 translate: parse_success/);
    expect(result.code).toBe(0);
    const rows = lines(result.stdout);
    expect(rows).toHaveLength(21);
    expect(rows[20]).toMatchObject({
      schema_version: "evalgate.compliance_report.v2",
      passed: true,
      pass_rate: 1,
      passed_count: 20,
      cli_version: "2.1.330",
      endpoint: { origin: "https://api.anthropic.com", scenario_sha256: null },
    });
    const files = readdirSync(join(state, "compliance"));
    expect(files).toHaveLength(1);
    expect(
      readFileSync(join(state, "compliance", files[0]!), "utf8")
        .trim()
        .split("\n"),
    ).toHaveLength(21);

    const doctor = await invoke(["adapters", "doctor", "--adapter", "claude-code", "--out", state], {
      env: { PATH: process.env.PATH, EVALGATE_CLI_BINARY_CLAUDE_CODE: fake.binaryPath },
    });
    expect(doctor.code).toBe(0);
    const [row] = lines(doctor.stdout);
    expect(row).toMatchObject({
      adapter: "claude-code",
      ready: true,
      version: { value: "2.1.330" },
      login: { ok: true },
      compliance: { ok: true, report_path: join(state, "compliance", files[0]!) },
    });
  }, 60_000);

  it("attack: a CLI that exits 0 with a clean stream but edits nothing fails the check, naming why", async () => {
    const fake = fakeClaude({ stream: CLAUDE_SUCCESS });
    const state = mkdtempSync(join(tmpdir(), "evalgate-cli-state-"));
    const result = await invoke(
      [
        "adapters",
        "compliance-check",
        "--adapter",
        "claude-code",
        "--binary",
        fake.binaryPath,
        "--out",
        state,
        ...OPT_IN,
      ],
      { env: { PATH: process.env.PATH } },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/task 15\/20 create-file: parse_success/);
    const rows = lines(result.stdout);
    expect(rows[14]).toMatchObject({
      task_id: "create-file",
      exit_code: 0,
      passed: false,
      effects: { met: false, unmet: ["done.txt is missing"] },
    });
    expect(rows[20]).toMatchObject({ parse_success_count: 20, passed_count: 0, passed: false });
    expect(result.stderr.trim().split("\n").at(-1)).toMatch(
      /passed 0\.0% of benign tasks; .*classified: 20 did not do the task .*; the CLI ended its sessions cleanly without doing the tasks/,
    );
  }, 60_000);

  it("a logged-out CLI: the report is written, the command exits 1 naming it", async () => {
    const fake = fakeClaude({ stream: CLAUDE_NOT_LOGGED_IN, exitCode: 1, loggedIn: false });
    const state = mkdtempSync(join(tmpdir(), "evalgate-cli-state-"));
    const result = await invoke(
      [
        "adapters",
        "compliance-check",
        "--adapter",
        "claude-code",
        "--binary",
        fake.binaryPath,
        "--out",
        state,
        ...OPT_IN,
      ],
      { env: { PATH: process.env.PATH } },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/task 1\/20 say-hello: cli_error \(auth_failure\)/);
    expect(result.stderr).toMatch(/task 2\/20 add-numbers: not run/);
    expect(result.stderr.trim().split("\n").at(-1)).toMatch(/passed 0\.0% of benign tasks; at least 99% is required/);
    expect(existsSync(join(state, "compliance"))).toBe(true);

    const doctor = await invoke(
      [
        "adapters",
        "doctor",
        "--adapter",
        "claude-code",
        "--binary",
        fake.binaryPath,
        "--out",
        state,
        "--format",
        "human",
      ],
      { env: { PATH: process.env.PATH } },
    );
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/Claude Code \(claude-code\): not ready/);
    expect(doctor.stdout).toMatch(/FAIL login\s+not logged in \(run `claude login`\)/);
    expect(doctor.stdout).toMatch(/FAIL compliance .*passed 0\.0%/);
  });
});

describe("evalgate adapters doctor", () => {
  it("reports every adapter without failing when some are absent; gemini's login is unknown", async () => {
    const result = await invoke(["adapters", "doctor"], { env: { PATH: "/nonexistent" } });
    expect(result.code).toBe(0);
    const rows = lines(result.stdout);
    expect(rows.map((row) => row.ready)).toEqual([false, false, false, false]);
    expect((rows[2]!.binary as { detail: string }).detail).toMatch(/no executable "gemini" on PATH/);
    const unknown = await invoke(["adapters", "doctor", "--adapter", "cursor"], { env: {} });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/unknown --adapter "cursor"/);
  });
});

describe("evalgate adapters compliance-check --no-stop-after-auth-failure", () => {
  it("runs every task even after an auth failure", async () => {
    const fake = fakeClaude({ stream: CLAUDE_NOT_LOGGED_IN, exitCode: 1, loggedIn: false });
    const state = mkdtempSync(join(tmpdir(), "evalgate-cli-state-"));
    const result = await invoke(
      [
        "adapters",
        "compliance-check",
        "--adapter",
        "claude-code",
        "--binary",
        fake.binaryPath,
        "--out",
        state,
        "--no-stop-after-auth-failure",
        "--timeout-per-task",
        "30",
        "--allow-cli-subscription",
        "--acknowledge-unsandboxed-cli",
      ],
      { env: { PATH: process.env.PATH } },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).not.toMatch(/not run/);
    expect(result.stderr).toMatch(/task 20\/20 translate: cli_error \(auth_failure\)/);
  }, 60_000);
});
