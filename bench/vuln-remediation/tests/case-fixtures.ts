// Test support: real cases from cases/, and real patched workspaces built by applying a cassette's
// workspace.diff (with `git apply`, a real process) to a scratch copy of the case's input/.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseToml } from "smol-toml";
import { BenchCaseSchema, CaseTomlSchema, CassetteMetaSchema, parseWire, type BenchCase } from "@eval/models";

export const BENCH_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");
export const CASES_DIR = join(BENCH_DIR, "cases");

export function caseIds(): string[] {
  return readdirSync(CASES_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** A case as the loader would hand it over (digest verification is the registry's job, not tested here). */
export function loadCase(caseId: string): BenchCase {
  const casePath = join(CASES_DIR, caseId);
  const toml = parseWire(CaseTomlSchema, normalizeDates(parseToml(readFileSync(join(casePath, "case.toml"), "utf8"))));
  return parseWire(BenchCaseSchema, {
    ...toml,
    case_path: casePath,
    input_path: join(casePath, "input"),
    expected_path: join(casePath, "expected"),
    cassette_path: existsSync(join(casePath, "cassette")) ? join(casePath, "cassette") : null,
    case_digest: `blake3:${"0".repeat(64)}`,
  });
}

function normalizeDates(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, v instanceof Date ? v.toISOString() : v]));
}

const scratch: string[] = [];

/** A scratch copy of the case's input/ (what the SUT receives). */
export function freshWorkspace(benchCase: BenchCase): string {
  const dir = mkdtempSync(join(tmpdir(), "vuln-ws-"));
  scratch.push(dir);
  cpSync(benchCase.input_path, dir, { recursive: true });
  return dir;
}

/** The workspace the recorded agent left: input/ with the cassette's workspace.diff applied. */
export function replayedWorkspace(benchCase: BenchCase): string {
  const dir = freshWorkspace(benchCase);
  const diffPath = join(benchCase.case_path, "cassette", "workspace.diff");
  if (readFileSync(diffPath, "utf8").length > 0)
    execFileSync("git", ["apply", "--whitespace=nowarn", diffPath], { cwd: dir, stdio: "pipe" });
  return dir;
}

export function cleanupWorkspaces(): void {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * The trial class an adapter assigns to the cassette's stream, read from its terminal facts (the
 * adapters package does this for real runs; bench code may not import it). Only the shapes these cassettes
 * use, most decisive first as the adapter decides: a refusal (Claude Code ends a twice-declined session
 * with `stop_reason: "refusal"` on an error result), a Claude result with is_error, or a clean finish.
 */
export function trialClassOf(benchCase: BenchCase): string {
  const lines = readFileSync(join(benchCase.case_path, "cassette", "stdout.jsonl"), "utf8")
    .trim()
    .split("\n");
  const events = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  if (
    events.some(
      (e) =>
        e.stop_reason === "refusal" ||
        (e.type === "assistant" && (e.message as Record<string, unknown>).stop_reason === "refusal"),
    )
  )
    return "model_refusal";
  if (events.some((e) => e.type === "result" && e.is_error === true)) return "cli_error";
  return "parse_success";
}

export function cassetteMeta(benchCase: BenchCase) {
  return parseWire(
    CassetteMetaSchema,
    JSON.parse(readFileSync(join(benchCase.case_path, "cassette", "cassette.json"), "utf8")),
  );
}

/** The harness output the replay SUT returns, reduced to what this rubric reads. */
export function harnessOutputFor(benchCase: BenchCase): { trial_class: string; adapter: string; cost_usd: number } {
  const meta = cassetteMeta(benchCase);
  return { trial_class: trialClassOf(benchCase), adapter: meta.adapter, cost_usd: meta.cost_usd ?? 0 };
}
