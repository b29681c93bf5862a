// gc and the temporary files of atomic replaces (`<file>.replacing-<pid>-...`): a writer killed mid-write leaves
// one, which gc removes once its pid is gone; a live writer's is left alone. Real processes, real replaces.
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { replaceFileSync } from "@eval/durable-fs";
import { collectGarbage } from "./gc.ts";

let root: string;
const children: ChildProcess[] = [];
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "evalgate-gc-replace-"));
});
afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
  rmSync(root, { recursive: true, force: true });
});

const content = (n: number): string => `${JSON.stringify({ n, pad: "x".repeat(8 << 20) })}\n`;

/**
 * A process rewriting `target` in a loop with durable-fs's replace (8 MiB each), stopped (SIGSTOP) at a moment
 * its temporary file exists: a writer caught mid-write. The child and that file's path.
 */
async function writerStoppedMidWrite(target: string): Promise<{ child: ChildProcess; temp: string }> {
  const child = spawn(
    process.execPath,
    [
      "--conditions=@eval/source",
      "--input-type=module",
      "-e",
      `import { replaceFileSync } from "@eval/durable-fs";
       process.stdout.write("go\\n");
       for (let n = 0; ; n += 1)
         replaceFileSync(${JSON.stringify(target)}, JSON.stringify({ n, pad: "x".repeat(8 << 20) }) + "\\n", { survives: "crash" });`,
    ],
    { cwd: import.meta.dirname, stdio: ["ignore", "pipe", "inherit"] },
  );
  children.push(child);
  await new Promise((resolve) => child.stdout!.once("data", resolve));
  const prefix = `${basename(target)}.replacing-${child.pid}-`;
  for (let attempt = 0; attempt < 200; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
    child.kill("SIGSTOP");
    const temp = readdirSync(dirname(target)).find((name) => name.startsWith(prefix));
    if (temp !== undefined) return { child, temp: join(dirname(target), temp) };
    child.kill("SIGCONT");
  }
  throw new Error("the writer was never stopped between a temporary file's creation and its rename");
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
}

const TWO_MINUTES_AGO = new Date(Date.now() - 120_000);

describe("gc and a replace killed mid-write", () => {
  it("removes the temporary file of a writer SIGKILLed mid-write once it is a minute old; leaves a live writer's; the files replaced stay whole", async () => {
    const stateDir = join(root, "state");
    mkdirSync(join(root, "tmp"));
    const pointer = join(stateDir, "runs", ".index", "head.json");
    const history = join(stateDir, "runs", ".index", "history.json");
    for (const path of [pointer, history]) {
      mkdirSync(dirname(path), { recursive: true });
      replaceFileSync(path, content(-1));
    }
    const killed = await writerStoppedMidWrite(pointer);
    const live = await writerStoppedMidWrite(history);
    await kill(killed.child);
    expect(existsSync(killed.temp)).toBe(true);

    // Killed a moment ago: gc cannot tell it from another pid namespace's live write yet.
    expect((await collectGarbage({ stateDir, tempParent: join(root, "tmp") })).removedStaleFiles).toEqual([]);
    for (const temp of [killed.temp, live.temp]) utimesSync(temp, TWO_MINUTES_AGO, TWO_MINUTES_AGO);
    const result = await collectGarbage({ stateDir, tempParent: join(root, "tmp") });
    expect(result.removedStaleFiles).toEqual([killed.temp]);
    expect(existsSync(killed.temp)).toBe(false);
    // The live writer (stopped mid-write, not dead) keeps its temporary file and finishes its rename.
    expect(existsSync(live.temp)).toBe(true);
    live.child.kill("SIGCONT");
    await new Promise((resolve) => setTimeout(resolve, 200));
    await kill(live.child);
    // Each replaced file is whole: the old content or a new one, never a part.
    for (const path of [pointer, history]) expect(JSON.parse(readFileSync(path, "utf8")).pad).toHaveLength(8 << 20);

    // The live writer killed too: whatever it left is removed once old enough, and nothing else is.
    for (const name of readdirSync(dirname(history)).filter((name) => name.includes(".replacing-")))
      utimesSync(join(dirname(history), name), TWO_MINUTES_AGO, TWO_MINUTES_AGO);
    await collectGarbage({ stateDir, tempParent: join(root, "tmp") });
    expect(readdirSync(dirname(history)).sort()).toEqual(["head.json", "history.json"]);
  }, 120_000);
});
