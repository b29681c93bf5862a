// The harness's own record of what a SUT did (for every SUT kind): the workspace it left against the
// case's input, kept content-addressed, and what its process printed. Real runs: registry, rubric
// subprocesses, a module SUT in its worker and a command SUT as a process.
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CaseDetailSchema } from "@eval/models";
import type { CaseDetail } from "@eval/models";
import { sandboxSupport } from "@eval/sandbox";
import { makeTaskClassBench, UPPER_RUBRIC } from "./bench.test-helpers.ts";
import { commandSut, moduleSut, runEval } from "./index.ts";
import { capturedDiff, restoreWorkspace } from "./workspace-capture.ts";

let root: string;
let bench: { benchRoot: string; benchPath: string; slug: string };

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "evalgate-capture-"));
  bench = await makeTaskClassBench(root, { rubric: UPPER_RUBRIC, cases: { "c-1": "alpha", "c-2": "beta" } });
  await writeFile(join(bench.benchPath, "cases", "c-1", "input", "notes.md"), "keep me\n");
  await writeFile(join(bench.benchPath, "cases", "c-1", "input", "old.txt"), "delete me\n");
  const { signBench } = await import("@eval/registry");
  await signBench({ benchPath: bench.benchPath, name: bench.slug });
  // Upper-cases text.txt, adds a file in a new directory and a binary one, deletes old.txt, prints on both streams.
  await writeFile(
    join(root, "sut.mjs"),
    `import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
export function upper(invocation) {
  const ws = invocation.workspacePath;
  writeFileSync(ws + "/text.txt", readFileSync(ws + "/text.txt", "utf8").toUpperCase());
  mkdirSync(ws + "/out", { recursive: true });
  writeFileSync(ws + "/out/report.txt", "made by the SUT\\n");
  writeFileSync(ws + "/out/blob.bin", Buffer.from([0, 1, 2, 0]));
  rmSync(ws + "/old.txt", { force: true });
  console.log("module stdout for " + invocation.benchCase.case_id);
  console.error("module stderr \\u001b[31mred\\u001b[0m");
  return { cost_usd: 0 };
}
`,
  );
  // The same work as a program; c-2 ends in a crash after writing, to show a failing SUT's output and files.
  await writeFile(
    join(root, "sut-command.mjs"),
    `import { readFileSync, writeFileSync } from "node:fs";
const request = JSON.parse(readFileSync(0, "utf8"));
writeFileSync("text.txt", readFileSync("text.txt", "utf8").toUpperCase());
writeFileSync("big.dat", "x".repeat(2 * 1024 * 1024));
process.stderr.write("command stderr for " + request.case.case_id + "\\n");
if (request.case.case_id === "c-2") { process.stderr.write("about to crash\\n"); process.exit(3); }
process.stdout.write(JSON.stringify({ cost_usd: 0, said: "hello" }));
`,
  );
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const detailOf = (runDir: string, caseId: string): CaseDetail =>
  CaseDetailSchema.parse(JSON.parse(readFileSync(join(runDir, "cases", `${caseId}.json`), "utf8"))) as CaseDetail;

describe("the harness's capture of a SUT's workspace and output", () => {
  it(
    "records a module SUT's changed, added and deleted files content-addressed, its stdout and stderr, and can rebuild the workspace",
    { timeout: 60_000 },
    async () => {
      const stateDir = join(root, "state-module");
      const result = await runEval(bench.slug, {
        systemUnderTest: await moduleSut(`${join(root, "sut.mjs")}#upper`),
        benchRoot: bench.benchRoot,
        stateDir,
        concurrency: 1,
      });
      expect(result.report.passed_count).toBe(2);
      const detail = detailOf(result.runDir, "c-1");
      expect(detail.workspace?.changes.map((change) => [change.path, change.status])).toEqual([
        ["old.txt", "deleted"],
        ["out/blob.bin", "added"],
        ["out/report.txt", "added"],
        ["text.txt", "changed"],
      ]);
      expect(detail.workspace).toMatchObject({ unchanged: 1, complete: true });
      expect(detail.sut_streams?.stdout.text).toBe("module stdout for c-1\n");
      expect(detail.sut_streams?.stderr.text).toBe("module stderr \u001b[31mred\u001b[0m\n");
      const blobsDir = join(stateDir, "blobs");
      const diff = capturedDiff(blobsDir, detail.workspace!);
      expect(diff).toContain("--- a/text.txt\n+++ b/text.txt\n");
      expect(diff).toContain("-alpha");
      expect(diff).toContain("+ALPHA");
      expect(diff).toContain("--- /dev/null\n+++ b/out/report.txt\n");
      expect(diff).toContain("+made by the SUT");
      expect(diff).toContain("--- a/old.txt\n+++ /dev/null\n");
      expect(diff).toContain("# added: binary file, 4 bytes");
      // The workspace rebuilt from the case's input and the blobs is the one the SUT left.
      const rebuilt = mkdtempSync(join(root, "rebuilt-"));
      await writeFile(join(rebuilt, "text.txt"), "alpha");
      await writeFile(join(rebuilt, "notes.md"), "keep me\n");
      await writeFile(join(rebuilt, "old.txt"), "delete me\n");
      restoreWorkspace(rebuilt, blobsDir, detail.workspace!);
      expect(readdirSync(rebuilt, { recursive: true }).map(String).sort()).toEqual([
        "notes.md",
        "out",
        "out/blob.bin",
        "out/report.txt",
        "text.txt",
      ]);
      expect(readFileSync(join(rebuilt, "text.txt"), "utf8")).toBe("ALPHA");
      expect([...readFileSync(join(rebuilt, "out", "blob.bin"))]).toEqual([0, 1, 2, 0]);
      // A blob that no longer matches its digest is never used.
      const digest = detail.workspace!.changes.find((change) => change.path === "text.txt")!.after!.digest!.slice(7);
      await writeFile(join(blobsDir, digest.slice(0, 2), digest.slice(2)), "FORGED");
      expect(() => restoreWorkspace(mkdtempSync(join(root, "rebuilt-")), blobsDir, detail.workspace!)).toThrow(
        /text.txt is missing from the blob store/,
      );
    },
  );

  it.skipIf(!sandboxSupport().available)(
    "records a sandboxed command SUT's files and streams, also when it crashes; a file past the size cap is listed, not kept",
    { timeout: 60_000 },
    async () => {
      const stateDir = join(root, "state-command");
      const sut = commandSut([process.execPath, join(root, "sut-command.mjs")], { hide: [bench.benchRoot, stateDir] });
      const result = await runEval(bench.slug, {
        systemUnderTest: sut,
        benchRoot: bench.benchRoot,
        stateDir,
        concurrency: 1,
      });
      const ok = detailOf(result.runDir, "c-1");
      expect(ok.sut_streams?.stdout.text).toBe(JSON.stringify({ cost_usd: 0, said: "hello" }));
      expect(ok.sut_streams?.stderr.text).toBe("command stderr for c-1\n");
      const big = ok.workspace?.changes.find((change) => change.path === "big.dat");
      expect(big).toMatchObject({ status: "added", after: { bytes: 2 * 1024 * 1024, stored: false } });
      expect(ok.workspace?.complete).toBe(false);
      expect(capturedDiff(join(stateDir, "blobs"), ok.workspace!)).toContain(
        "+++ b/big.dat\n# added, 2097152 bytes: content not kept",
      );
      const crashed = detailOf(result.runDir, "c-2");
      expect(crashed.sut_error).toMatch(/exited 3/);
      expect(crashed.sut_streams?.stderr.text).toBe("command stderr for c-2\nabout to crash\n");
      expect(crashed.workspace?.changes.map((change) => change.path)).toEqual(["big.dat", "text.txt"]);
      expect(existsSync(join(stateDir, "blobs"))).toBe(true);
    },
  );
});
