// Attacks on the agent's copy-back: what an agent leaves in its scratch directory must neither take the
// harness's memory nor crash the case; each ends in TreeInvalid (recorded by the runner as the SUT's
// `sut.workspace_invalid`) or in an orderly copy-back. Real CLI processes (the fake CLI) and real trees.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TreeInvalid } from "@eval/sandbox";
import { ADAPTERS } from "./adapter-registry.ts";
import { createFakeCli } from "./fake-cli.test-helpers.ts";
import { executeTrial } from "./trial.ts";

/** The fake Claude runs `shell` in its scratch directory, then ends its session successfully. */
async function trialWith(
  shell: string,
  files: Record<string, string> = { "note.txt": "hello\n" },
  editable: readonly string[] = ["."],
) {
  const fake = createFakeCli("claude", {
    version: "2.1.330 (Claude Code)",
    steps: [{ shell }, { stdout: "file:claude-success.stdout.jsonl" }],
  });
  const root = mkdtempSync(join(tmpdir(), "evalgate-ws-"));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  let peakRss = process.memoryUsage().rss;
  const baseline = peakRss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
  const result = await executeTrial({
    adapter: ADAPTERS["claude-code"],
    binaryPath: fake.binaryPath,
    cliVersion: "2.1.330",
    prompt: "do it",
    workspace: { root, editable, readonly: [] },
    env: { PATH: process.env.PATH ?? "" },
    limits: { timeoutMs: 60_000, graceMs: 1_000 },
  }).then(
    (run) => ({ run, error: null }),
    (error: unknown) => ({ run: null, error }),
  );
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  const scratch = fake.invocations()[0]!.cwd;
  return { ...result, root, growthMb: (peakRss - baseline) / 1024 / 1024, scratchLeft: existsSync(scratch) };
}

describe("agent copy-back, attacked", () => {
  it("a 1.5 GiB sparse file: too large for the walk, recorded as such; the harness's memory stays bounded and the scratch is removed", async () => {
    const { error, growthMb, scratchLeft } = await trialWith("truncate -s 1536M big.bin");
    expect(error).toBeInstanceOf(TreeInvalid);
    expect(error).toMatchObject({ problem: "too_large", path: "big.bin" });
    expect(growthMb).toBeLessThan(300);
    expect(scratchLeft).toBe(false);
  }, 120_000);

  it("a 3 GiB sparse file: the same, never a harness error", async () => {
    const { error, growthMb } = await trialWith("truncate -s 3G big.bin");
    expect(error).toMatchObject({ name: "TreeInvalid", problem: "too_large" });
    expect(growthMb).toBeLessThan(300);
  }, 120_000);

  it("a tree deeper than PATH_MAX: TreeInvalid, and the scratch is still removed", async () => {
    const name = "n".repeat(200);
    const { error, scratchLeft } = await trialWith(
      `i=0; while [ $i -lt 40 ]; do mkdir ${name} && cd ${name}; i=$((i+1)); done; echo deep > f`,
    );
    expect(error).toBeInstanceOf(TreeInvalid);
    expect(scratchLeft).toBe(false);
  }, 120_000);

  it("a directory replaced by a file: the directory's files deleted, the file written in its place", async () => {
    const { run, error, root } = await trialWith("rm -r src && echo replaced > src", {
      "src/a.js": "a\n",
      "src/deeper/b.js": "b\n",
      "keep.txt": "k\n",
    });
    expect(error).toBeNull();
    expect(readFileSync(join(root, "src"), "utf8")).toBe("replaced\n");
    expect(run!.changedFiles).toEqual(["src", "src/a.js", "src/deeper/b.js"]);
    expect(readFileSync(join(root, "keep.txt"), "utf8")).toBe("k\n");
  }, 120_000);

  it("a file replaced by a directory: the file removed, the directory's file written", async () => {
    const { run, error, root } = await trialWith("rm lib && mkdir lib && echo inside > lib/x.js", {
      lib: "was a file\n",
    });
    expect(error).toBeNull();
    expect(readFileSync(join(root, "lib", "x.js"), "utf8")).toBe("inside\n");
    expect(run!.changedFiles).toEqual(["lib", "lib/x.js"]);
  }, 120_000);

  it("a directory replaced by a file where the workspace still holds files the agent could not change: not copied, listed as undeclared", async () => {
    const { run, error, root } = await trialWith(
      "chmod -R u+w src; rm -r src && echo replaced > src",
      { "src/a.js": "a\n", "src/locked.js": "l\n" },
      ["src/a.js", "src"].slice(0, 1),
    );
    expect(error).toBeNull();
    expect(statSync(join(root, "src")).isDirectory()).toBe(true);
    expect(readFileSync(join(root, "src", "locked.js"), "utf8")).toBe("l\n");
    expect(run!.changedFiles).toEqual(["src/a.js"]);
    expect(existsSync(join(root, "src", "a.js"))).toBe(false);
    expect(run!.undeclaredChanges).toEqual(["src"]);
  }, 120_000);

  it("a changed file over the diff's cap is compared by digest and copied back by the file system, listed as not in the diff", async () => {
    const big = "x".repeat(2 * 1024 * 1024);
    const { run, error, root } = await trialWith("printf y >> big.txt && mkfifo pipe && ln -s /etc/passwd link", {
      "big.txt": big,
      "same.txt": "same\n",
    });
    expect(error).toBeNull();
    expect(run!.changedFiles).toEqual(["big.txt"]);
    expect(run!.binaryChanges).toEqual(["big.txt"]);
    expect(run!.undeclaredChanges).toEqual(["link", "pipe"]);
    expect(readFileSync(join(root, "big.txt"), "utf8")).toBe(`${big}y`);
    expect(run!.diff).toBe("");
  }, 120_000);
});
