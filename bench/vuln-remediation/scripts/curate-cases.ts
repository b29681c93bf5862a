// Builds cases/<id>/ from case-specs.ts: the input project with a lockfile resolved from the real npm
// registry, the advisory record, expected/remediation.json, case.toml, and the case's scripted model session
// in cassette-sessions.yaml (the files the scripted agent's edits and npm commands, really run on a copy of
// input/, leave behind). It writes no cassette: a cassette is only what the real CLI does, recorded by
// record-cassettes.ts. Needs the npm registry. Run from the repo root:
//   node bench/vuln-remediation/scripts/curate-cases.ts [case-id ...]
// then the recording command it prints for each case, and `evalgate bench sign`.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { CASES, type VulnCaseSpec } from "./case-specs.ts";
import type { SutCase } from "@eval/models";
import { buildAgentPrompt } from "@eval/cli-subscription-adapters";
import { canarySeedFor } from "@eval/runner";
import { type ScriptedSession, upsertScriptedSession } from "@eval/test-utils";

const BENCH = join(dirname(fileURLToPath(import.meta.url)), "..");
const SESSIONS = join(BENCH, "cassette-sessions.yaml");
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

/** Performs the scripted agent's edits and npm commands on a scratch copy of input/; returns the workspace. */
function performSession(spec: VulnCaseSpec, inputDir: string): string {
  const workspace = join(SCRATCH_ROOT, spec.id);
  rmSync(workspace, { recursive: true, force: true });
  mkdirSync(dirname(workspace), { recursive: true });
  cpSync(inputDir, workspace, { recursive: true });
  const agent = spec.agent;
  if (agent.outcome !== "completed") return workspace;
  const firstWrite = agent.npm.findIndex((args) => args[0] === "install" || args[0] === "update");
  const investigate = firstWrite === -1 ? agent.npm : agent.npm.slice(0, firstWrite);
  const afterEdit = firstWrite === -1 ? [] : agent.npm.slice(firstWrite);
  for (const args of investigate) npm(workspace, args);
  for (const edit of agent.edits) {
    const file = join(workspace, edit.path);
    const text = readFileSync(file, "utf8");
    if (!text.includes(edit.oldText))
      throw new Error(`${spec.id}: edit target not found in ${edit.path}: ${edit.oldText}`);
    writeFileSync(file, text.replace(edit.oldText, edit.newText));
  }
  for (const args of afterEdit) npm(workspace, args);
  return workspace;
}

/**
 * The model's side of the case's session, for the model stub: read the advisory, then write every file the
 * scripted edits and npm commands changed (the sandboxed CLI has no registry, so the model writes the
 * results), or decline. The cassette is what the real CLI does with it (record-cassettes.ts).
 */
function scriptedSession(spec: VulnCaseSpec, match: string, inputDir: string, workspace: string): ScriptedSession {
  const opening = { text: "Reading the advisory.", tools: [{ read: { path: "advisory.json" } }] };
  if (spec.agent.outcome === "refused") {
    const declines = [spec.agent.finalMessage, "I can't help with this request."];
    return { match, turns: [opening, ...declines.map((text) => ({ text, refusal: true }))], final_text: "Declined." };
  }
  const changed = listFiles(workspace).filter(
    (path) =>
      !existsSync(join(inputDir, path)) ||
      readFileSync(join(inputDir, path), "utf8") !== readFileSync(join(workspace, path), "utf8"),
  );
  if (changed.length === 0) return { match, turns: [opening], final_text: "No change is needed." };
  const writes = changed.map((path) => ({ write: { path, content: readFileSync(join(workspace, path), "utf8") } }));
  return {
    match,
    turns: [opening, { tools: writes, usage: { input_tokens: 2400, output_tokens: 300 } }],
    final_text: "Done.",
  };
}

/** The canary line the case's prompt carries: the stub picks the case's session by it. */
function canaryLine(spec: VulnCaseSpec, pin: string): string {
  const prompt = buildAgentPrompt({ case_id: spec.id, prompt: casePrompt(spec) } as SutCase, canarySeedFor(pin));
  return /evalgate canary [0-9a-f]{32}/.exec(prompt)![0];
}

const RECORDER = "bench/vuln-remediation/scripts/record-cassettes.ts";
/** The CLI that records a spec's session; Pi's cassettes stand in for Gemini's. */
const recordingAdapter = (adapter: VulnCaseSpec["agent"]["adapter"]): string => (adapter === "gemini" ? "pi" : adapter);

function curate(spec: VulnCaseSpec): void {
  const caseDir = join(BENCH, "cases", spec.id);
  const pin = existingPin(caseDir);
  for (const part of ["input", "expected"]) rmSync(join(caseDir, part), { recursive: true, force: true });
  mkdirSync(caseDir, { recursive: true });
  writeCaseToml(caseDir, spec, pin);
  const inputDir = join(caseDir, "input");
  buildInput(spec, inputDir);
  writeExpected(spec, join(caseDir, "expected"));
  const workspace = performSession(spec, inputDir);
  if (spec.agent.outcome === "auth_error") {
    // A logged-out CLI is not a model answer: the stub cannot script it, so the case's session is left as is.
    process.stderr.write(`${spec.id}: auth_error has no scripted session; its session entry is left unchanged\n`);
    return;
  }
  upsertScriptedSession(SESSIONS, scriptedSession(spec, canaryLine(spec, pin), inputDir, workspace));
  process.stderr.write(
    `${spec.id}: case and scripted session written; record its cassette with the real CLI:\n` +
      `  node ${RECORDER} vuln-remediation ${recordingAdapter(spec.agent.adapter)} ${spec.id}\n`,
  );
}

if (import.meta.main) {
  const only = new Set(process.argv.slice(2));
  for (const spec of CASES) if (only.size === 0 || only.has(spec.id)) curate(spec);
}
