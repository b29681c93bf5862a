// End to end: the BUILT evalgate binary, as a subprocess, on a copy of the repository's real bench/
// (both task classes, their cassettes and rubrics), with the default replay SUT.
import { execFile } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const execFileAsync = promisify(execFile);
const repo = join(import.meta.dirname, "..", "..", "..");
const bin = join(repo, "apps", "cli", "dist", "bin.js");

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

let scratch: string;

async function evalgate(...args: string[]): Promise<Result> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [bin, ...args], {
      cwd: scratch,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", CI: "true" },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Copies bench/ without its node_modules, then links each dependency to the real package (absolute links). */
function copyBench(target: string): void {
  const source = join(repo, "bench");
  cpSync(source, target, {
    recursive: true,
    filter: (path) => !relative(source, path).split("/").includes("node_modules"),
  });
  for (const slug of readdirSync(source, { withFileTypes: true }).filter((entry) => entry.isDirectory())) {
    const modules = join(source, slug.name, "node_modules");
    let entries: string[];
    try {
      entries = readdirSync(modules);
    } catch {
      continue;
    }
    for (const entry of entries.filter((name) => !name.startsWith("."))) {
      const names = entry.startsWith("@")
        ? readdirSync(join(modules, entry)).map((name) => `${entry}/${name}`)
        : [entry];
      for (const name of names) {
        mkdirSync(join(target, slug.name, "node_modules", name, ".."), { recursive: true });
        symlinkSync(realpathSync(join(modules, name)), join(target, slug.name, "node_modules", name));
      }
    }
  }
}

/** The chain's record files (top-level *.json in runs/) with their bytes. */
function chainFiles(): Map<string, string> {
  const runs = join(scratch, ".evalgate", "runs");
  return new Map(
    readdirSync(runs, { withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith(".json"))
      .map((entry) => [entry.name, readFileSync(join(runs, entry.name), "utf8")]),
  );
}

function transcriptLines(taskClass: string): number {
  try {
    return readFileSync(join(scratch, ".evalgate", "transcripts", `${taskClass}.jsonl`), "utf8")
      .trim()
      .split("\n").length;
  } catch {
    return 0;
  }
}

/** A report as evidence: everything but when it ran and which chain position it took. */
function evidenceOf(recordText: string): string {
  const { report } = JSON.parse(recordText) as { report: Record<string, unknown> };
  const { started_at, ended_at, run_id, prev_hash, chain_head, ...evidence } = report;
  return JSON.stringify(evidence);
}

/** stdout with run identifiers and cache flags normalized (the second run is all cache hits). */
function normalizedStdout(stdout: string): string {
  return JSON.stringify(
    jsonLines(stdout).map((line) => {
      const { run_id, chain_head, record_path, cache_hit, cache_hits, ...rest } = line;
      return rest;
    }),
  );
}

const caseIds = (slug: string): string[] =>
  readdirSync(join(repo, "bench", slug, "cases"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();

describe("evalgate end to end on the repository's bench", () => {
  let first: Result;
  let second: Result;
  let recordsAfterFirst: Map<string, string>;

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), "evalgate-e2e-"));
    copyBench(join(scratch, "bench"));
    mkdirSync(join(scratch, "docs"));
    cpSync(join(repo, "docs", "trust-tiers.yaml"), join(scratch, "docs", "trust-tiers.yaml"));
    first = await evalgate("run", "--task-class", "vuln-remediation");
    recordsAfterFirst = chainFiles();
    second = await evalgate("run", "--task-class", "vuln-remediation");
  }, 400_000); // two runs of the whole bench (42 cases, each install-checked), under a loaded machine

  afterAll(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it("runs every case, printing one JSONL line per case and one aggregate line", () => {
    expect(first.code, first.stderr).toBe(0);
    const lines = jsonLines(first.stdout);
    const ids = caseIds("vuln-remediation");
    expect(lines).toHaveLength(ids.length + 1);
    expect(lines.slice(0, -1).map((line) => line.case_id)).toEqual(ids);
    expect(lines.slice(0, -1).every((line) => line.type === "case" && line.cache_hit === false)).toBe(true);
    expect(lines.at(-1)).toMatchObject({
      type: "run",
      task_class: "vuln-remediation",
      sut_label: "replay",
      complete: true,
      case_count: ids.length,
    });
  });

  it("appends exactly one chain record per run, and the chain verifies", async () => {
    expect(recordsAfterFirst.size).toBe(1);
    expect(chainFiles().size).toBe(2);
    const verify = await evalgate("verify", "--strict");
    expect(verify.code, verify.stderr).toBe(0);
    expect(jsonLines(verify.stdout)[0]).toMatchObject({ ok: true, records: 2, complete: 2, incomplete: 0 });
  });

  it("reruns from cache alone, with identical evidence and output apart from timestamps and run identity", () => {
    expect(second.code, second.stderr).toBe(0);
    const lines = jsonLines(second.stdout);
    expect(lines.slice(0, -1).every((line) => line.cache_hit === true)).toBe(true);
    expect(lines.at(-1)).toMatchObject({ cache_hits: caseIds("vuln-remediation").length });
    expect(normalizedStdout(second.stdout)).toBe(normalizedStdout(first.stdout));
    const [firstRecord, secondRecord] = [...chainFiles().entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([, text]) => text);
    expect(evidenceOf(secondRecord!)).toBe(evidenceOf(firstRecord!));
  });

  it("passes the fence", async () => {
    const fence = await evalgate("fence");
    expect(fence.code, fence.stdout + fence.stderr).toBe(0);
  });

  it("gives each task class a verdict whose reasons carry the numbers", async () => {
    const migration = await evalgate("run", "--task-class", "migration-chainguard-distroless");
    expect(migration.code, migration.stderr).toBe(0);
    for (const taskClass of ["vuln-remediation", "migration-chainguard-distroless"]) {
      const verdict = await evalgate("promote-verdict", "--task-class", taskClass);
      expect(verdict.code, verdict.stderr).toBe(0);
      const line = jsonLines(verdict.stdout).at(-1) as {
        verdict?: { reasons: string[]; requires_human_approval: boolean };
        reasons?: string[];
      };
      const reasons = line.verdict?.reasons ?? line.reasons ?? [];
      expect(reasons.length, verdict.stdout).toBeGreaterThan(0);
      for (const reason of reasons)
        if (reason !== "all conditions met" && !reason.includes("declares no min_cases_for_promotion"))
          expect(reason).toMatch(/\d/);
    }
    expect(readdirSync(join(scratch, ".evalgate", "recommendations")).length).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it("a hand-picked subset of the cases that pass never supports a promotion; selecting no case records nothing", async () => {
    const full = jsonLines((await evalgate("run", "--task-class", "vuln-remediation")).stdout);
    const passing = full
      .filter((line) => line.type === "case" && (line.score as { passed: boolean }).passed)
      .map((line) => line.case_id as string);
    expect(passing.length).toBeGreaterThanOrEqual(10);
    const picked = await evalgate("run", "--task-class", "vuln-remediation", "--cases", `{${passing.join(",")}}`);
    expect(picked.code, picked.stderr).toBe(0);
    expect(picked.stderr).toMatch(/cannot support a promotion/);
    const pickedRun = jsonLines(picked.stdout).at(-1)!;
    const total = caseIds("vuln-remediation").length;
    expect(pickedRun).toMatchObject({
      scope: "subset",
      case_count: passing.length,
      task_class_case_count: total,
      passed_count: passing.length,
    });
    // Named explicitly, the subset is refused, with how many cases it left out.
    const named = jsonLines(
      (await evalgate("promote-verdict", "--task-class", "vuln-remediation", "--run", pickedRun.run_id as string))
        .stdout,
    ).at(-1)!;
    expect(named).toMatchObject({
      evidence_sufficient: false,
      report_scope: "subset",
      report_run_id: pickedRun.run_id,
    });
    expect(named.reasons).toContain(
      `run ${pickedRun.run_id} scored a subset: ${passing.length} of ${total} cases (filter "{${passing.join(",")}}"), ${total - passing.length} left out; a promotion needs a run over the whole task class`,
    );
    // By default the verdict reads the newest full run and names the subset it passed over.
    const latest = jsonLines((await evalgate("promote-verdict", "--task-class", "vuln-remediation")).stdout).at(-1)!;
    expect(latest).toMatchObject({
      report_scope: "full",
      evidence_sufficient: false,
      passed_over: [{ run_id: pickedRun.run_id, reason: expect.stringContaining("subset") }],
    });

    const before = chainFiles();
    const none = await evalgate("run", "--task-class", "vuln-remediation", "--cases", "nomatch*");
    expect(none.code).toBe(7);
    expect(none.stdout).toBe("");
    expect(none.stderr.trim().split("\n")).toHaveLength(1);
    expect(chainFiles()).toEqual(before);
  }, 300_000);

  it("refuses a poisoned case: a flipped byte in ANY expected/ file exits 6 naming the case and the file, before any SUT call, chain unchanged", async () => {
    for (const slug of ["vuln-remediation", "migration-chainguard-distroless"]) {
      for (const caseId of caseIds(slug)) {
        const expectedDir = join(scratch, "bench", slug, "cases", caseId, "expected");
        const files = readdirSync(expectedDir, { recursive: true, withFileTypes: true }).filter((entry) =>
          entry.isFile(),
        );
        expect(files.length, `${slug}/${caseId} has expected/ files`).toBeGreaterThan(0);
        const file = join(files[0]!.parentPath, files[0]!.name);
        const original = readFileSync(file);
        const poisoned = Buffer.from(original);
        const at = Math.floor(poisoned.length / 2);
        poisoned[at] = poisoned[at]! ^ 0x01;
        writeFileSync(file, poisoned);
        const chainBefore = chainFiles();
        const transcriptsBefore = transcriptLines(slug);
        try {
          const result = await evalgate("run", "--task-class", slug);
          expect(result.code, result.stderr).toBe(6);
          expect(result.stdout).toBe("");
          expect(result.stderr).toContain(caseId);
          expect(result.stderr).toContain(relative(join(scratch, "bench", slug, "cases", caseId), file));
          expect(result.stderr.trim().split("\n")).toHaveLength(1);
          expect(chainFiles()).toEqual(chainBefore);
          expect(transcriptLines(slug)).toBe(transcriptsBefore);
        } finally {
          writeFileSync(file, original);
        }
      }
    }
  }, 900_000); // 54 refused runs, each a CLI start that digests the bench: 6-8 s apiece at load 12 (as root too)

  it("warns once about a stale case (the default-SUT probe loads the bench silently)", async () => {
    const caseToml = join(scratch, "bench", "vuln-remediation", "cases", "lodash-template-cve-2021-23337", "case.toml");
    const original = readFileSync(caseToml, "utf8");
    const digests = join(scratch, "bench", "vuln-remediation", "cases", "digests.yaml");
    const originalDigests = readFileSync(digests, "utf8");
    writeFileSync(caseToml, original.replace(/^last_validated_at = .*$/m, "last_validated_at = 2020-01-01T00:00:00Z"));
    try {
      // case.toml is part of the case digest: an edited one is refused (exit 6) until re-signed.
      expect((await evalgate("run", "--task-class", "vuln-remediation", "--cases", "lodash-*")).code).toBe(6);
      expect((await evalgate("bench", "sign", "--task-class", "vuln-remediation")).code).toBe(0);
      const result = await evalgate("run", "--task-class", "vuln-remediation", "--cases", "lodash-*");
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr.split("\n").filter((line) => line.includes('"case.stale"'))).toHaveLength(1);
    } finally {
      writeFileSync(caseToml, original);
      writeFileSync(digests, originalDigests);
    }
  });
});
