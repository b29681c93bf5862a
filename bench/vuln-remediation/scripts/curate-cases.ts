// Builds cases/<id>/ from case-specs.ts: the input project with a lockfile resolved from the real npm
// registry, the advisory record, expected/remediation.json, and a synthetic cassette whose workspace
// diff comes from really performing the scripted agent's edits and npm commands on a copy of input/.
// Needs the npm registry. Run from the repo root:
//   node bench/vuln-remediation/scripts/curate-cases.ts [case-id ...]
// then `node bench/vuln-remediation/scripts/refresh-cassette-prompts.ts` and `evalgate bench sign`.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { CASES, type VulnCaseSpec } from "./case-specs.ts";
import {
  claudeAuthErrorStream,
  claudeStream,
  codexStream,
  durationMs,
  geminiStream,
  type Session,
  type SessionStep,
} from "@eval/test-utils";

const BENCH = join(dirname(fileURLToPath(import.meta.url)), "..");
const CURATED_AT = "2026-11-22T03:30:00Z";
const SCRATCH_ROOT = "/tmp/evalgate-scratch";

function npm(cwd: string, args: readonly string[]): string {
  try {
    return execFileSync("npm", [...args], {
      cwd,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, NO_COLOR: "1", npm_config_update_notifier: "false" },
    });
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string; status?: number };
    throw new Error(`npm ${args.join(" ")} failed in ${cwd} (${String(failure.status)}): ${failure.stderr ?? ""}`);
  }
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

export function casePrompt(spec: VulnCaseSpec): string {
  const ids = spec.advisories.map((a) => `${a.id} (${a.cve})`).join(" and ");
  if (spec.disposition === "negative") {
    return `Security advisory ${ids} affects the npm package ${spec.package}; its record is in advisory.json. Check whether this project is affected, looking at both package.json and package-lock.json. If it is, remediate it with the smallest change; if it is not, change nothing and say why.`;
  }
  return `This project is affected by security advisory ${ids} in the npm package ${spec.package}; the advisory record is in advisory.json. Remediate it: after your change neither package.json nor package-lock.json may resolve ${spec.package} to an affected version. Make the smallest change that does this: do not upgrade across a major version unless no patched release exists on the current major, keep package-lock.json consistent with package.json (run npm with --package-lock-only; there is no node_modules), and change nothing unrelated.`;
}

function existingPin(caseDir: string): string {
  const toml = join(caseDir, "case.toml");
  if (existsSync(toml)) {
    const match = /^cassette_canary_pin = "([0-9a-f]{32})"$/m.exec(readFileSync(toml, "utf8"));
    if (match) return match[1]!;
  }
  return randomBytes(16).toString("hex");
}

function tomlString(value: string): string {
  return JSON.stringify(value);
}

function writeCaseToml(caseDir: string, spec: VulnCaseSpec, pin: string): void {
  const lines = [
    `case_id = ${tomlString(spec.id)}`,
    `task_class = "vuln-remediation"`,
    `title = ${tomlString(spec.title)}`,
    `prompt = ${tomlString(casePrompt(spec))}`,
    `disposition = "${spec.disposition}"`,
    `difficulty = "${spec.difficulty}"`,
    `source = "curated"`,
    `curation_class = "${spec.curationClass}"`,
    `added_at = ${CURATED_AT}`,
    `last_validated_at = ${CURATED_AT}`,
    `cassette_canary_pin = "${pin}"`,
  ];
  writeFileSync(join(caseDir, "case.toml"), `${lines.join("\n")}\n`);
}

function manifest(
  spec: VulnCaseSpec,
  dependencies: Record<string, string>,
  overrides?: Record<string, string>,
): Record<string, unknown> {
  const name = `svc-${spec.id.split("-").slice(0, 2).join("-")}`;
  return {
    name,
    version: "1.0.0",
    private: true,
    description: `Fixture service for the ${spec.id} remediation case`,
    main: spec.source.path,
    license: "UNLICENSED",
    dependencies,
    ...(overrides && Object.keys(overrides).length > 0 ? { overrides } : {}),
  };
}

/** input/: the project as it was when the advisory landed (old versions locked, ranges as declared). */
function buildInput(spec: VulnCaseSpec, inputDir: string): void {
  mkdirSync(join(inputDir, dirname(spec.source.path)), { recursive: true });
  const locked = { ...spec.dependencies, ...spec.lockedDirect };
  writeFileSync(join(inputDir, "package.json"), json(manifest(spec, locked, spec.lockedTransitive)));
  npm(inputDir, ["install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund"]);
  // Restore the declared ranges. The lockfile keeps the old resolutions, exactly as a lockfile
  // written before the patched releases existed would (every locked version satisfies its range).
  const lock = JSON.parse(readFileSync(join(inputDir, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dependencies?: Record<string, string> }>;
  };
  lock.packages[""]!.dependencies = { ...spec.dependencies };
  writeFileSync(join(inputDir, "package-lock.json"), json(lock));
  writeFileSync(join(inputDir, "package.json"), json(manifest(spec, { ...spec.dependencies })));
  writeFileSync(join(inputDir, spec.source.path), spec.source.content);
  writeFileSync(
    join(inputDir, "advisory.json"),
    json({
      advisories: spec.advisories.map((a) => ({
        id: a.id,
        cve: a.cve,
        ecosystem: "npm",
        package: a.package,
        vulnerable_range: a.vulnerable_range,
        patched_versions: a.patched_versions,
        severity: a.severity,
        summary: a.summary,
        url: `https://github.com/advisories/${a.id}`,
      })),
    }),
  );
}

function writeExpected(spec: VulnCaseSpec, expectedDir: string): void {
  mkdirSync(expectedDir, { recursive: true });
  writeFileSync(
    join(expectedDir, "remediation.json"),
    json({
      schema: "vuln-remediation.expected.v1",
      package: spec.package,
      advisories: spec.advisories.map((a) => ({ id: a.id, cve: a.cve, vulnerable_range: a.vulnerable_range })),
      expect_change: spec.disposition === "positive",
      ...spec.expected,
    }),
  );
}

function listFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else out.push(relative(root, full));
    }
  };
  walk(root);
  return out.sort();
}

/** A unified diff of before -> after with git-style a/ b/ prefixes, one section per changed file. */
export function unifiedDiff(before: string, after: string): string {
  const paths = [...new Set([...listFiles(before), ...listFiles(after)])].sort();
  let out = "";
  for (const path of paths) {
    const a = join(before, path);
    const b = join(after, path);
    const args = [
      "-u",
      "--label",
      existsSync(a) ? `a/${path}` : "/dev/null",
      "--label",
      existsSync(b) ? `b/${path}` : "/dev/null",
      existsSync(a) ? a : "/dev/null",
      existsSync(b) ? b : "/dev/null",
    ];
    try {
      execFileSync("diff", args, { encoding: "utf8" });
    } catch (error) {
      const failure = error as { status?: number; stdout?: string };
      if (failure.status !== 1) throw error;
      out += failure.stdout;
    }
  }
  return out;
}

const cleanNpmOutput = (text: string, workspace: string): string =>
  text
    .split("\n")
    .filter((l) => !l.startsWith("npm warn Unknown user config"))
    .join("\n")
    .replaceAll(workspace, workspace)
    .replace(/in \d+ms/g, "in 412ms")
    .replace(/in \d+(\.\d+)?s/g, "in 1s");

/** Performs the scripted session on a scratch copy of input/ and returns its steps and workspace. */
function performSession(spec: VulnCaseSpec, inputDir: string): { steps: SessionStep[]; workspace: string } {
  const workspace = join(SCRATCH_ROOT, spec.id);
  rmSync(workspace, { recursive: true, force: true });
  mkdirSync(dirname(workspace), { recursive: true });
  cpSync(inputDir, workspace, { recursive: true });
  const agent = spec.agent;
  const steps: SessionStep[] = [];
  if (agent.outcome === "auth_error") return { steps, workspace };
  steps.push({ kind: "say", text: agent.opening });
  steps.push({ kind: "read", path: "advisory.json", content: readFileSync(join(workspace, "advisory.json"), "utf8") });
  if (agent.outcome === "refused") return { steps, workspace };
  steps.push({ kind: "read", path: "package.json", content: readFileSync(join(workspace, "package.json"), "utf8") });
  const firstWrite = agent.npm.findIndex((args) => args[0] === "install" || args[0] === "update");
  const investigate = firstWrite === -1 ? agent.npm : agent.npm.slice(0, firstWrite);
  const afterEdit = firstWrite === -1 ? [] : agent.npm.slice(firstWrite);
  const runAll = (commands: readonly (readonly string[])[]) => {
    for (const args of commands) {
      const output = cleanNpmOutput(npm(workspace, args), workspace);
      steps.push({ kind: "shell", command: `npm ${args.join(" ")}`, output, exitCode: 0 });
    }
  };
  runAll(investigate);
  for (const edit of agent.edits) {
    const file = join(workspace, edit.path);
    const text = readFileSync(file, "utf8");
    if (!text.includes(edit.oldText))
      throw new Error(`${spec.id}: edit target not found in ${edit.path}: ${edit.oldText}`);
    if (edit.path !== "package.json" && !steps.some((s) => s.kind === "read" && s.path === edit.path)) {
      steps.push({ kind: "read", path: edit.path, content: text });
    }
    writeFileSync(file, text.replace(edit.oldText, edit.newText));
    steps.push({ kind: "edit", path: edit.path, oldText: edit.oldText, newText: edit.newText });
  }
  runAll(afterEdit);
  return { steps, workspace };
}

function argvFor(adapter: VulnCaseSpec["agent"]["adapter"], prompt: string, workspace: string): string[] {
  switch (adapter) {
    case "claude-code":
      return [
        "claude",
        "--print",
        prompt,
        "--output-format",
        "stream-json",
        "--verbose",
        "--permission-mode",
        "acceptEdits",
      ];
    case "codex":
      return [
        "codex",
        "exec",
        "--json",
        "--skip-git-repo-check",
        "--ephemeral",
        "--sandbox",
        "workspace-write",
        "--color",
        "never",
        "--cd",
        workspace,
      ];
    case "gemini":
      return [
        "gemini",
        "--prompt",
        prompt,
        "--output-format",
        "stream-json",
        "--skip-trust",
        "--approval-mode",
        "auto_edit",
      ];
  }
}

const CLI_VERSIONS = { "claude-code": "2.1.330", codex: "0.169.0", gemini: "0.61.0" } as const;

function writeCassette(
  spec: VulnCaseSpec,
  cassetteDir: string,
  steps: SessionStep[],
  workspace: string,
  diff: string,
): void {
  mkdirSync(cassetteDir, { recursive: true });
  const prompt = casePrompt(spec);
  const agent = spec.agent;
  const session: Session = {
    seed: spec.id,
    cwd: workspace,
    prompt,
    steps,
    finalMessage: agent.finalMessage,
    startedAt: "2026-11-21T22:14:05.000Z",
    costUsd: agent.costUsd ?? 0,
  };
  let stdout: string;
  if (agent.outcome === "auth_error") stdout = claudeAuthErrorStream(session);
  else if (agent.adapter === "claude-code") stdout = claudeStream(session, agent.outcome);
  else if (agent.adapter === "codex") stdout = codexStream(session);
  else stdout = geminiStream(session);
  writeFileSync(join(cassetteDir, "stdout.jsonl"), stdout);
  writeFileSync(
    join(cassetteDir, "stderr.txt"),
    agent.adapter === "codex" ? "Reading additional input from stdin...\n" : "",
  );
  writeFileSync(join(cassetteDir, "workspace.diff"), diff);
  const meta = {
    schema_version: "evalgate.cassette.v1",
    adapter: agent.adapter,
    cli_version: CLI_VERSIONS[agent.adapter],
    argv_redacted: argvFor(agent.adapter, prompt, workspace),
    // Replaced by refresh-cassette-prompts.ts with the hash of the prompt the canary pin reproduces.
    prompt_sha256: `sha256:${"0".repeat(64)}`,
    exit_code: agent.outcome === "auth_error" ? 1 : 0,
    timed_out: false,
    stdout_capped: false,
    duration_ms: agent.outcome === "auth_error" ? 355 : durationMs(session),
    cost_usd: agent.costUsd,
    recorded_at: "2026-11-21T22:14:05Z",
    synthetic: true,
    notes: `Synthetic: written in the ${agent.adapter} ${CLI_VERSIONS[agent.adapter]} stream format by bench/vuln-remediation/scripts/curate-cases.ts; the workspace diff is the result of really running the scripted edits and npm commands. Meant to show: ${agent.note}.`,
  };
  writeFileSync(join(cassetteDir, "cassette.json"), json(meta));
}

function curate(spec: VulnCaseSpec): void {
  const caseDir = join(BENCH, "cases", spec.id);
  const pin = existingPin(caseDir);
  for (const part of ["input", "expected", "cassette"]) rmSync(join(caseDir, part), { recursive: true, force: true });
  mkdirSync(caseDir, { recursive: true });
  writeCaseToml(caseDir, spec, pin);
  const inputDir = join(caseDir, "input");
  buildInput(spec, inputDir);
  writeExpected(spec, join(caseDir, "expected"));
  const { steps, workspace } = performSession(spec, inputDir);
  const diff = unifiedDiff(inputDir, workspace);
  writeCassette(spec, join(caseDir, "cassette"), steps, workspace, diff);
  process.stderr.write(`${spec.id}: ${diff.length} bytes of diff, ${steps.length} steps\n`);
}

if (import.meta.main) {
  const only = new Set(process.argv.slice(2));
  for (const spec of CASES) if (only.size === 0 || only.has(spec.id)) curate(spec);
}
