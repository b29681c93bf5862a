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

  it("keeps the sandbox limits it sets, sizes in bytes; refuses a limit out of bounds or not a size, naming it", () => {
    const registration = registerTaskClass("big", {
      min_cases_for_promotion: {},
      limits: { sut: { pids: 4096, memory: "8GiB", disk: 2 * 1024 ** 3 }, rubric: { memory: "512MiB" } },
    });
    expect(registration.options.limits).toEqual({
      sut: { pids: 4096, memory: 8 * 1024 ** 3, disk: 2 * 1024 ** 3 },
      rubric: { memory: 512 * 1024 ** 2 },
    });
    for (const [limits, message] of [
      [
        { sut: { memory: "lots" } },
        /options\.limits\.sut\.memory: must be a size between 64 MiB and 1 TiB \(e\.g\. "4GiB"\), got "lots"/,
      ],
      [{ sut: { memory: 0 } }, /options\.limits\.sut\.memory: must be a size between/],
      [{ rubric: { disk: "4GB" } }, /options\.limits\.rubric\.disk: must be a size/],
      [{ sut: { pids: 2 } }, /options\.limits\.sut\.pids/],
      [{ agent: { pids: 64 } }, /options\.limits/],
    ] as const)
      expect(() => registerTaskClass("big", { min_cases_for_promotion: {}, limits } as never)).toThrow(message);
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
