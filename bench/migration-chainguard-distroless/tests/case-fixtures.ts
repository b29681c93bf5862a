// Test support: real cases from cases/, and the workspaces their cassettes leave behind, built by
// applying workspace.diff with `git apply` (a real process) to a scratch copy of input/.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseToml } from "smol-toml";
import { BenchCaseSchema, CaseTomlSchema, CassetteMetaSchema, parseWire, type BenchCase } from "@eval/models";

export const CASES_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "cases");

export function caseIds(): string[] {
  return readdirSync(CASES_DIR, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
}

/** A case as the loader would hand it over (digest verification is the registry's job). */
export function loadCase(caseId: string): BenchCase {
  const casePath = join(CASES_DIR, caseId);
  const raw = parseToml(readFileSync(join(casePath, "case.toml"), "utf8"));
  const toml = parseWire(
    CaseTomlSchema,
    Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v])),
  );
  return parseWire(BenchCaseSchema, {
    ...toml,
    case_path: casePath,
    input_path: join(casePath, "input"),
    expected_path: join(casePath, "expected"),
    cassette_path: existsSync(join(casePath, "cassette")) ? join(casePath, "cassette") : null,
    case_digest: `blake3:${"0".repeat(64)}`,
  });
}

const scratch: string[] = [];

export function freshWorkspace(benchCase: BenchCase): string {
  const dir = mkdtempSync(join(tmpdir(), "migration-ws-"));
  scratch.push(dir);
  cpSync(benchCase.input_path, dir, { recursive: true });
  return dir;
}

export function replayedWorkspace(benchCase: BenchCase): string {
  const dir = freshWorkspace(benchCase);
  execFileSync("git", ["apply", join(benchCase.case_path, "cassette", "workspace.diff")], { cwd: dir, stdio: "pipe" });
  return dir;
}

export function cleanupWorkspaces(): void {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function cassetteMeta(benchCase: BenchCase) {
  return parseWire(
    CassetteMetaSchema,
    JSON.parse(readFileSync(join(benchCase.case_path, "cassette", "cassette.json"), "utf8")),
  );
}
