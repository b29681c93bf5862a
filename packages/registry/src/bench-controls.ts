// A bench's controls, as `evalgate bench check` reads them: the near-miss kinds a task class declares
// (`near-misses.yaml` beside registration.ts, optional) and per case `controls/controls.json` naming its
// reference fix and, for every declared kind, what the rubric must fail it with or why it does not apply.
// Each control is a directory under `controls/` whose files are laid over the case's `input/`.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { yamlPackage } from "./yaml-package.ts";
import type { BenchCase } from "@eval/models";
import { CaseLoadFailed, TaskClassInvalid } from "./errors.ts";

export const CONTROLS_SCHEMA = "evalgate.bench-controls.v1";

export interface NearMissKind {
  readonly name: string;
  readonly description: string;
}

export type NearMissControl =
  | { readonly kind: string; readonly directory: string; readonly expect: string }
  | { readonly kind: string; readonly notApplicable: string };

export interface CaseControls {
  /** The reference fix's overlay directory (absolute); null when the right change is none (a negative case). */
  readonly reference: string | null;
  readonly nearMisses: readonly NearMissControl[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const KIND = /^[a-z0-9][a-z0-9-]*$/;

/** The near-miss kinds `<bench>/near-misses.yaml` declares (none when the file is absent). */
export function readNearMissKinds(benchPath: string): NearMissKind[] {
  const path = join(benchPath, "near-misses.yaml");
  if (!existsSync(path)) return [];
  let raw: unknown;
  try {
    raw = yamlPackage().parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new TaskClassInvalid(path, `not valid YAML (${(error as Error).message.split("\n")[0]})`);
  }
  if (!isRecord(raw)) throw new TaskClassInvalid(path, "must map each near-miss kind to { description }");
  return Object.entries(raw).map(([name, value]) => {
    if (!KIND.test(name))
      throw new TaskClassInvalid(path, `near-miss kind "${name}" must be lowercase letters, digits and dashes`);
    if (!isRecord(value) || typeof value.description !== "string")
      throw new TaskClassInvalid(path, `near-miss kind "${name}" needs a description`);
    return { name, description: value.description };
  });
}

const overlay = (casePath: string, name: string, file: string): string => {
  const directory = join(casePath, "controls", name);
  if (!KIND.test(name) || !existsSync(directory) || !statSync(directory).isDirectory())
    throw new CaseLoadFailed(file, name, `controls/${name}/ is not a directory of files to lay over input/`);
  return directory;
};

/** The case's controls/controls.json, or null when the case has none. */
export function readCaseControls(benchCase: BenchCase): CaseControls | null {
  const file = join(benchCase.case_path, "controls", "controls.json");
  if (!existsSync(file)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new CaseLoadFailed(file, null, `not valid JSON (${(error as Error).message})`);
  }
  if (!isRecord(raw) || raw.schema !== CONTROLS_SCHEMA)
    throw new CaseLoadFailed(file, "schema", `must be "${CONTROLS_SCHEMA}"`);
  // null: the right change is none (a negative case). A directory cannot say so: git keeps no empty one.
  if (typeof raw.reference !== "string" && raw.reference !== null)
    throw new CaseLoadFailed(
      file,
      "reference",
      "must name the reference fix's directory under controls/, or be null when the right change is none",
    );
  const declared = raw.near_misses ?? {};
  if (!isRecord(declared))
    throw new CaseLoadFailed(file, "near_misses", "must map each near-miss kind to { expect } or { not_applicable }");
  const nearMisses = Object.entries(declared).map(([kind, value]): NearMissControl => {
    if (isRecord(value) && typeof value.expect === "string")
      return { kind, directory: overlay(benchCase.case_path, kind, file), expect: value.expect };
    if (isRecord(value) && typeof value.not_applicable === "string")
      return { kind, notApplicable: value.not_applicable };
    throw new CaseLoadFailed(file, `near_misses.${kind}`, 'needs "expect": <failure mode> or "not_applicable": <why>');
  });
  return { reference: raw.reference === null ? null : overlay(benchCase.case_path, raw.reference, file), nearMisses };
}
