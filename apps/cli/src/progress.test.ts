import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { progressLine, runProgress } from "./progress.ts";
import type { EvalgateContext } from "./context.ts";

const context = (isTTY: boolean, env: NodeJS.ProcessEnv) => {
  const stderr = Object.assign(new PassThrough(), { isTTY });
  const chunks: string[] = [];
  stderr.on("data", (chunk: Buffer) => chunks.push(chunk.toString()));
  return {
    ctx: {
      stderr,
      stdout: new PassThrough(),
      stdin: new PassThrough(),
      env,
      cwd: "/",
      colorDepth: 1,
    } as unknown as EvalgateContext,
    chunks,
  };
};
const state = (done: number, total: number, failures?: number) => ({
  done,
  total,
  cacheHits: 0,
  costUsd: 0,
  etaMs: null,
  ...(failures === undefined ? {} : { failures }),
});

describe("progress", () => {
  it("formats done/total, failures, cache hits, cost and ETA", () => {
    expect(progressLine({ done: 3, total: 10, cacheHits: 1, costUsd: 0.5, etaMs: 95_000 })).toBe(
      "evalgate run: 3/10 cases, 1 cached, $0.5000, ETA 1m35s",
    );
    expect(progressLine({ done: 3, total: 10, cacheHits: 1, costUsd: 0.5, etaMs: 95_000, failures: 2 })).toBe(
      "evalgate run: 3/10 cases, 2 failed, 1 cached, $0.5000, ETA 1m35s",
    );
    expect(progressLine(state(0, 10))).toMatch(/ETA --$/);
    expect(progressLine({ ...state(9, 10), etaMs: 1200 })).toMatch(/ETA 2s$/);
  });

  it("on a terminal: a line from the start, rewritten in place, cleared at the end; nothing with quiet", () => {
    expect(runProgress(context(true, {}).ctx, { quiet: true, taskClass: "t" })).toBeNull();
    const { ctx, chunks } = context(true, { CI: "false" });
    const progress = runProgress(ctx, { quiet: false, taskClass: "upper" })!;
    expect(chunks.join("")).toContain("evalgate run: planning upper...");
    progress.update(state(1, 2));
    progress.finish();
    expect(chunks.join("")).toContain("\r\x1b[2Kevalgate run: 1/2 cases");
    expect(chunks.at(-1)).toBe("\r\x1b[2K");
  });

  it("outside a terminal (or in CI): whole lines at the start, every N cases, at the end", () => {
    for (const [isTTY, env] of [
      [false, {}],
      [true, { CI: "true" }],
    ] as const) {
      const { ctx, chunks } = context(isTTY, env);
      const progress = runProgress(ctx, { quiet: false, taskClass: "t", everyCases: 3, intervalMs: 60_000 })!;
      for (let done = 0; done <= 7; done += 1) progress.update(state(done, 8, Math.floor(done / 2)));
      progress.finish();
      expect(
        chunks
          .join("")
          .split("\n")
          .filter(Boolean)
          .map((line) => line.replace(/, 0 cached.*$/, "")),
      ).toEqual([
        "evalgate run: 0/8 cases, 0 failed",
        "evalgate run: 3/8 cases, 1 failed",
        "evalgate run: 6/8 cases, 3 failed",
        "evalgate run: 7/8 cases, 3 failed",
      ]);
    }
  });

  it("outside a terminal: a line at least every interval while no case finishes (a real timer)", async () => {
    const { ctx, chunks } = context(false, {});
    const progress = runProgress(ctx, { quiet: false, taskClass: "t", everyCases: 100, intervalMs: 50 })!;
    progress.update(state(1, 1000));
    const started = Date.now();
    while (chunks.length < 3 && Date.now() - started < 10_000) await new Promise((resolve) => setTimeout(resolve, 20));
    progress.finish();
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    expect(chunks.every((chunk) => chunk === "evalgate run: 1/1000 cases, 0 cached, $0.0000, ETA --\n")).toBe(true);
  });
});
