import { describe, expect, it } from "vitest";
import {
  entriesOf,
  floorOf,
  lockfileProblems,
  overrideFor,
  overrideKeyName,
  overriddenNames,
  resolveFrom,
  section,
  type Lockfile,
} from "../npm-project.ts";

const lock: Lockfile = {
  lockfileVersion: 3,
  packages: {
    "": { dependencies: { a: "^1.0.0" } },
    "node_modules/a": { version: "1.2.0", dependencies: { b: "^2.0.0", c: "^1.0.0" } },
    "node_modules/a/node_modules/b": { version: "2.1.0", dependencies: { c: "^1.0.0" } },
    "node_modules/b": { version: "1.0.0" },
    "node_modules/c": { version: "1.4.0" },
    "node_modules/linked": { link: true, dependencies: { missing: "^1.0.0" } },
  },
};

describe("npm resolution", () => {
  it("walks up the node_modules chain the way Node does", () => {
    expect(resolveFrom(lock, "node_modules/a", "b")).toBe("node_modules/a/node_modules/b");
    expect(resolveFrom(lock, "node_modules/a/node_modules/b", "c")).toBe("node_modules/c");
    expect(resolveFrom(lock, "", "b")).toBe("node_modules/b");
    expect(resolveFrom(lock, "node_modules/a", "zzz")).toBeNull();
  });

  it("lists every copy of a package", () => {
    expect(entriesOf(lock, "b")).toEqual([
      { path: "node_modules/a/node_modules/b", version: "2.1.0" },
      { path: "node_modules/b", version: "1.0.0" },
    ]);
  });

  it("accepts a consistent tree and skips linked packages", () => {
    expect(lockfileProblems({ dependencies: { a: "^1.0.0" } }, lock)).toEqual([]);
  });

  it("reports a root entry that no longer mirrors package.json", () => {
    expect(lockfileProblems({ dependencies: { a: "^1.1.0" } }, lock)).toEqual([
      "package-lock.json root dependencies differ from package.json dependencies",
    ]);
  });

  it("reports a direct dependency missing from the lockfile, but not an optional one", () => {
    const problems = lockfileProblems(
      { dependencies: { a: "^1.0.0", d: "^1.0.0" }, optionalDependencies: { e: "^1.0.0" } },
      lock,
    );
    expect(problems).toContain("d (dependencies ^1.0.0) is not in package-lock.json");
    expect(problems.join("\n")).not.toContain("e (optionalDependencies");
  });

  it("reports a nested dependency that resolves outside its range unless an override says so", () => {
    const skewed: Lockfile = { ...lock, packages: { ...lock.packages, "node_modules/c": { version: "2.0.0" } } };
    expect(lockfileProblems({ dependencies: { a: "^1.0.0" } }, skewed)).toContain(
      "node_modules/a needs c@^1.0.0 but resolves node_modules/c@2.0.0",
    );
    expect(lockfileProblems({ dependencies: { a: "^1.0.0" }, overrides: { c: "2.0.0" } }, skewed)).toEqual([]);
  });
});

describe("manifest reading", () => {
  it("reads override keys with ranges and scopes", () => {
    expect(overrideKeyName("tough-cookie")).toBe("tough-cookie");
    expect(overrideKeyName("qs@<6.5.3")).toBe("qs");
    expect(overrideKeyName("@scope/pkg@1")).toBe("@scope/pkg");
    const manifest = {
      overrides: { "@scope/pkg@1": "1.2.3", foo: { ".": "2.0.0", bar: "1.0.0" }, baz: { qux: "1.0.0" } },
    };
    expect(overrideFor(manifest, "@scope/pkg")).toBe("1.2.3");
    expect(overrideFor(manifest, "foo")).toBe("2.0.0");
    expect(overrideFor(manifest, "baz")).toBeNull();
    expect(overrideFor({}, "foo")).toBeNull();
    expect([...overriddenNames(manifest)].sort()).toEqual(["@scope/pkg", "bar", "baz", "foo", "qux"]);
  });

  it("has no floor for specs that are not semver ranges", () => {
    expect(floorOf("^4.17.20")).toBe("4.17.20");
    expect(floorOf("github:lodash/lodash")).toBeNull();
    expect(floorOf("latest")).toBeNull();
    expect(floorOf("*")).toBe("0.0.0");
  });

  it("ignores non-string entries of a section", () => {
    expect(section({ dependencies: { a: "1", b: 2 } }, "dependencies")).toEqual({ a: "1" });
    expect(section({ dependencies: ["a"] }, "dependencies")).toEqual({});
  });
});
