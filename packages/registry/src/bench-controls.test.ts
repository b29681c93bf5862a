// Reading a bench's controls: near-misses.yaml and a case's controls/controls.json, each malformed shape
// refused with the file and field named.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { BenchCase } from "@eval/models";
import { readCaseControls, readNearMissKinds } from "./bench-controls.ts";

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "evalgate-controls-"))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const benchCase = () => ({ case_id: "c", case_path: join(dir, "c") }) as BenchCase;
function controls(value: unknown, dirs: string[] = ["reference", "near"]): void {
  for (const name of dirs) mkdirSync(join(dir, "c", "controls", name), { recursive: true });
  mkdirSync(join(dir, "c", "controls"), { recursive: true });
  writeFileSync(join(dir, "c", "controls", "controls.json"), typeof value === "string" ? value : JSON.stringify(value));
}
const valid = {
  schema: "evalgate.bench-controls.v1",
  reference: "reference",
  near_misses: { near: { expect: "boom" }, far: { not_applicable: "why" } },
};

describe("readNearMissKinds", () => {
  it("is empty without near-misses.yaml and lists the declared kinds in order", () => {
    expect(readNearMissKinds(dir)).toEqual([]);
    writeFileSync(join(dir, "near-misses.yaml"), "b-kind:\n  description: B\na-kind:\n  description: A\n");
    expect(readNearMissKinds(dir)).toEqual([
      { name: "b-kind", description: "B" },
      { name: "a-kind", description: "A" },
    ]);
  });

  it.each([
    ["[1, 2]", "must map each near-miss kind"],
    ["Bad Kind:\n  description: x\n", 'near-miss kind "Bad Kind" must be lowercase'],
    ["ok:\n  note: x\n", 'near-miss kind "ok" needs a description'],
    ["a: [\n", "not valid YAML"],
  ])("refuses %j", (text, message) => {
    writeFileSync(join(dir, "near-misses.yaml"), text);
    expect(() => readNearMissKinds(dir)).toThrow(message);
  });
});

describe("readCaseControls", () => {
  it("is null without controls.json and reads the reference and near misses", () => {
    expect(readCaseControls(benchCase())).toBeNull();
    controls(valid);
    expect(readCaseControls(benchCase())).toEqual({
      reference: join(dir, "c", "controls", "reference"),
      nearMisses: [
        { kind: "near", directory: join(dir, "c", "controls", "near"), expect: "boom" },
        { kind: "far", notApplicable: "why" },
      ],
    });
  });

  it.each([
    ["{", "not valid JSON"],
    [{ ...valid, schema: "v0" }, 'schema: must be "evalgate.bench-controls.v1"'],
    [{ ...valid, reference: 1 }, "reference: must name the reference fix's directory"],
    [{ ...valid, near_misses: [] }, "near_misses: must map each near-miss kind"],
    [{ ...valid, near_misses: { near: { expected: "x" } } }, 'near_misses.near: needs "expect"'],
    [{ ...valid, reference: "../../etc" }, "controls/../../etc/ is not a directory"],
    [{ ...valid, near_misses: { absent: { expect: "x" } } }, "controls/absent/ is not a directory"],
  ])("refuses %j", (value, message) => {
    controls(value);
    expect(() => readCaseControls(benchCase())).toThrow(message);
  });
});
