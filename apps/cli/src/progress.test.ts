import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { progressLine, terminalProgress } from "./progress.ts";
import type { EvalgateContext } from "./context.ts";

const context = (isTTY: boolean, env: NodeJS.ProcessEnv) => {
  const stderr = Object.assign(new PassThrough(), { isTTY });
  const chunks: string[] = [];
  stderr.on("data", (chunk: Buffer) => chunks.push(chunk.toString()));
  return { ctx: { stderr, stdout: new PassThrough(), stdin: new PassThrough(), env, cwd: "/", colorDepth: 1 } as unknown as EvalgateContext, chunks };
};

describe("progress", () => {
  it("formats done/total, cache hits, cost and ETA", () => {
    expect(progressLine({ done: 3, total: 10, cacheHits: 1, costUsd: 0.5, etaMs: 95_000 })).toBe("evalgate run: 3/10 cases, 1 cached, $0.5000, ETA 1m35s");
    expect(progressLine({ done: 0, total: 10, cacheHits: 0, costUsd: 0, etaMs: null })).toMatch(/ETA --$/);
    expect(progressLine({ done: 9, total: 10, cacheHits: 0, costUsd: 0, etaMs: 1200 })).toMatch(/ETA 2s$/);
  });

  it("writes only to a terminal, never in CI", () => {
    expect(terminalProgress(context(false, {}).ctx)).toBeNull();
    expect(terminalProgress(context(true, { CI: "true" }).ctx)).toBeNull();
    const { ctx, chunks } = context(true, { CI: "false" });
    const progress = terminalProgress(ctx)!;
    progress.update({ done: 1, total: 2, cacheHits: 0, costUsd: 0, etaMs: null });
    progress.finish();
    expect(chunks.join("")).toContain("1/2 cases");
    expect(chunks.at(-1)).toBe("\r\x1b[2K");
  });
});
