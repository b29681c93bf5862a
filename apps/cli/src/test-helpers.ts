// Runs the CLI in-process with captured streams (for tests).
import { PassThrough } from "node:stream";
import { runCli } from "./cli.ts";

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export async function invoke(
  argv: readonly string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on("data", (chunk: Buffer) => out.push(chunk));
  stderr.on("data", (chunk: Buffer) => err.push(chunk));
  const code = await runCli(argv, {
    stdout,
    stderr,
    stdin: new PassThrough(),
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
  });
  return { code, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") };
}

/** Runs the BUILT CLI (`apps/cli/dist/bin.js`, so `pnpm run build` first) as a subprocess. */
export async function runBuiltCli(
  argv: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<CliResult> {
  const { execFile } = await import("node:child_process");
  const { join } = await import("node:path");
  const bin = join(import.meta.dirname, "..", "dist", "bin.js");
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...argv],
      { cwd: options.cwd, env: options.env ?? { PATH: process.env.PATH }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
      },
    );
  });
}
