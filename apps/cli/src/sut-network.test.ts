// Against the BUILT binary: `--sut-network` runs a command SUT behind slirp4netns (recorded as
// `sut_isolation: bwrap-slirp4netns`, nothing left running), and where slirp4netns is missing it refuses
// with one line naming what to install: never the host's network instead.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { networkSupport, sandboxSupport } from "@eval/sandbox";
import { makeUpperBench } from "./commands/run.test-helpers.ts";

const bin = join(import.meta.dirname, "..", "dist", "bin.js");
const runnable = sandboxSupport().available && networkSupport().available;
let bench: Awaited<ReturnType<typeof makeUpperBench>>;

beforeAll(async () => {
  bench = await makeUpperBench({ "c-1": "one", "c-2": "two" });
}, 60_000);
afterAll(async () => {
  await rm(bench.root, { recursive: true, force: true });
});

const runArgs = (state: string): string[] => [
  bin,
  "run",
  "--task-class",
  "upper",
  "--sut",
  `command:${process.execPath} upper.mjs`,
  "--sut-network",
  "--bench-root",
  bench.benchRoot,
  "--quiet",
  "--out",
  state,
];

/** slirp4netns processes whose parent is one of `pids` (or init, which adopts orphans): none may be left. */
const slirpsOf = (pids: readonly number[]): string[] =>
  spawnSync("ps", ["-eo", "pid,ppid,comm"], { encoding: "utf8" })
    .stdout.split("\n")
    .filter((line) => line.trim().endsWith("slirp4netns"))
    .filter((line) => [1, ...pids].includes(Number(line.trim().split(/\s+/)[1])));

describe.skipIf(!runnable)("evalgate run --sut-network", () => {
  it("records the SUT as bwrap-slirp4netns, scores it, and leaves no slirp4netns running", () => {
    const state = join(bench.root, "state-net");
    const result = spawnSync(process.execPath, runArgs(state), { cwd: bench.root, encoding: "utf8", timeout: 180_000 });
    expect(result.status, result.stderr).toBe(0);
    const [report] = readdirSync(join(state, "runs")).filter((name) => name.endsWith(".json"));
    const record = JSON.parse(readFileSync(join(state, "runs", report!), "utf8")) as { report: unknown };
    expect(record.report).toMatchObject({ sut_isolation: "bwrap-slirp4netns", passed_count: 2 });
    expect(slirpsOf([result.pid ?? -1])).toEqual([]);
  }, 240_000);

  it.runIf(process.getuid?.() === 0)(
    "without slirp4netns (hidden in a mount namespace): exit 1, one line naming what to install, nothing run",
    () => {
      const state = join(bench.root, "state-missing");
      const result = spawnSync(
        "/usr/bin/unshare",
        [
          "--mount",
          "--propagation",
          "private",
          "sh",
          "-c",
          'mount --bind /dev/null /usr/bin/slirp4netns && exec "$@"',
          "sh",
          process.execPath,
          ...runArgs(state),
        ],
        { cwd: bench.root, encoding: "utf8", timeout: 120_000 },
      );
      expect(result.status, result.stderr).toBe(1);
      const lines = result.stderr.trim().split("\n");
      expect(lines.at(-1)).toMatch(
        /cannot give the command SUT a network: slirp4netns is not installed.*apt-get install slirp4netns.*or run without --sut-network/,
      );
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(() => readdirSync(join(state, "runs"))).toThrow();
    },
    180_000,
  );
});
