// A cheating agent CLI, driven live through the backend: in the sandbox (the default) it sees its
// workspace and its own login files, nothing else of the host; with `--sandbox none` it sees everything.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxSupport } from "@eval/sandbox";
import { installationOf } from "./agent-sandbox.ts";
import { CliSubscriptionBackend } from "./backend.ts";
import { writeReport } from "./compliance.test-helpers.ts";
import { readStream } from "./fake-cli.test-helpers.ts";

const sandboxed = sandboxSupport().available;
let root: string;
let hostHome: string;
let binaryPath: string;
let expectedFile: string;
let complianceDir: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "evalgate-agent-sandbox-"));
  hostHome = join(root, "home");
  mkdirSync(join(hostHome, ".claude"), { recursive: true });
  mkdirSync(join(hostHome, ".ssh"), { recursive: true });
  writeFileSync(join(hostHome, ".claude", ".credentials.json"), "claude login token");
  writeFileSync(join(hostHome, ".ssh", "id_rsa"), "the user's private key");
  expectedFile = join(root, "bench", "vuln-remediation", "cases", "c", "expected", "answer.txt");
  mkdirSync(join(expectedFile, ".."), { recursive: true });
  writeFileSync(expectedFile, "THE ANSWER");
  // An npm-installed CLI: <prefix>/node_modules/fake-claude/cli.mjs, linked from <prefix>/bin/claude.
  const packageDir = join(root, "prefix", "node_modules", "fake-claude");
  mkdirSync(packageDir, { recursive: true });
  mkdirSync(join(root, "prefix", "bin"));
  const stream = readStream("claude-success.stdout.jsonl");
  writeFileSync(
    join(packageDir, "cli.mjs"),
    `#!${process.execPath}
import { readFileSync, writeFileSync } from "node:fs";
if (process.argv.includes("--version")) { console.log("2.1.330 (Claude Code)"); process.exit(0); }
const read = (path) => { try { return readFileSync(path, "utf8") } catch (error) { return error.code } };
writeFileSync("found.json", JSON.stringify({
  login: read(process.env.HOME + "/.claude/.credentials.json"),
  ssh: read(${JSON.stringify(join(hostHome, ".ssh", "id_rsa"))}),
  expected: read(${JSON.stringify(expectedFile)}),
  home: process.env.HOME,
  tmpdir: process.env.TMPDIR,
}));
process.stdout.write(${JSON.stringify(stream)});
`,
  );
  chmodSync(join(packageDir, "cli.mjs"), 0o755);
  binaryPath = join(root, "prefix", "bin", "claude");
  symlinkSync(join(packageDir, "cli.mjs"), binaryPath);
  complianceDir = join(root, "state", "compliance");
  writeReport(complianceDir, { adapter: "claude-code", binaryPath, version: "2.1.330" });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function cheat(sandbox: "bwrap" | "none", agentNetwork: "bridge" | "host" = "host") {
  const backend = new CliSubscriptionBackend({
    adapter: "claude-code",
    allow_cli_subscription: true,
    // The host's network (a subscription login) is the mode that copies login files: both opt-ins.
    acknowledge_unsandboxed_cli: sandbox === "none" || agentNetwork === "host",
    sandbox,
    ...(sandbox === "bwrap" ? { agent_network: agentNetwork } : {}),
    complianceDir,
    binaryPath,
    env: { PATH: process.env.PATH, HOME: hostHome, ANTHROPIC_API_KEY: "sk-ant-the-real-key-0123456789" },
  });
  const workspace = mkdtempSync(join(root, "ws-"));
  writeFileSync(join(workspace, "package.json"), "{}");
  const result = await backend.run({
    prompt: "Fix the advisory.",
    workspace: { root: workspace, editable: ["."], readonly: [] },
    timeoutMs: 30_000,
  });
  return { result, found: JSON.parse(readFileSync(join(workspace, "found.json"), "utf8")) as Record<string, string> };
}

describe("an agent CLI that cheats", () => {
  it("without the sandbox reads the user's keys and the bench's answers (the attack is real)", async () => {
    const { found, result } = await cheat("none");
    expect(found).toMatchObject({
      login: "claude login token",
      ssh: "the user's private key",
      expected: "THE ANSWER",
      home: hostHome,
    });
    expect(result.backend_metadata.isolation).toBe("cli_subscription_unsandboxed");
  });

  it.runIf(sandboxed)(
    "behind the model bridge gets no login files at all (it needs none: the bridge holds the key)",
    async () => {
      const { found, result } = await cheat("bwrap", "bridge");
      expect(found.login).toBe("ENOENT");
      expect(found.ssh).toBe("ENOENT");
      expect(found.expected).toBe("ENOENT");
      expect(result.classification.trial_class).toBe("parse_success");
    },
  );

  it.runIf(sandboxed)(
    "in the sandbox with the host's network sees only its workspace and a temporary HOME with its own login files",
    async () => {
      const { found, result } = await cheat("bwrap", "host");
      expect(found.login).toBe("claude login token");
      expect(found.ssh).toBe("ENOENT");
      expect(found.expected).toBe("ENOENT");
      expect(found.home).not.toBe(hostHome);
      // Codex refuses to create its helpers under TMPDIR: HOME must not lie under it (nor TMPDIR be /tmp).
      expect(found.tmpdir).not.toBe("/tmp");
      expect(`${found.home}/`.startsWith(`${found.tmpdir}/`)).toBe(false);
      expect(join(found.home!, "..")).toBe(join(found.tmpdir!, ".."));
      expect(result.classification.trial_class).toBe("parse_success");
      expect(result.backend_metadata.isolation).toBe("cli_subscription_bwrap");
    },
  );

  it.runIf(sandboxed)("needs only --allow-cli-subscription in the sandbox; without it, both opt-ins", () => {
    const options = {
      adapter: "claude-code" as const,
      allow_cli_subscription: true,
      acknowledge_unsandboxed_cli: false,
      complianceDir,
      binaryPath,
      env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: "sk-ant-x" },
    };
    expect(new CliSubscriptionBackend(options).sandbox).toBe("bwrap");
    expect(() => new CliSubscriptionBackend({ ...options, sandbox: "none" })).toThrow(/acknowledge_unsandboxed_cli/);
  });

  it("shows an npm CLI with its node_modules, any other program as its own file (never a home directory)", () => {
    expect(installationOf(binaryPath)).toBe(join(root, "prefix", "node_modules"));
    // A native binary in ~/bin: before, the sandbox showed its parent, the whole home directory.
    const native = join(hostHome, "bin", "agent");
    mkdirSync(join(hostHome, "bin"), { recursive: true });
    writeFileSync(native, "#!/bin/sh\n", { mode: 0o755 });
    expect(installationOf(native)).toBe(native);
  });
});

describe.runIf(sandboxed && process.getuid?.() === 0)("an agent CLI that fork-bombs (cgroup limits, root)", () => {
  it("is stopped at its process limit, and the trial says which limit it hit", async () => {
    const bomber = join(root, "prefix", "node_modules", "fake-claude", "bomb.mjs");
    writeFileSync(
      bomber,
      `#!${process.execPath}\nimport { spawn } from "node:child_process";\nif (process.argv.includes("--version")) { console.log("2.1.330 (Claude Code)"); process.exit(0); }\nsetInterval(() => { try { spawn("/bin/sleep", ["60"]).on("error", () => {}) } catch {} }, 5);\n`,
    );
    chmodSync(bomber, 0o755);
    const bomberPath = join(root, "prefix", "bin", "claude-bomb");
    symlinkSync(bomber, bomberPath);
    writeReport(complianceDir, { adapter: "claude-code", binaryPath: bomberPath, version: "2.1.330" });
    const limits = { pids: 64, memoryBytes: 1024 * 1024 * 1024, diskBytes: 64 * 1024 * 1024 };
    const backend = new CliSubscriptionBackend({
      adapter: "claude-code",
      allow_cli_subscription: true,
      acknowledge_unsandboxed_cli: true,
      sandbox: "bwrap",
      agent_network: "host",
      complianceDir,
      binaryPath: bomberPath,
      env: { PATH: process.env.PATH, HOME: hostHome },
      resourceLimits: limits,
      graceMs: 1_000,
    });
    const workspace = mkdtempSync(join(root, "ws-"));
    const started = Date.now();
    const result = await backend.run({
      prompt: "Fix the advisory.",
      workspace: { root: workspace, editable: ["."], readonly: [] },
      timeoutMs: 120_000,
    });
    expect(result.resource_limit).toBe("pids limit (64 processes) reached, enforced by cgroup");
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 180_000);
});
