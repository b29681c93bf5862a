// cases/digests.yaml is written by the yaml package (sign.ts) and read by js-yaml (case-loader.ts, for
// speed): every case id and file name must read back exactly as written, whatever it looks like.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readDigestsFile } from "./case-loader.ts";
import type { Finding } from "./findings.ts";
import { signBench } from "./sign.ts";

const root = mkdtempSync(join(tmpdir(), "evalgate-digests-file-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("cases/digests.yaml, written by sign and read by the loader", () => {
  it("keeps case ids and file names that look like numbers, dates, booleans or null as the strings they are", async () => {
    const benchPath = join(root, "bench", "odd");
    const ids = ["0001", "1_000", "1e3", "0b101", "0x1f", "2026-01-01", "null", "true", "yes", "no", "1.50"];
    for (const id of ids) {
      mkdirSync(join(benchPath, "cases", id, "input"), { recursive: true });
      mkdirSync(join(benchPath, "cases", id, "expected"), { recursive: true });
      writeFileSync(join(benchPath, "cases", id, "input", "~"), id);
      writeFileSync(join(benchPath, "cases", id, "expected", "1_000"), id);
    }
    await signBench({ benchPath, name: "odd" });
    const findings: Finding[] = [];
    const digests = await readDigestsFile({ name: "odd", benchPath }, findings);
    expect(findings).toEqual([]);
    expect(Object.keys(digests!.cases).sort()).toEqual([...ids].sort());
    for (const id of ids) expect(Object.keys(digests!.cases[id]!.files).sort()).toEqual(["expected/1_000", "input/~"]);
  });
});
