import { afterEach, describe, expect, it } from "vitest";
import { isEvalError } from "@eval/errors";
import { isTaskClassRegistration, registerTaskClass } from "./registration.ts";
import { TaskClassRegistry } from "./task-class-registry.ts";
import type { TaskClass } from "./task-class.ts";

function taskClass(name: string, registrationPath: string): TaskClass {
  return {
    name,
    benchPath: `/b/${name}`,
    registrationPath,
    description: null,
    minCasesForPromotion: {},
    minCases: 1,
    scoreKind: "graded",
    breakdownKeys: new Set(),
    failureModeTaxonomy: {},
    rubricCommand: null,
    rubricPath: `/b/${name}/rubric.ts`,
    agent: null,
    rubricDigest: `blake3:${"0".repeat(64)}`,
  };
}

describe("registerTaskClass", () => {
  it("returns frozen data with defaults, recognisable across package copies", () => {
    const registration = registerTaskClass("demo-class", { min_cases_for_promotion: { bronze: 3 } });
    expect(isTaskClassRegistration(registration)).toBe(true);
    expect(registration.name).toBe("demo-class");
    expect(registration.options).toEqual({
      min_cases_for_promotion: { bronze: 3 },
      min_cases: 1,
      score_kind: "graded",
    });
    expect(Object.isFrozen(registration.options.min_cases_for_promotion)).toBe(true);
    expect(isTaskClassRegistration({ name: "x" })).toBe(false);
    expect(isTaskClassRegistration(null)).toBe(false);
  });

  it("keeps a rubric command and a description", () => {
    const registration = registerTaskClass("py", {
      min_cases_for_promotion: {},
      rubric_command: ["python3", "rubric.py"],
      description: "d",
      min_cases: 4,
    });
    expect(registration.options).toEqual({
      min_cases_for_promotion: {},
      min_cases: 4,
      score_kind: "graded",
      rubric_command: ["python3", "rubric.py"],
      description: "d",
    });
  });

  it("keeps what it declares about agents: the files a solution edits, per-adapter model and flags", () => {
    const agent = {
      edits: ["package.json", "src/**"],
      adapters: { pi: { model: "m", args: ["--provider", "stub"] }, codex: {} },
    };
    const registration = registerTaskClass("agentic", { min_cases_for_promotion: {}, agent });
    expect(registration.options.agent).toEqual(agent);
    expect(registration.options.agent).not.toBe(agent);
  });

  it.each([
    [
      "ok",
      { min_cases_for_promotion: {}, agent: { adapters: { cursor: { model: "m" } } } },
      /options\.agent\.adapters: .*cursor/,
    ],
    ["ok", { min_cases_for_promotion: {}, agent: { edits: [] } }, /options\.agent\.edits/],
    [
      "ok",
      { min_cases_for_promotion: {}, agent: { adapters: { pi: { model: "" } } } },
      /options\.agent\.adapters\.pi\.model/,
    ],
    ["ok", { min_cases_for_promotion: {}, agent: { model: "m" } }, /options\.agent/],
  ])("rejects a bad agent declaration (%#)", (name, options, message) => {
    expect(() => registerTaskClass(name, options as never)).toThrow(message);
  });

  it.each([
    ["Not A Slug", { min_cases_for_promotion: {} }, /task class name/],
    ["ok", { min_cases_for_promotion: { bronze: 0 } }, /options\.min_cases_for_promotion\.bronze/],
    ["ok", { min_cases_for_promotion: {}, min_cases: 0 }, /options\.min_cases/],
    ["ok", { min_cases_for_promotion: {}, rubric_command: [] }, /options\.rubric_command/],
    ["ok", { min_cases_for_promotion: {}, extra: 1 }, /options/],
  ])("rejects bad arguments (%s)", (name, options, message) => {
    expect(() => registerTaskClass(name, options as never)).toThrow(message);
  });
});

describe("TaskClassRegistry", () => {
  let registry = new TaskClassRegistry();
  afterEach(() => {
    registry = new TaskClassRegistry();
  });

  it("registers, gets and lists by name", () => {
    registry.register(taskClass("b-class", "/b/b-class/registration.ts"));
    registry.register(taskClass("a-class", "/b/a-class/registration.ts"));
    expect(registry.get("a-class").name).toBe("a-class");
    expect(registry.has("b-class")).toBe(true);
    expect(registry.all().map((entry) => entry.name)).toEqual(["a-class", "b-class"]);
  });

  it("is idempotent for the same origin and names both origins on a collision", () => {
    const first = registry.register(taskClass("dup", "/b/dup/registration.ts"));
    expect(registry.register(taskClass("dup", "/b/dup/registration.ts"))).toBe(first);
    let caught: unknown;
    try {
      registry.register(taskClass("dup", "/elsewhere/registration.ts"));
    } catch (error) {
      caught = error;
    }
    expect(isEvalError(caught) && caught.code).toBe("EVAL_TASK_CLASS_ALREADY_REGISTERED");
    expect((caught as Error).message).toContain("/b/dup/registration.ts");
    expect((caught as Error).message).toContain("/elsewhere/registration.ts");
  });

  it("lists what is available when a name is not registered", () => {
    registry.register(taskClass("there", "/b/there/registration.ts"));
    expect(() => registry.get("missing")).toThrow(/no task class named "missing".*available: there/);
  });
});
