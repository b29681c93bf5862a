// The scale-out examples parse with a real YAML parser, and every evalgate command in them is one the
// CLI accepts (command and flags), checked by the CLI's own parser.
import { Builtins, Cli } from "clipanion";
import { describe, expect, it } from "vitest";
import { COMMANDS } from "./commands.ts";
import type { EvalgateContext } from "./context.ts";
import { kubernetesCommands, readKubernetes, readWorkflow, workflowCommands } from "./examples.test-helpers.ts";
import type { ExampleCommand } from "./examples.test-helpers.ts";

const commandClasses = await Promise.all(COMMANDS.map((entry) => entry.load()));

function parser(): Cli<EvalgateContext> {
  const cli = new Cli<EvalgateContext>({ binaryName: "evalgate" });
  cli.register(Builtins.HelpCommand);
  for (const command of commandClasses) cli.register(command);
  return cli;
}

/** The command's path (e.g. "run") and the flags given, as the CLI parsed them; throws on an unknown command or flag. */
function accepted(command: ExampleCommand): string {
  const parsed = parser().process(command.argv, {} as EvalgateContext);
  return (parsed.constructor as { paths?: string[][] }).paths![0]!.join(" ");
}

const flagsOf = (argv: readonly string[]): string[] => argv.filter((word) => word.startsWith("--")).sort();

describe("examples/github-actions/evalgate-sharded.yml", () => {
  const commands = workflowCommands({ "${{ matrix.shard }}": "1", $SHARDS: "4", $TASK_CLASS: "vuln-remediation" });

  it("is a plan job, a matrix of shard jobs and one merge job after them", () => {
    const workflow = readWorkflow();
    expect(Object.keys(workflow.jobs)).toEqual(["plan", "shard", "merge"]);
    expect(workflow.jobs.shard!.needs).toBe("plan");
    expect(workflow.jobs.merge!.needs).toBe("shard");
    expect(workflow.jobs.shard!.strategy!.matrix!.shard).toEqual([1, 2, 3, 4]);
    const uploads = workflow.jobs.shard!.steps.filter((step) => step.uses?.startsWith("actions/upload-artifact"));
    expect(uploads.map((step) => step.with!.path)).toEqual(["bundle-${{ matrix.shard }}"]);
    expect(
      workflow.jobs.merge!.steps.some(
        (step) => step.uses?.startsWith("actions/download-artifact") && step.with!.pattern === "bundle-*",
      ),
    ).toBe(true);
  });

  it("runs plan, run --plan --shard, merge, verify and promote-verdict, each accepted by the CLI's parser", () => {
    expect(commands.map((command) => `${command.where}: ${accepted(command)}`)).toEqual([
      "plan: plan",
      "shard: run",
      "merge: verify",
      "merge: merge",
      "merge: anchor",
      "merge: promote-verdict",
    ]);
    // Signed and anchored: the chain must extend the previous merge's anchor, and the new one is an artifact.
    expect(flagsOf(commands[2]!.argv)).toEqual(["--anchor", "--format"]);
    expect(flagsOf(commands[5]!.argv)).toEqual(["--anchor", "--format", "--task-class"]);
    const merge = readWorkflow().jobs.merge!.steps;
    expect(
      merge.some(
        (step) => step.uses?.startsWith("actions/upload-artifact") && step.with!.path === "evalgate-anchor.json",
      ),
    ).toBe(true);
    expect(
      merge.some((step) => step.uses?.startsWith("actions/download-artifact") && step.with!.name === "evalgate-anchor"),
    ).toBe(true);
    expect(flagsOf(commands[1]!.argv)).toEqual(["--bundle", "--out", "--plan", "--shard"]);
  });

  it("an unknown flag in an example would fail this check", () => {
    expect(() => accepted({ where: "x", argv: ["run", "--plan", "p.json", "--shards", "1/4"] })).toThrow(
      /Unsupported option name \("--shards"\)/,
    );
    expect(() => accepted({ where: "x", argv: ["merj", "a"] })).toThrow();
  });
});

describe("examples/kubernetes/evalgate-sharded.yaml", () => {
  it("is a shared volume, a plan Job, an Indexed shard Job (index = shard - 1) and a merge Job", () => {
    const documents = readKubernetes();
    expect(documents.map((d) => `${d.kind}/${d.metadata.name}`)).toEqual([
      "PersistentVolumeClaim/evalgate-shared",
      "Job/evalgate-plan",
      "Job/evalgate-shard",
      "Job/evalgate-merge",
    ]);
    const shard = documents[2]!;
    expect(shard.spec).toMatchObject({ completionMode: "Indexed", completions: 4, parallelism: 4 });
    expect(shard.spec.template!.spec.containers[0]!.args[0]).toContain("SHARD=$((JOB_COMPLETION_INDEX + 1))");
  });

  it("its commands are the workflow's (same commands and flags, plus a shared cache), accepted by the CLI's parser", () => {
    const kube = kubernetesCommands({ $SHARD: "1", $HOSTNAME: "pod-0" });
    expect(kube.map((command) => `${command.where}: ${accepted(command)}`)).toEqual([
      "evalgate-plan: plan",
      "evalgate-shard: run",
      "evalgate-merge: verify",
      "evalgate-merge: merge",
      "evalgate-merge: anchor",
      "evalgate-merge: promote-verdict",
    ]);
    const workflow = workflowCommands({ "${{ matrix.shard }}": "1", $SHARDS: "4", $TASK_CLASS: "vuln-remediation" });
    // The shards share a cache on the volume; the merge host's state directory lives there too.
    const extras = kube.map((command, index) =>
      flagsOf(command.argv).filter((flag) => !flagsOf(workflow[index]!.argv).includes(flag)),
    );
    expect(extras).toEqual([[], ["--cache-dir"], ["--out"], ["--out"], ["--out"], ["--out"]]);
    const missing = kube.map((command, index) =>
      flagsOf(workflow[index]!.argv).filter((flag) => !flagsOf(command.argv).includes(flag)),
    );
    expect(missing).toEqual([[], [], [], [], [], []]);
  });
});
