// The config file through the built CLI: relative paths resolve against the file's directory, from a
// subdirectory, from elsewhere with --bench-root, and a new state directory is announced.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EvalgateConfigSchema } from "@eval/models";
import { runBuiltCli } from "./test-helpers.ts";
import { makeUpperBench } from "./commands/run.test-helpers.ts";

const REPO = join(import.meta.dirname, "..", "..", "..");
let bench: { root: string; benchRoot: string; benchPath: string };
const elsewhere = mkdtempSync(join(tmpdir(), "evalgate-elsewhere-"));
const records = (state: string) =>
  existsSync(join(state, "runs")) ? readdirSync(join(state, "runs")).filter((name) => name.endsWith(".json")) : [];
const lastLine = (stdout: string) => JSON.parse(stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;

beforeAll(async () => {
  bench = await makeUpperBench({ "a-1": "alpha" });
  const tiers = readFileSync(join(REPO, "docs", "trust-tiers.yaml"), "utf8");
  mkdirSync(join(bench.root, "config"));
  writeFileSync(
    join(bench.root, "config", "tiers.yaml"),
    `${tiers.slice(0, tiers.indexOf("\ncurrent:"))}\ncurrent:\n  upper: untrusted\n`,
  );
  mkdirSync(join(bench.root, "sub", "deeper"), { recursive: true });
});
afterAll(async () => {
  await rm(bench.root, { recursive: true, force: true });
  await rm(elsewhere, { recursive: true, force: true });
});

describe("evalgate.config.json", () => {
  it("its relative paths resolve against its own directory: from a subdirectory and from elsewhere with --bench-root, one state, one chain", async () => {
    const config = {
      $schema: "./node_modules/@eval/models/schemas/evalgate-config.schema.json",
      bench_root: "bench",
      state_dir: "var/state",
      trust_tiers: "config/tiers.yaml",
    };
    writeFileSync(join(bench.root, "evalgate.config.json"), JSON.stringify(config));
    const state = join(bench.root, "var", "state");
    const sut = ["--sut", `module:${join(bench.root, "sut.mjs")}#upper`, "--quiet"];

    const fromSub = await runBuiltCli(["run", "--task-class", "upper", ...sut, "--with-verdict"], {
      cwd: join(bench.root, "sub", "deeper"),
    });
    expect(fromSub.code, fromSub.stderr).toBe(0);
    expect(records(state)).toHaveLength(1);
    // The state directory did not exist: the run says which one it starts and why there.
    expect(fromSub.stderr).toContain(`"code":"state.new"`);
    expect(fromSub.stderr).toContain(
      `started a new state directory ${state} (state_dir from ${join(bench.root, "evalgate.config.json")})`,
    );

    const fromElsewhere = await runBuiltCli(["run", "--task-class", "upper", "--bench-root", bench.benchRoot, ...sut], {
      cwd: elsewhere,
    });
    expect(fromElsewhere.code, fromElsewhere.stderr).toBe(0);
    expect(lastLine(fromElsewhere.stdout)).toMatchObject({ cache_hits: 1 });
    expect(fromElsewhere.stderr).not.toContain("state.new");
    expect(records(state)).toHaveLength(2);
    expect(readdirSync(elsewhere)).toEqual([]);

    const verify = await runBuiltCli(["verify"], { cwd: join(bench.root, "sub") });
    expect(verify.code, verify.stderr).toBe(0);
    expect(verify.stdout).toContain('"records":2');
  }, 180_000);

  it("without any config file, the state is the working directory's, and a run that starts one says so", async () => {
    const other = await makeUpperBench({ "b-1": "beta" });
    const cwd = mkdtempSync(join(tmpdir(), "evalgate-cwd-"));
    try {
      const argv = [
        "run",
        "--task-class",
        "upper",
        "--bench-root",
        other.benchRoot,
        "--sut",
        `module:${join(other.root, "sut.mjs")}#upper`,
        "--quiet",
      ];
      const first = await runBuiltCli(argv, { cwd });
      expect(first.code, first.stderr).toBe(0);
      expect(records(join(cwd, ".evalgate"))).toHaveLength(1);
      expect(first.stderr).toContain(
        `started a new state directory ${join(cwd, ".evalgate")} (the default, in ${cwd}: no evalgate.config.json`,
      );
      const second = await runBuiltCli(argv, { cwd });
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).not.toContain("state.new");
      expect(records(join(cwd, ".evalgate"))).toHaveLength(2);
      // A refused command starts nothing and says nothing about it.
      const refused = await runBuiltCli(["run", "--task-class", "nope", "--bench-root", other.benchRoot], {
        cwd: elsewhere,
      });
      expect(refused.code).toBe(3);
      expect(refused.stderr.trim().split("\n")).toHaveLength(1);
      expect(readdirSync(elsewhere)).toEqual([]);
    } finally {
      await rm(other.root, { recursive: true, force: true });
      await rm(cwd, { recursive: true, force: true });
    }
  }, 180_000);

  it("has a published JSON Schema that the models' zod schema generates", () => {
    const schema = JSON.parse(
      readFileSync(join(REPO, "packages", "models", "schemas", "evalgate-config.schema.json"), "utf8"),
    ) as { properties: Record<string, unknown>; additionalProperties: boolean };
    expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(EvalgateConfigSchema.shape).sort());
    expect(schema.additionalProperties).toBe(false);
    const models = JSON.parse(readFileSync(join(REPO, "packages", "models", "package.json"), "utf8")) as {
      files: string[];
      exports: Record<string, string>;
    };
    expect(models.files).toContain("schemas");
    expect(models.exports["./schemas/*"]).toBe("./schemas/*");
  });
});
