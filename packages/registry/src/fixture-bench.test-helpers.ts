// Builds throwaway benches for tests: a copy of __fixtures__/demo-bench in a temp dir, with a
// node_modules that resolves @eval/* to this workspace (as a bench package in the repo would), signed.
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signBench } from "./sign.ts";

const packagesDir = join(import.meta.dirname, "..", "..");
export const TEMPLATE_BENCH = join(import.meta.dirname, "__fixtures__", "demo-bench");

export interface FixtureBench {
  readonly root: string;
  readonly benchRoot: string;
  /** bench/uppercase */
  readonly benchPath: string;
  cleanup(): void;
}

export async function makeFixtureBench(options: { sign?: boolean } = {}): Promise<FixtureBench> {
  const root = mkdtempSync(join(tmpdir(), "evalgate-bench-"));
  const benchRoot = join(root, "bench");
  cpSync(TEMPLATE_BENCH, benchRoot, { recursive: true });
  mkdirSync(join(root, "node_modules", "@eval"), { recursive: true });
  for (const name of ["registry", "models", "errors", "rubric-protocol"]) {
    symlinkSync(join(packagesDir, name), join(root, "node_modules", "@eval", name));
  }
  const benchPath = join(benchRoot, "uppercase");
  if (options.sign ?? true) await signBench({ benchPath });
  return { root, benchRoot, benchPath, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}
