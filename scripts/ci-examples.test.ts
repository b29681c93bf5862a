// The CI files this repository ships are checked, not just read: action.yml and the workflows against the
// SchemaStore action and workflow schemas (@action-validator/core), the Kubernetes manifests against the
// Kubernetes API schemas (kubernetes-models; kubeconform is not available here), and action.yml's shell
// steps run in order through the built CLI as a runner would run them (its `uses:` steps, the cache and
// the artifact upload, are GitHub's own and are not imitated: the state directory simply stays in place).
import { execFile } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { validateAction, validateWorkflow } from "@action-validator/core";
import { Job } from "kubernetes-models/batch/v1";
import { PersistentVolumeClaim } from "kubernetes-models/v1";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, parseAllDocuments } from "yaml";

const run = promisify(execFile);
const repo = join(import.meta.dirname, "..");
const actionSource = readFileSync(join(repo, "action.yml"), "utf8");

interface ActionStep {
  readonly name?: string;
  readonly run?: string;
  readonly uses?: string;
  readonly id?: string;
  readonly if?: string;
  readonly env?: Record<string, string>;
  readonly "working-directory"?: string;
}
const action = parse(actionSource) as {
  inputs: Record<string, { required: boolean; default?: string }>;
  runs: { using: string; steps: ActionStep[] };
};

describe("schemas", () => {
  it("action.yml is a valid composite action (SchemaStore github-action schema)", () => {
    expect(validateAction(actionSource).errors).toEqual([]);
    expect(action.runs.using).toBe("composite");
    expect(
      Object.entries(action.inputs)
        .filter(([, input]) => input.required)
        .map(([name]) => name),
    ).toEqual(["task-class", "sut"]);
  });

  it("the workflow examples and the workflow evalgate init writes are valid workflows (SchemaStore github-workflow schema)", async () => {
    const { workflowYaml } = await import("../packages/registry/src/scaffold-templates.ts");
    const sources = [
      ...readdirSync(join(repo, "examples", "github-actions")).map((name) =>
        readFileSync(join(repo, "examples", "github-actions", name), "utf8"),
      ),
      ...["npx evalgate", "pnpm exec evalgate", "yarn evalgate", "bunx evalgate"].map((runner) =>
        workflowYaml("answers", runner),
      ),
    ];
    for (const source of sources) expect(validateWorkflow(source).errors).toEqual([]);
  });

  it("a broken action or workflow is caught (the validator is not a no-op)", () => {
    expect(validateAction(actionSource.replace("using: composite", "using: compositee")).errors).not.toEqual([]);
    expect(validateWorkflow("name: x\non: push\njobs:\n  a:\n    steps: 3\n").errors).not.toEqual([]);
  });

  it("the Kubernetes example: valid Jobs and claim, every container non-root with what bubblewrap needs, images pinned", () => {
    const docs = parseAllDocuments(
      readFileSync(join(repo, "examples", "kubernetes", "evalgate-sharded.yaml"), "utf8"),
    ).map((doc) => doc.toJS() as { kind: string });
    expect(docs.map((doc) => doc.kind)).toEqual(["PersistentVolumeClaim", "Job", "Job", "Job"]);
    for (const doc of docs) {
      const model = doc.kind === "Job" ? new Job(doc as never) : new PersistentVolumeClaim(doc as never);
      expect(() => model.validate(), doc.kind).not.toThrow();
      if (doc.kind !== "Job") continue;
      const pod = (
        doc as unknown as {
          spec: {
            template: { spec: { containers: Array<{ image: string; securityContext: Record<string, unknown> }> } };
          };
        }
      ).spec.template.spec;
      for (const container of pod.containers) {
        expect(container.image).not.toMatch(/:latest$|^[^:@]+$/);
        expect(container.securityContext).toMatchObject({
          runAsNonRoot: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ["ALL"] },
          seccompProfile: { type: "Unconfined" },
          appArmorProfile: { type: "Unconfined" },
        });
      }
    }
    const broken = {
      ...docs[1],
      spec: { template: { spec: { containers: [{ name: "x", image: "y", securityContext: { runAsUser: "root" } }] } } },
    };
    expect(() => new Job(broken as never).validate()).toThrow();
  });
});

describe("action.yml's steps, run as a runner would", () => {
  let project: string;
  let temp: string;

  beforeAll(async () => {
    temp = mkdtempSync(join(tmpdir(), "evalgate-action-"));
    project = join(temp, "project");
    mkdirSync(join(project, "node_modules", ".bin"), { recursive: true });
    mkdirSync(join(project, "node_modules", "@eval"), { recursive: true });
    for (const name of ["registry", "models", "errors", "rubric-protocol"])
      symlinkSync(join(repo, "packages", name), join(project, "node_modules", "@eval", name));
    // What `npm install -D evalgate` puts there: an executable evalgate.
    writeFileSync(
      join(project, "node_modules", ".bin", "evalgate"),
      `#!/bin/sh\nexec "${process.execPath}" "${join(repo, "apps", "cli", "dist", "bin.js")}" "$@"\n`,
      { mode: 0o755 },
    );
    writeFileSync(join(project, "package.json"), JSON.stringify({ name: "team", private: true, type: "module" }));
    writeFileSync(
      join(project, "solver.mjs"),
      'import { readFileSync, writeFileSync } from "node:fs";\nconst r = JSON.parse(readFileSync(0, "utf8"));\nwriteFileSync(r.workspace_path + "/answer.txt", "42\\n");\nprocess.stdout.write("{}");\n',
    );
    await run(join(project, "node_modules", ".bin", "evalgate"), ["init", "--task-class", "answers", "--no-workflow"], {
      cwd: project,
    });
  }, 120_000);
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  /** Runs every `run:` step (and `if: always()` ones after a failure), with inputs and outputs substituted. */
  async function runAction(
    inputs: Record<string, string>,
    runnerTemp: string,
  ): Promise<{ failedStep: string | null; outputs: Record<string, string>; log: string }> {
    mkdirSync(runnerTemp, { recursive: true });
    const files = {
      GITHUB_ENV: join(runnerTemp, "env"),
      GITHUB_OUTPUT: join(runnerTemp, "output"),
      GITHUB_STEP_SUMMARY: join(runnerTemp, "summary"),
    };
    for (const file of Object.values(files)) writeFileSync(file, "");
    const values = {
      ...Object.fromEntries(Object.entries(action.inputs).map(([name, input]) => [name, input.default ?? ""])),
      ...inputs,
    };
    const outputs: Record<string, string> = {};
    const expand = (text: string) =>
      text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expression: string) => {
        const input = /^inputs\.([\w-]+)$/.exec(expression);
        if (input) return values[input[1]!] ?? "";
        const output = /^steps\.run\.outputs\.([\w-]+)$/.exec(expression);
        if (output) return outputs[output[1]!] ?? "";
        throw new Error(`unexpected expression ${expression}`);
      });
    const readPairs = (path: string) =>
      Object.fromEntries(
        readFileSync(path, "utf8")
          .split("\n")
          .filter((line) => line.includes("="))
          .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
      );
    let failedStep: string | null = null;
    let log = "";
    for (const step of action.runs.steps) {
      if (step.run === undefined || (failedStep !== null && !step.if?.startsWith("always()"))) continue;
      if (step.if?.includes("steps.run.outputs.exit-code != ''") && outputs["exit-code"] === undefined) continue;
      const env = {
        PATH: process.env.PATH,
        HOME: temp,
        RUNNER_TEMP: runnerTemp,
        ...files,
        ...readPairs(files.GITHUB_ENV),
        ...Object.fromEntries(Object.entries(step.env ?? {}).map(([key, value]) => [key, expand(value)])),
      };
      const cwd = join(project, expand(step["working-directory"] ?? "."));
      const result = await run("bash", ["-e", "-c", expand(step.run)], { cwd, env }).then(
        (done) => ({ code: 0, ...done }),
        (error: { code: number; stdout: string; stderr: string }) => error,
      );
      log += `## ${step.name}\n${result.stdout}${result.stderr}`;
      if (step.id === "run") Object.assign(outputs, readPairs(files.GITHUB_OUTPUT));
      if (result.code !== 0 && failedStep === null) failedStep = step.name ?? "?";
    }
    return { failedStep, outputs, log };
  }

  it(
    "runs, gates, writes the JUnit file, the summary, the report and a new anchor; a missing anchor is a warning",
    { timeout: 300_000 },
    async () => {
      const first = await runAction(
        { "task-class": "answers", sut: `command:node ${join(project, "solver.mjs")}`, "min-lower-bound": "0.01" },
        join(temp, "runner-1"),
      );
      expect(first.failedStep, first.log).toBeNull();
      expect(first.log).toContain("::warning::no anchor at evalgate-anchor.json");
      expect(first.outputs).toMatchObject({
        "exit-code": "0",
        "lower-bound": "0.05",
        "run-id": expect.stringMatching(/^\d{8}T\d{6}Z-/),
      });
      const out = join(temp, "runner-1", "evalgate-out");
      expect(readdirSync(out).sort()).toEqual([
        "evalgate-anchor.json",
        "junit.xml",
        "report.html",
        "run.jsonl",
        "summary.md",
      ]);
      expect(readFileSync(join(out, "junit.xml"), "utf8")).toMatch(
        /<testcase classname="evalgate.answers" name="example-1"/,
      );
      expect(readFileSync(join(temp, "runner-1", "summary"), "utf8")).toContain("answers");
    },
  );

  it("the gate fails a bound below min-lower-bound, after uploading the results", { timeout: 300_000 }, async () => {
    const gated = await runAction(
      { "task-class": "answers", sut: `command:node ${join(project, "solver.mjs")}`, "min-lower-bound": "0.6" },
      join(temp, "runner-2"),
    );
    expect(gated.failedStep).toBe("Gate");
    expect(gated.log).toContain("::error::lower bound 0.05 is below the gate's 0.6");
    expect(existsSync(join(temp, "runner-2", "evalgate-out", "evalgate-anchor.json"))).toBe(true);
  });

  it(
    "with the anchor committed, a lost state directory fails the job before anything runs (the chain never restarts silently)",
    { timeout: 300_000 },
    async () => {
      writeFileSync(
        join(project, "evalgate-anchor.json"),
        readFileSync(join(temp, "runner-2", "evalgate-out", "evalgate-anchor.json")),
      );
      const kept = await runAction(
        { "task-class": "answers", sut: `command:node ${join(project, "solver.mjs")}` },
        join(temp, "runner-3"),
      );
      expect(kept.failedStep, kept.log).toBeNull();
      rmSync(join(project, ".evalgate"), { recursive: true });
      const lost = await runAction(
        { "task-class": "answers", sut: `command:node ${join(project, "solver.mjs")}` },
        join(temp, "runner-4"),
      );
      expect(lost.failedStep).toBe("Check the chain extends the committed anchor");
      expect(lost.log).toMatch(/the expected head is not in the chain/);
      expect(
        existsSync(join(project, ".evalgate", "runs")) &&
          readdirSync(join(project, ".evalgate", "runs")).some((name) => name.endsWith(".json")),
      ).toBe(false);
    },
  );
});
