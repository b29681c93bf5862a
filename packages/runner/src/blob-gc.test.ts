// gc of `blobs/`: unreferenced blobs go, and nothing a recorded run, a live run or a reusing run needs does.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordsNewestFirst, verifyChain } from "@eval/audit-chain";
import { blake3Digest } from "@eval/hashing";
import { stateLayout } from "@eval/state-layout";
import { HALF_UPPER_SUT, makeTaskClassBench, UPPER_RUBRIC } from "./bench.test-helpers.ts";
import { collectBlobs } from "./blob-gc.ts";
import { readBlob, writeBlob } from "./blob-store.ts";
import { collectGarbage, moduleSut, runEval } from "./index.ts";
import { OWNER_FILE } from "./run-owner.ts";

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "evalgate-blob-gc-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const TEN_MINUTES_AGO = new Date(Date.now() - 10 * 60 * 1000);

/** Stores `text` as a blob last touched ten minutes ago; its path and digest. */
function oldBlob(blobsDir: string, text: string): { path: string; digest: string } {
  const digest = blake3Digest(Buffer.from(text));
  writeBlob(blobsDir, digest, Buffer.from(text));
  const hex = digest.slice("blake3:".length);
  const path = join(blobsDir, hex.slice(0, 2), hex.slice(2));
  utimesSync(path, TEN_MINUTES_AGO, TEN_MINUTES_AGO);
  return { path, digest };
}

/** Every blob digest the detail files of `runId` name. */
function detailDigests(runsDir: string, runId: string): string[] {
  const casesDir = join(runsDir, runId, "cases");
  return readdirSync(casesDir)
    .filter((name) => name.endsWith(".json"))
    .flatMap((name) => [...readFileSync(join(casesDir, name), "utf8").matchAll(/"digest": ?"(blake3:[0-9a-f]{64})"/g)])
    .map((match) => match[1]!);
}

describe("collectBlobs", () => {
  it("removes an old unreferenced blob and counts its bytes; keeps a referenced, a fresh and a reused one", () => {
    const runsDir = join(root, "a", "runs");
    const blobsDir = join(root, "a", "blobs");
    const orphan = oldBlob(blobsDir, "nobody refers to me");
    const referenced = oldBlob(blobsDir, "a recorded run's file");
    const reused = oldBlob(blobsDir, "captured again by a run");
    writeBlob(blobsDir, reused.digest, Buffer.from("captured again by a run"));
    writeBlob(blobsDir, blake3Digest(Buffer.from("just written")), Buffer.from("just written"));
    mkdirSync(join(runsDir, "20261122T000000Z-rec", "cases"), { recursive: true });
    writeFileSync(
      join(runsDir, "20261122T000000Z-rec", "cases", "c-1.json"),
      JSON.stringify({ workspace: { changes: [{ after: { digest: referenced.digest } }] } }),
    );
    expect(collectBlobs(runsDir, blobsDir)).toEqual({ removedBlobs: 1, freedBytes: "nobody refers to me".length });
    expect(existsSync(orphan.path)).toBe(false);
    expect(readBlob(blobsDir, referenced.digest)?.toString()).toBe("a recorded run's file");
    expect(readBlob(blobsDir, reused.digest)?.toString()).toBe("captured again by a run");
    expect(readdirSync(join(orphan.path, ".."))).not.toContain(expect.stringMatching(/\.gc-/));
  });

  it("keeps what a live run wrote before its details land, from its claim's start on; removes it once the run is dead", () => {
    const runsDir = join(root, "b", "runs");
    const blobsDir = join(root, "b", "blobs");
    const runDir = join(runsDir, "20261122T000000Z-live");
    mkdirSync(join(runDir, "cases"), { recursive: true });
    const owner = join(runDir, OWNER_FILE);
    writeFileSync(owner, JSON.stringify({ pid: process.pid, host: hostname(), started_at: new Date().toISOString() }));
    const started = new Date(Date.now() - 20 * 60 * 1000);
    utimesSync(owner, started, started);
    const captured = oldBlob(blobsDir, "captured, its detail not written yet");
    expect(collectBlobs(runsDir, blobsDir)).toEqual({ removedBlobs: 0, freedBytes: 0 });
    expect(existsSync(captured.path)).toBe(true);
    rmSync(owner);
    expect(collectBlobs(runsDir, blobsDir).removedBlobs).toBe(1);
  });

  it("an empty or missing state gives nothing to do", () => {
    expect(collectBlobs(join(root, "none", "runs"), join(root, "none", "blobs"))).toEqual({
      removedBlobs: 0,
      freedBytes: 0,
    });
  });
});

describe("gc beside runs that capture workspaces", () => {
  it("a gc loop beside runs reusing old unreferenced blobs: every recorded run's blobs are there afterwards", async () => {
    const bench = await makeTaskClassBench(root, {
      rubric: UPPER_RUBRIC,
      cases: { "c-1": "alpha beta", "c-2": "gamma", "c-3": "delta" },
    });
    const sutFile = join(root, "sut.mjs");
    writeFileSync(sutFile, HALF_UPPER_SUT);
    const sut = await moduleSut(`${sutFile}#halfUpper`);
    const stateDir = join(root, "state");
    const layout = stateLayout(stateDir);
    // What a killed run left: the very blobs the runs below capture, old and referenced by nothing.
    const upper = (text: string) => [...text].map((c, i) => (i % 2 === 0 ? c.toUpperCase() : c)).join("");
    for (const text of ["alpha beta", "gamma", "delta"]) {
      oldBlob(layout.blobs, text);
      oldBlob(layout.blobs, upper(text));
    }
    const orphan = oldBlob(layout.blobs, "no run captures this");
    mkdirSync(join(root, "no-temps"), { recursive: true });
    let stop = false;
    let sweeps = 0;
    let removed = 0;
    const loop = (async () => {
      while (!stop) {
        removed += (await collectGarbage({ stateDir, tempParent: join(root, "no-temps") })).removedBlobs;
        sweeps += 1;
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    const runs: string[] = [];
    try {
      for (let round = 0; round < 3; round += 1) {
        const options = { systemUnderTest: sut, benchRoot: bench.benchRoot, stateDir, sandbox: "none" as const };
        const results = await Promise.all([
          runEval(bench.slug, { ...options, noCache: true, concurrency: 2 }),
          runEval(bench.slug, { ...options, noCache: true, concurrency: 2 }),
        ]);
        runs.push(...results.map((result) => result.report.run_id));
        // Age every blob, as if the runs had been long ago: the next round reuses them under the sweeping gc.
        for (const prefix of readdirSync(layout.blobs))
          for (const name of readdirSync(join(layout.blobs, prefix)))
            utimesSync(join(layout.blobs, prefix, name), TEN_MINUTES_AGO, TEN_MINUTES_AGO);
      }
    } finally {
      stop = true;
      await loop;
    }
    expect(sweeps).toBeGreaterThan(3);
    expect(removed).toBeGreaterThanOrEqual(1);
    expect(existsSync(orphan.path)).toBe(false);
    const recorded: string[] = [];
    for await (const found of recordsNewestFirst(layout.runs, bench.slug)) recorded.push(found.record.report.run_id);
    expect(recorded.sort()).toEqual([...runs].sort());
    for (const runId of runs) {
      const digests = detailDigests(layout.runs, runId);
      expect(digests.length).toBeGreaterThanOrEqual(6);
      for (const digest of digests) expect(readBlob(layout.blobs, digest), `${runId} ${digest}`).not.toBeNull();
    }
    expect((await verifyChain({ runsDir: layout.runs })).ok).toBe(true);
  }, 300_000);
});

describe("a gc killed with SIGKILL mid-way", () => {
  /** Every gc child, killed at the end even when an assertion fails while one is stopped. */
  const children: ChildProcess[] = [];
  afterAll(() => {
    for (const child of children) child.kill("SIGKILL");
  });
  /**
   * Runs collectBlobs in a child process and stops it (SIGSTOP) at a random moment: the child, alive, and the
   * `.gc-<pid>` names it has left so far.
   */
  async function stoppedGc(runsDir: string, blobsDir: string): Promise<{ child: ChildProcess; leftovers: string[] }> {
    const child = spawn(
      process.execPath,
      [
        "--conditions=@eval/source",
        "--input-type=module",
        "-e",
        `import { collectBlobs } from ${JSON.stringify(join(import.meta.dirname, "blob-gc.ts"))};
         process.stdout.write("go\\n");
         collectBlobs(${JSON.stringify(runsDir)}, ${JSON.stringify(blobsDir)});`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    children.push(child);
    await new Promise((resolve) => child.stdout!.once("data", resolve));
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 150));
    child.kill("SIGSTOP");
    return { child, leftovers: asideNames(blobsDir) };
  }
  const asideNames = (blobsDir: string): string[] =>
    readdirSync(blobsDir, { recursive: true, encoding: "utf8" }).filter((name) => name.includes(".gc-"));
  async function kill(child: ChildProcess): Promise<void> {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  }

  it("a live gc's blobs moved aside are left alone; once it is SIGKILLed the next gc puts them back and judges them: a referenced one stays, the rest go", async () => {
    let stopped: { child: ChildProcess; leftovers: string[] } | null = null;
    let base = "";
    // A stop lands between a blob's move aside and its removal in about 2 rounds of 3 here.
    for (let round = 0; round < 30 && stopped === null; round += 1) {
      base = join(root, `killed-${round}`);
      mkdirSync(join(base, "runs"), { recursive: true });
      for (let i = 0; i < 3000; i += 1) oldBlob(join(base, "blobs"), randomBytes(16).toString("hex"));
      const attempt = await stoppedGc(join(base, "runs"), join(base, "blobs"));
      if (attempt.leftovers.length > 0) stopped = attempt;
      else await kill(attempt.child);
    }
    expect(stopped, "no SIGSTOP in 30 rounds caught a blob moved aside").not.toBeNull();
    const { child, leftovers } = stopped!;
    const blobsDir = join(base, "blobs");
    expect(leftovers.every((name) => name.endsWith(`.gc-${child.pid}`))).toBe(true);
    // The gc that moved them is alive (stopped): another gc leaves its blobs moved aside.
    collectBlobs(join(base, "runs"), blobsDir);
    expect(asideNames(blobsDir)).toEqual(leftovers);
    await kill(child);
    const [first] = leftovers;
    const digest = `blake3:${first!.split(".gc-")[0]!.replace("/", "")}`;
    // A run recorded a detail naming the blob the killed gc had moved aside.
    mkdirSync(join(base, "runs", "20261122T000000Z-rec", "cases"), { recursive: true });
    writeFileSync(join(base, "runs", "20261122T000000Z-rec", "cases", "c.json"), JSON.stringify({ digest }));
    collectBlobs(join(base, "runs"), blobsDir);
    const after = readdirSync(blobsDir, { recursive: true, encoding: "utf8" }).filter((name) => name.includes("/"));
    expect(after.filter((name) => name.includes(".gc-"))).toEqual([]);
    expect(after).toEqual([first!.split(".gc-")[0]]);
    expect(readBlob(blobsDir, digest)).not.toBeNull();
  }, 300_000);

  it("removes a leftover whose blob was written anew, and leaves a live gc's moved-aside blob alone", () => {
    const blobsDir = join(root, "leftover", "blobs");
    const runsDir = join(root, "leftover", "runs");
    const kept = oldBlob(blobsDir, "written anew after a killed gc moved it aside");
    // A real dead pid: a process that has exited.
    const dead = spawnSync(process.execPath, ["-e", ""]).pid!;
    writeFileSync(`${kept.path}.gc-${dead}`, "written anew after a killed gc moved it aside");
    mkdirSync(join(runsDir, "20261122T000000Z-rec", "cases"), { recursive: true });
    writeFileSync(join(runsDir, "20261122T000000Z-rec", "cases", "c.json"), JSON.stringify({ digest: kept.digest }));
    // Another process, alive (this one's parent), as the gc that moved it.
    const live = `${oldBlob(blobsDir, "moved aside by a gc still running").path}.gc-${process.ppid}`;
    writeFileSync(live, "moved aside by a gc still running");
    collectBlobs(runsDir, blobsDir);
    expect(existsSync(`${kept.path}.gc-${dead}`)).toBe(false);
    expect(readBlob(blobsDir, kept.digest)?.toString()).toBe("written anew after a killed gc moved it aside");
    expect(existsSync(live)).toBe(true);
  });
});
