// The evalgate command lines of the scale-out examples (examples/github-actions, examples/kubernetes),
// read with a real YAML parser, so tests can check their flags and run exactly those commands.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, parseAllDocuments } from "yaml";
import { splitCommand } from "@eval/runner";

export const REPO = join(import.meta.dirname, "..", "..", "..");
export const GITHUB_WORKFLOW = join(REPO, "examples", "github-actions", "evalgate-sharded.yml");
export const KUBERNETES_MANIFEST = join(REPO, "examples", "kubernetes", "evalgate-sharded.yaml");

export interface ExampleCommand {
  /** Where it runs: the GitHub job or the Kubernetes Job's name. */
  readonly where: string;
  /** argv after `evalgate`, placeholders replaced. */
  readonly argv: string[];
}

/** Shell placeholders and the value to put in their place (longest first, so $SHARDS is not read as $SHARD + S). */
export type Placeholders = Readonly<Record<string, string>>;

function substitute(script: string, values: Placeholders): string {
  let text = script;
  for (const key of Object.keys(values).sort((a, b) => b.length - a.length)) text = text.replaceAll(key, values[key]!);
  return text;
}

/** The evalgate invocations in a shell script: segments between `&&` and newlines that start with ./scripts/evalgate. */
export function evalgateCommands(script: string, where: string, values: Placeholders): ExampleCommand[] {
  return substitute(script, values)
    .split(/&&|\n/)
    .map((segment) => segment.trim())
    .filter((segment) => segment.startsWith("./scripts/evalgate "))
    .map((segment) => ({ where, argv: splitCommand(segment.slice("./scripts/evalgate ".length)) }));
}

interface Workflow {
  readonly jobs: Record<
    string,
    {
      readonly needs?: string | string[];
      readonly strategy?: { matrix?: Record<string, unknown[]> };
      readonly steps: { run?: string; uses?: string; with?: Record<string, unknown> }[];
    }
  >;
}

export function readWorkflow(): Workflow {
  return parse(readFileSync(GITHUB_WORKFLOW, "utf8")) as Workflow;
}

/** Every evalgate command of the workflow, job by job, in order. */
export function workflowCommands(values: Placeholders): ExampleCommand[] {
  const workflow = readWorkflow();
  return Object.entries(workflow.jobs).flatMap(([job, spec]) =>
    spec.steps.flatMap((step) => (step.run === undefined ? [] : evalgateCommands(step.run, job, values))),
  );
}

export interface KubeDocument {
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly labels?: Record<string, string> };
  readonly spec: Record<string, unknown> & {
    template?: { spec: { containers: { command: string[]; args: string[] }[] } };
  };
}

export function readKubernetes(): KubeDocument[] {
  return parseAllDocuments(readFileSync(KUBERNETES_MANIFEST, "utf8")).map((document) => {
    if (document.errors.length > 0) throw new Error(`${KUBERNETES_MANIFEST}: ${document.errors[0]!.message}`);
    return document.toJS() as KubeDocument;
  });
}

/** Every evalgate command of the manifest's Jobs (their `sh -c` scripts). */
export function kubernetesCommands(values: Placeholders): ExampleCommand[] {
  return readKubernetes()
    .filter((document) => document.kind === "Job")
    .flatMap((job) =>
      job.spec.template!.spec.containers.flatMap((container) =>
        container.args.flatMap((script) => evalgateCommands(script, job.metadata.name, values)),
      ),
    );
}
