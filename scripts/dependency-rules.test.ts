// Proves the dependency-cruiser rules bite: plants one violation of each kind in a temporary copy of the
// repo and asserts `depcruise` fails naming the rule and the planted file. Without this, a cruiser that
// cannot parse TypeScript would report "no violations (0 modules)" and pass everything.
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const repo = join(import.meta.dirname, "..");
const depcruise = join(repo, "node_modules", ".bin", "depcruise");
const SKIP = new Set(["node_modules", "dist", "coverage", ".git", ".toolchain", ".evalgate"]);

function copyRepo(): string {
  const target = mkdtempSync(join(tmpdir(), "evalgate-depcruise-"));
  cpSync(repo, target, {
    recursive: true,
    verbatimSymlinks: true,
    // Package-level node_modules hold only relative pnpm symlinks: copy them, so links stay inside the copy.
    filter: (source) => {
      const rel = relative(repo, source);
      const top = rel.split("/")[0] ?? "";
      if (rel === "") return true;
      if (rel.split("/").length === 1)
        return (!SKIP.has(top) && !top.startsWith(".")) || top === ".dependency-cruiser.cjs";
      return !/(^|\/)(dist|coverage)(\/|$)/.test(rel);
    },
  });
  symlinkSync(join(repo, "node_modules"), join(target, "node_modules"));
  return target;
}

function plant(root: string, path: string, text: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), text);
}

/** Makes `@eval/<name>` (or another workspace package) resolvable from `fromDir`, as a declared dep would. */
function link(root: string, fromDir: string, packageName: string, targetDir: string): void {
  const linkPath = join(root, fromDir, "node_modules", packageName);
  mkdirSync(dirname(linkPath), { recursive: true });
  rmSync(linkPath, { force: true, recursive: true });
  symlinkSync(relative(dirname(linkPath), join(root, targetDir)), linkPath);
}

async function cruise(root: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(
      depcruise,
      ["packages", "apps", "bench", "--config", ".dependency-cruiser.cjs", "--output-type", "err-long"],
      { cwd: root },
    );
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, output: failure.stdout + failure.stderr };
  }
}

const packageDirs = readdirSync(join(repo, "packages")).map((name) => `packages/${name}`);
const benchDirs = (() => {
  try {
    return readdirSync(join(repo, "bench"), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `bench/${e.name}`);
  } catch {
    return [];
  }
})();

describe("dependency rules", () => {
  let clean: string;
  let planted: string;
  let result: { code: number; output: string };

  beforeAll(async () => {
    clean = copyRepo();
    planted = copyRepo();
    for (const dir of [...packageDirs, "apps/cli", ...benchDirs]) {
      plant(planted, `${dir}/src/planted-llm.ts`, 'import OpenAI from "openai";\nexport const client = OpenAI;\n');
    }
    plant(
      planted,
      "packages/runner/src/planted-sdks.ts",
      'import "@anthropic-ai/sdk";\nimport "@langchain/core";\nimport "ai";\nimport "@google/genai";\n',
    );
    plant(planted, "packages/registry/src/planted-relative.ts", 'export * from "../../models/src/index.ts";\n');
    link(planted, "packages/models", "@eval/errors", "packages/errors");
    plant(planted, "packages/models/src/planted-layer.ts", 'export * from "@eval/errors";\n');
    link(planted, "packages/runner", "@eval/cli-subscription-adapters", "packages/cli-subscription-adapters");
    plant(planted, "packages/runner/src/planted-adapter.ts", 'export * from "@eval/cli-subscription-adapters";\n');
    link(planted, "packages/promotion", "evalgate", "apps/cli");
    plant(planted, "packages/promotion/src/planted-app.ts", 'export * from "evalgate";\n');
    plant(planted, "packages/errors/src/cycle-a.ts", 'import { b } from "./cycle-b.ts";\nexport const a = () => b;\n');
    plant(planted, "packages/errors/src/cycle-b.ts", 'import { a } from "./cycle-a.ts";\nexport const b = () => a;\n');
    plant(planted, "packages/models/src/planted-undeclared.ts", 'export { describe } from "vitest";\n');
    link(planted, "bench/migration-chainguard-distroless", "@eval-bench/vuln-remediation", "bench/vuln-remediation");
    plant(
      planted,
      "bench/migration-chainguard-distroless/scripts/planted-bench.ts",
      'export * from "@eval-bench/vuln-remediation/breakdown-keys.ts";\n',
    );
    plant(planted, "packages/cache/src/planted-test-utils.ts", 'export * from "@eval/test-utils";\n');
    // The two leaves know nothing above them: durable-fs imports none of ours, state-layout not the chain.
    link(planted, "packages/durable-fs", "@eval/errors", "packages/errors");
    plant(planted, "packages/durable-fs/src/planted-layer.ts", 'export * from "@eval/errors";\n');
    link(planted, "packages/state-layout", "@eval/audit-chain", "packages/audit-chain");
    plant(planted, "packages/state-layout/src/planted-layer.ts", 'export * from "@eval/audit-chain";\n');
    // The adapters drive CLIs; turning one into a SUT is @eval/agent-sut's job, never the other way round.
    link(planted, "packages/cli-subscription-adapters", "@eval/agent-sut", "packages/agent-sut");
    plant(planted, "packages/cli-subscription-adapters/src/planted-layer.ts", 'export * from "@eval/agent-sut";\n');
    link(planted, "packages/agent-sut", "@eval/promotion", "packages/promotion");
    plant(planted, "packages/agent-sut/src/planted-layer.ts", 'export * from "@eval/promotion";\n');
    [, result] = await Promise.all([
      cruise(clean).then((r) => expect(r, r.output).toMatchObject({ code: 0 })),
      cruise(planted),
    ]);
  }, 120_000);

  afterAll(() => {
    for (const dir of [clean, planted]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("fails when any rule is broken, and actually parsed the TypeScript", () => {
    expect(result.code).toBeGreaterThan(0);
    expect(result.output).toMatch(/[1-9]\d* modules/);
  });

  it.each([...packageDirs, "apps/cli", ...benchDirs])("bans an LLM SDK import in %s", (dir) => {
    expect(result.output).toContain(`no-llm-sdk: ${dir}/src/planted-llm.ts → `);
  });

  it.each(["@anthropic-ai/sdk", "@langchain/core", "ai", "@google/genai"])("bans %s", (sdk) => {
    expect(result.output).toMatch(
      new RegExp(`no-llm-sdk: packages/runner/src/planted-sdks.ts → (node_modules/)?${sdk.replace("/", "\\/")}`),
    );
  });

  it.each([
    ["no-cross-package-relative-import", "packages/registry/src/planted-relative.ts"],
    ["layer-models", "packages/models/src/planted-layer.ts"],
    ["layer-runner", "packages/runner/src/planted-adapter.ts"],
    ["layer-durable-fs", "packages/durable-fs/src/planted-layer.ts"],
    ["layer-state-layout", "packages/state-layout/src/planted-layer.ts"],
    ["layer-cli-subscription-adapters", "packages/cli-subscription-adapters/src/planted-layer.ts"],
    ["layer-agent-sut", "packages/agent-sut/src/planted-layer.ts"],
    ["no-import-of-apps", "packages/promotion/src/planted-app.ts"],
    ["no-circular", "packages/errors/src/cycle-a.ts"],
    ["no-undeclared-dependency", "packages/models/src/planted-undeclared.ts"],
    ["no-bench-imports-bench", "bench/migration-chainguard-distroless/scripts/planted-bench.ts"],
    ["test-utils-only-in-tests", "packages/cache/src/planted-test-utils.ts"],
  ])("names %s for %s", (rule, file) => {
    expect(result.output).toContain(`${rule}: ${file} → `);
  });
});
