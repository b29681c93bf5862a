import { blake3Digest } from "@eval/hashing";
import { digestDirectory } from "./digest.ts";
import { lockedDependencyClosure } from "./lockfiles/dependency-closure.ts";

/** Bench files that do not decide a score: cases (digested per case), tests, docs, installed modules. */
export function isOutsideRubric(relativePath: string): boolean {
  const top = relativePath.split("/")[0]!;
  return (
    top === "cases" ||
    top === "node_modules" ||
    top === "tests" ||
    relativePath.endsWith(".md") ||
    relativePath.endsWith(".test.ts")
  );
}

const RUBRIC_TAG = Buffer.from("evalgate.rubric.v1\0", "utf8");

/**
 * `blake3:<hex>` = BLAKE3("evalgate.rubric.v1\0" ‖ tree digest ‖ "\n" ‖ dependency closure), where the
 * tree digest is the case-tree serialization of the bench directory without cases/, tests/,
 * node_modules/, *.md and *.test.ts (so registration.ts, rubric.ts and every module it imports,
 * breakdown-keys.ts, failure_modes.yaml and package.json count), and the closure is
 * `lockedDependencyClosure` (every lockfile kind, lockfiles/dependency-closure.ts).
 */
export async function computeRubricDigest(benchPath: string): Promise<string> {
  const tree = await digestDirectory(benchPath, { exclude: isOutsideRubric });
  return blake3Digest(
    RUBRIC_TAG,
    Buffer.from(tree.digest, "utf8"),
    Buffer.from("\n"),
    Buffer.from(lockedDependencyClosure(benchPath), "utf8"),
  );
}
