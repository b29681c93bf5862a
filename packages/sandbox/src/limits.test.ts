// Attacks on the resource limits: a fork bomb, a memory bomb and a disk fill, each run in a real sandbox,
// on the cgroup path (root here) and the rlimit path (a scratch user without a cgroup of its own).
import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sandboxSupport } from "./bwrap.ts";
import {
  allocationFailed,
  cgroupParents,
  createLimitGroup,
  defaultLimits,
  HARNESS_OOM_SCORE_ADJ,
  innerRlimitPrefix,
  limitHitDetail,
  limitMechanism,
  makeCgroupParents,
  rlimitPrefix,
} from "./limits.ts";
import { allocatedBytes } from "./disk-usage.ts";
import { runProcess } from "./process-runner.ts";

const support = sandboxSupport();
const MIB = 1024 * 1024;
const small = { pids: 64, memoryBytes: 256 * MIB, diskBytes: 32 * MIB };

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "limits-test-"));
  chmodSync(work, 0o777);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Peak RSS of this process (VmHWM), in MiB. */
const peakRssMib = (): number =>
  Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0) / 1024;

const FORK_BOMB =
  "import os, time\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        time.sleep(0.01)\n";
const MEMORY_BOMB = "chunks = []\nwhile True:\n    chunks.append(bytearray(16 * 1024 * 1024))\n";

describe("default limits", () => {
  it("share three quarters of the machine's memory among the cases run at once, between 512 MiB and 4 GiB each", () => {
    const gib = 1024 * MIB;
    expect(defaultLimits(4, 24 * gib)).toEqual({ pids: 1024, memoryBytes: 4 * gib, diskBytes: gib });
    expect(defaultLimits(8, 24 * gib).memoryBytes).toBe((18 * gib) / 8);
    expect(defaultLimits(64, 24 * gib).memoryBytes).toBe(512 * MIB);
    expect(defaultLimits(0, 2 * gib).memoryBytes).toBe(1.5 * gib);
  });

  it("rlimits: the file size always (before bwrap), process count and data segment only without a cgroup (inside)", () => {
    expect(rlimitPrefix(small).slice(1)).toEqual([`--fsize=${small.diskBytes}`, "--"]);
    expect(innerRlimitPrefix(small, "cgroup")).toEqual([]);
    expect(innerRlimitPrefix(small, "rlimit").slice(1)).toEqual(["--nproc=64", `--data=${small.memoryBytes}`, "--"]);
  });

  it("an allocation failure is told from a program's stderr only when it failed", () => {
    for (const said of [
      "Traceback (most recent call last):\nMemoryError",
      "cannot map: Cannot allocate memory",
      "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
      "terminate called after throwing an instance of 'std::bad_alloc'",
      "memory allocation of 1048576 bytes failed",
    ])
      expect(allocationFailed(1, said), said).toBe(true);
    expect(allocationFailed(0, "MemoryError")).toBe(false);
    expect(allocationFailed(1, "Traceback (most recent call last):\nValueError: bad input")).toBe(false);
    expect(allocationFailed(null, "fatal error: runtime: out of memory")).toBe(true);
  });

  it("a cgroup tree that cannot be made says why (only rlimits then apply)", () => {
    const fake = mkdtempSync(join(tmpdir(), "fake-cgroup-"));
    expect(makeCgroupParents(fake, new Map())).toBe("no cgroup file system at /sys/fs/cgroup");
    writeFileSync(join(fake, "cgroup.controllers"), "cpu io\n");
    expect(makeCgroupParents(fake, new Map([["", "/"]]))).toBe(
      "the pids and memory controllers are not available to evalgate's cgroup",
    );
    writeFileSync(join(fake, "cgroup.controllers"), "cpu pids memory\n");
    // A parent an earlier evalgate left (its process gone) is swept; a live one's is kept.
    mkdirSync(join(fake, "evalgate-999999999", "p1"), { recursive: true });
    mkdirSync(join(fake, `evalgate-${process.pid}`));
    const v2 = makeCgroupParents(fake, new Map([["", "/"]]), "evalgate-test");
    expect(
      readdirSync(fake)
        .filter((entry) => entry.startsWith("evalgate-"))
        .sort(),
    ).toEqual([`evalgate-${process.pid}`, "evalgate-test"]);
    expect(v2).toEqual({ version: 2, dirs: [join(fake, "evalgate-test")] });
    if (typeof v2 !== "string") {
      // A plain directory stands in for cgroupfs: the group's files are written as the kernel would take them.
      const group = createLimitGroup(v2, small);
      const [dir] = group.procsFiles.map((file) => join(file, ".."));
      expect([readFileSync(join(dir!, "memory.max"), "utf8"), readFileSync(join(dir!, "pids.max"), "utf8")]).toEqual([
        String(small.memoryBytes),
        "64",
      ]);
      expect(group.hit()).toBeNull();
      writeFileSync(join(dir!, "memory.events"), "low 0\noom 1\noom_kill 1\n");
      expect(group.hit()).toBe("memory");
    }
    rmSync(fake, { recursive: true, force: true });
  });
});

describe.skipIf(!support.available || process.getuid?.() !== 0 || typeof cgroupParents() === "string")(
  "the cgroup path (root)",
  () => {
    const run = (script: string, timeoutMs = 60_000) =>
      runProcess({
        command: "/usr/bin/python3",
        args: ["-c", script],
        cwd: work,
        env: { PATH: "/usr/bin:/bin" },
        timeoutMs,
        graceMs: 1000,
        sandbox: { writable: [work], limits: small },
      });

    it("a fork bomb is stopped at its process limit and recorded as such, long before its deadline", async () => {
      const started = Date.now();
      const outcome = await run(FORK_BOMB);
      expect(outcome.limits).toEqual({ mechanism: "cgroup", values: small });
      expect(outcome.limitHit).toBe("pids");
      expect(outcome.stopReason).toBe("resource_limit");
      expect(Date.now() - started).toBeLessThan(30_000);
    }, 180_000);

    it("a memory bomb is killed by its memory limit, recorded as such; the harness's memory stays bounded", async () => {
      const before = peakRssMib();
      const outcome = await run(MEMORY_BOMB);
      expect(outcome.limitHit).toBe("memory");
      expect(outcome.exitCode === 0).toBe(false);
      expect(peakRssMib() - before).toBeLessThan(100);
    }, 180_000);

    it("a disk fill stops at the file-size limit", async () => {
      const outcome = await runProcess({
        command: "/bin/sh",
        args: ["-c", "head -c 100M /dev/zero > fill; echo $?"],
        cwd: work,
        env: { PATH: "/usr/bin:/bin" },
        timeoutMs: 60_000,
        sandbox: { writable: [work], limits: small },
      });
      expect(outcome.stdout.toString("utf8").trim()).not.toBe("0");
      expect(statSync(join(work, "fill")).size).toBe(small.diskBytes);
      rmSync(join(work, "fill"));
    }, 180_000);

    it("a well-behaved process hits nothing, and its groups are removed afterwards", async () => {
      const outcome = await run("print('ok')");
      expect(outcome).toMatchObject({ exitCode: 0, limitHit: null, stopReason: null });
      const parents = cgroupParents();
      if (typeof parents !== "string")
        for (const dir of parents.dirs)
          expect(spawnSync("find", [dir, "-mindepth", "1", "-type", "d"], { encoding: "utf8" }).stdout).toBe("");
      expect(limitMechanism()).toBe("cgroup");
    }, 180_000);

    it("the harness lowers its own OOM score once it starts a sandbox where the kernel lets it (CAP_SYS_RESOURCE)", () => {
      const capabilities = BigInt(
        `0x${/CapEff:\s+([0-9a-f]+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? "0"}`,
      );
      const mayLower = (capabilities & (1n << 24n)) !== 0n;
      expect(Number(readFileSync("/proc/self/oom_score_adj", "utf8"))).toBe(mayLower ? HARNESS_OOM_SCORE_ADJ : 0);
    });
  },
);

/**
 * Many files each under the file-size limit, written as fast as the SUT can (at most 400 MiB, then it
 * waits for its deadline): the total must be stopped while it runs, on both mechanisms.
 */
const MANY_FILES =
  "import os, time\nblock = b'x' * (1024 * 1024)\nfor i in range(400):\n    with open('f%d' % i, 'wb') as f:\n        f.write(block)\ntime.sleep(120)\n";

/** Bytes allocated under `dir` (du -sB1), as the host's disk sees them. */
const duBytes = (dir: string): number =>
  Number(spawnSync("du", ["-sB1", dir], { encoding: "utf8" }).stdout.split("\t")[0]);

describe.runIf(support.available)("a total disk limit enforced while the process runs", () => {
  for (const rlimitsOnly of [false, true]) {
    it(`many 1 MiB files (each under the file-size limit) are stopped near the disk limit, recorded as disk (${rlimitsOnly ? "rlimit" : limitMechanism()})`, async () => {
      const dir = mkdtempSync(join(work, "fill-"));
      chmodSync(dir, 0o777);
      const outcome = await runProcess({
        command: "/usr/bin/python3",
        args: ["-c", MANY_FILES],
        cwd: dir,
        env: { PATH: "/usr/bin:/bin" },
        timeoutMs: 90_000,
        graceMs: 500,
        sandbox: { writable: [dir], limits: small, rlimitsOnly },
      });
      const onDisk = duBytes(dir);
      console.log(
        `disk fill (${outcome.limits?.mechanism}): stopped after ${outcome.durationMs} ms with ${(onDisk / MIB).toFixed(1)} MiB on disk (limit ${small.diskBytes / MIB} MiB)`,
      );
      expect(outcome).toMatchObject({ limitHit: "disk", stopReason: "resource_limit" });
      expect(limitHitDetail(outcome)).toMatch(/^disk limit \(32 MiB\) reached, enforced by (cgroup|rlimit)$/);
      // The overshoot is what the SUT writes between two checks (200 ms at least, more under load).
      expect(onDisk).toBeLessThan(small.diskBytes + 256 * MIB);
      expect(outcome.durationMs).toBeLessThan(60_000);
      rmSync(dir, { recursive: true, force: true });
    }, 240_000);
  }

  it("counts what is allocated: a sparse file, hard links once", async () => {
    const dir = mkdtempSync(join(work, "alloc-"));
    writeFileSync(join(dir, "sparse"), "");
    truncateSync(join(dir, "sparse"), 1024 * MIB);
    writeFileSync(join(dir, "one"), Buffer.alloc(MIB, 1));
    linkSync(join(dir, "one"), join(dir, "two"));
    const used = await allocatedBytes([dir, join(dir, "missing")], 64 * MIB);
    expect(used).toBeGreaterThanOrEqual(MIB);
    expect(used).toBeLessThan(2 * MIB);
    expect(await allocatedBytes([dir], 1024)).toBeGreaterThan(1024);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe.runIf(support.available && process.getuid?.() === 0)(
  "the rlimit path (an ordinary user, no cgroup of its own)",
  () => {
    const user = "evalgate-sbx-test";
    let uid = 0;
    beforeAll(() => {
      if (spawnSync("id", ["-u", user]).status !== 0)
        expect(spawnSync("useradd", ["--no-create-home", user]).status).toBe(0);
      uid = Number(spawnSync("id", ["-u", user], { encoding: "utf8" }).stdout.trim());
    });

    /** Runs `script` (Python) in a sandbox started by a harness running as the scratch user; its outcome as JSON. */
    function asUser(script: string, limits = small, timeoutMs = 60_000): Promise<Record<string, unknown>> {
      const dir = join(work, `u${Math.random().toString(36).slice(2)}`);
      mkdirSync(dir);
      chmodSync(dir, 0o777);
      const harness = `import { limitHitDetail, runProcess } from ${JSON.stringify(join(import.meta.dirname, "index.ts"))};
      const o = await runProcess({ command: "/usr/bin/python3", args: ["-c", ${JSON.stringify(script)}], cwd: ${JSON.stringify(dir)}, env: {}, timeoutMs: ${timeoutMs}, graceMs: 500, sandbox: { writable: [${JSON.stringify(dir)}], limits: ${JSON.stringify(limits)} } });
      const peak = Number(/VmHWM:\\s+(\\d+)/.exec(require("fs").readFileSync("/proc/self/status", "utf8"))[1]) / 1024;
      console.log(JSON.stringify({ limits: o.limits, limitHit: o.limitHit, detail: limitHitDetail(o), exitCode: o.exitCode, stopReason: o.stopReason, durationMs: o.durationMs, stdout: o.stdout.toString().trim(), harnessPeakMib: peak }));`;
      return new Promise((resolve, reject) => {
        const child = spawn(
          "/usr/bin/setpriv",
          [
            `--reuid=${uid}`,
            `--regid=${uid}`,
            "--clear-groups",
            "--",
            process.execPath,
            "--conditions=@eval/source",
            "--input-type=module",
            "-e",
            `import { createRequire } from "node:module"; const require = createRequire(import.meta.url); ${harness}`,
          ],
          { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
        );
        let out = "";
        let err = "";
        child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
        child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
        child.on("close", () => {
          try {
            resolve(JSON.parse(out.trim().split("\n").at(-1) ?? "") as Record<string, unknown>);
          } catch {
            reject(new Error(`harness as ${user} said: ${out}${err}`));
          }
        });
      });
    }

    it("a fork bomb gets no more processes than its limit (the kernel refuses the forks); the harness is unaffected", async () => {
      const counting =
        "import os, sys, time\nkids = 0\nfor i in range(500):\n    try:\n        pid = os.fork()\n    except OSError:\n        break\n    if pid == 0:\n        time.sleep(30)\n        os._exit(0)\n    kids += 1\nprint(kids)\nsys.stdout.flush()\nos._exit(0)\n";
      const outcome = await asUser(counting);
      expect(outcome.limits).toMatchObject({ mechanism: "rlimit" });
      expect(Number(outcome.stdout)).toBeGreaterThan(0);
      expect(Number(outcome.stdout)).toBeLessThan(small.pids);
    }, 180_000);

    it("a memory bomb fails at its data limit, not the host's; the harness stays small", async () => {
      const outcome = await asUser(MEMORY_BOMB + "\n");
      expect(outcome.exitCode).not.toBe(0);
      expect(outcome.exitCode).not.toBeNull();
      expect(outcome.harnessPeakMib as number).toBeLessThan(300);
    }, 180_000);

    it("a disk fill stops at the file-size limit", async () => {
      const outcome = await asUser(
        "import os\ntry:\n    open('fill', 'wb').write(b'0' * (64 * 1024 * 1024))\nexcept OSError as e:\n    print(e.errno)\nprint(os.path.getsize('fill'))\n",
      );
      expect(String(outcome.stdout).split("\n")).toEqual(["27", String(small.diskBytes)]);
    }, 180_000);

    rlimitAttacks((script, timeoutMs) => asUser(script, small, timeoutMs));
  },
);

describe.runIf(support.available && process.getuid?.() === 0)(
  "the rlimit path forced as root (rlimitsOnly: what a root without a usable cgroup gets)",
  () => {
    rlimitAttacks(async (script, timeoutMs) => {
      // Its own directory: what other tests left in theirs would count against its disk limit.
      const dir = mkdtempSync(join(work, "root-rlimit-"));
      const outcome = await runProcess({
        command: "/usr/bin/python3",
        args: ["-c", script],
        cwd: dir,
        env: { PATH: "/usr/bin:/bin" },
        timeoutMs,
        graceMs: 500,
        sandbox: { writable: [dir], limits: small, rlimitsOnly: true },
      });
      return { ...outcome, detail: limitHitDetail(outcome), stdout: outcome.stdout.toString("utf8").trim() };
    });
  },
);

/**
 * On the rlimit path the kernel refuses a fork or an allocation but says nothing: a fork bomb must still be
 * stopped and recorded as the pids limit, a memory bomb as the memory limit, and a plain failure must stay one.
 */
function rlimitAttacks(run: (script: string, timeoutMs: number) => Promise<Record<string, unknown>>): void {
  it("a fork bomb is stopped at its process limit and recorded as such, long before its deadline", async () => {
    const outcome = await run(FORK_BOMB, 120_000);
    expect(outcome.limits).toMatchObject({ mechanism: "rlimit" });
    expect(outcome).toMatchObject({
      limitHit: "pids",
      stopReason: "resource_limit",
      detail: "pids limit (64 processes) reached, enforced by rlimit",
    });
    expect(outcome.durationMs as number).toBeLessThan(60_000);
  }, 240_000);

  it("a memory bomb fails at its memory limit and is recorded as such", async () => {
    const outcome = await run(MEMORY_BOMB, 120_000);
    expect(outcome.limits).toMatchObject({ mechanism: "rlimit" });
    expect(outcome).toMatchObject({ limitHit: "memory", detail: "memory limit (256 MiB) reached, enforced by rlimit" });
    expect(outcome.exitCode).not.toBe(0);
  }, 240_000);

  it("a program that fails on its own, one that says MemoryError but succeeds, and one with a few processes hit nothing", async () => {
    for (const script of [
      "import sys\nsys.exit(1)\n",
      "import sys\nprint('MemoryError', file=sys.stderr)\n",
      "import os, time\nfor _ in range(8):\n    if os.fork() == 0:\n        time.sleep(1)\n        os._exit(0)\nfor _ in range(8):\n    os.wait()\n",
    ]) {
      const outcome = await run(script, 60_000);
      expect(outcome, script).toMatchObject({ limitHit: null, stopReason: null });
    }
  }, 240_000);
}
