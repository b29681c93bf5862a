import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MIN_NODE_VERSION, nodeVersionProblem } from "./node-version.ts";

const cli = join(import.meta.dirname, "..");
const OLD_NODE = "/usr/bin/node";
const oldNodeVersion = existsSync(OLD_NODE)
  ? execFileSync(OLD_NODE, ["-p", "process.versions.node"], { encoding: "utf8" }).trim()
  : null;

describe("the Node version check", () => {
  it("accepts the minimum and anything newer, refuses anything older in one line", () => {
    for (const ok of [MIN_NODE_VERSION, "22.18.1", "22.19.0", "23.0.0", "24.11.1", "v26.0.0"])
      expect(nodeVersionProblem(ok), ok).toBeNull();
    for (const old of ["22.17.9", "22.0.0", "20.20.2", "18.19.0"]) {
      expect(nodeVersionProblem(old), old).toBe(
        `evalgate: Node ${old} is too old: evalgate needs Node >= 22.18.0 (24 recommended); install it and put it first on PATH, or in a clone run ./scripts/setup.sh (it puts one in .toolchain/) and use ./scripts/evalgate\n`,
      );
    }
  });

  it("agrees with the engines field of the package", () => {
    const manifest = JSON.parse(readFileSync(join(cli, "package.json"), "utf8")) as { engines: { node: string } };
    expect(manifest.engines.node).toBe(`>=${MIN_NODE_VERSION}`);
  });

  it.skipIf(oldNodeVersion === null || nodeVersionProblem(oldNodeVersion) === null)(
    "the built binary on the machine's old Node says which Node it needs (was: a raw SyntaxError about enableCompileCache)",
    () => {
      const result = spawnSync(OLD_NODE, [join(cli, "dist", "bin.js"), "--version"], { encoding: "utf8" });
      expect(result.status).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toBe(nodeVersionProblem(oldNodeVersion!));
    },
  );
});
