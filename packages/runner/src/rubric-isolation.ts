// Runs a task class's rubric as an isolated subprocess: the runner never imports a rubric.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { mkdir, readdir, realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { formatIssues, RubricResponseSchema, safeParseWire } from "@eval/models";
import type { IsolationClass, RubricRequest, RubricResponse } from "@eval/models";
import {
  limitHitDetail,
  nodeInstallDir,
  realOrSelf,
  runProcess,
  SandboxUnavailable,
  sandboxSupport,
} from "@eval/sandbox";
import type { ProcessOutcome, ResourceLimits, SandboxPolicy } from "@eval/sandbox";

/** What a rubric launch needs from the task class (a subset of @eval/registry's TaskClass). */
export interface RubricSource {
  readonly benchPath: string;
  readonly rubricCommand: readonly string[] | null;
  readonly rubricPath: string | null;
}

export interface RubricLimits {
  /** stdout beyond this kills the rubric (default 8 MiB). */
  readonly maxStdoutBytes?: number;
  /** stderr beyond this kills the rubric (default 1 MiB). */
  readonly maxStderrBytes?: number;
}

export interface StreamExcerpt {
  readonly text: string;
  readonly bytes: number;
  readonly truncated: boolean;
}

export interface RubricProcessReport {
  readonly argv: readonly string[];
  /** The rubric's pid, which is also its process group id (null when it never started). */
  readonly pid: number | null;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly outputCapped: boolean;
  readonly aborted: boolean;
  readonly wallClockMs: number;
  readonly stdout: StreamExcerpt;
  readonly stderr: StreamExcerpt;
}

export type RubricOutcome =
  | { readonly kind: "ok"; readonly response: RubricResponse; readonly process: RubricProcessReport }
  | { readonly kind: "timeout"; readonly process: RubricProcessReport }
  | { readonly kind: "aborted"; readonly process: RubricProcessReport }
  | { readonly kind: "malformed"; readonly detail: string; readonly process: RubricProcessReport }
  /** The sandboxed rubric hit its process-count, memory or disk limit (the detail names which). */
  | { readonly kind: "resource_limit"; readonly detail: string; readonly process: RubricProcessReport };

export interface RubricRunInput {
  readonly request: RubricRequest;
  /** Directories the rubric may read besides its bench and dependencies: the case and the SUT workspace. */
  readonly readablePaths: readonly string[];
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
}

/**
 * The environment a rubric gets: nothing inherited from the harness (no secrets, no HOME, no USER,
 * no NODE_OPTIONS), a minimal PATH, a fixed locale and time zone, and TMPDIR inside its own cwd.
 */
export function scrubbedRubricEnv(cwd: string, compileCacheDir: string | null = null): Record<string, string> {
  return {
    PATH: "/usr/local/bin:/usr/bin:/bin",
    LANG: "C.UTF-8",
    TZ: "UTC",
    TMPDIR: cwd,
    ...(compileCacheDir === null ? {} : { NODE_COMPILE_CACHE: compileCacheDir }),
  };
}

const EXCERPT_BYTES = 64 * 1024;

let netnsProbe: string | null | undefined;

/** The absolute path of `unshare` when it can create an empty network namespace here (probed once). */
export function networkNamespaceWrapper(): string | null {
  if (netnsProbe !== undefined) return netnsProbe;
  netnsProbe = null;
  for (const candidate of ["/usr/bin/unshare", "/bin/unshare"]) {
    if (!existsSync(candidate)) continue;
    const probe = spawnSync(candidate, ["--net", "--", "/bin/true"], { stdio: "ignore", timeout: 5000 });
    if (probe.status === 0) netnsProbe = candidate;
    break;
  }
  return netnsProbe;
}

/**
 * The directories a Node rubric's imports may read: the entries of the nearest node_modules at or
 * above its bench directory,
 * resolved through symlinks (pnpm links workspace packages and store directories), and transitively
 * each resolved package's dependencies: for a store package its `.pnpm/<id>/node_modules`, for a
 * workspace package its own `node_modules`. Read access is granted to exactly these directories.
 */
export async function dependencyReadPaths(benchPath: string): Promise<string[]> {
  const allowed = new Set<string>();
  const visitedModulesDirs = new Set<string>();
  const queue: string[] = [];
  // A bench package has its own node_modules; a bench outside a workspace resolves through ancestors'.
  // Node's resolver probes each ancestor's node_modules on the way up: those probes need read access too.
  const probed: string[] = [];
  for (let dir = benchPath; ; dir = dirname(dir)) {
    probed.push(join(dir, "node_modules"));
    if (existsSync(join(dir, "node_modules"))) {
      queue.push(join(dir, "node_modules"));
      break;
    }
    if (dirname(dir) === dir) {
      probed.length = 0;
      break;
    }
  }
  for (const path of probed) allowed.add(path);
  while (queue.length > 0) {
    const modulesDir = queue.pop()!;
    if (visitedModulesDirs.has(modulesDir)) continue;
    visitedModulesDirs.add(modulesDir);
    for (const packageLink of await packageEntries(modulesDir)) {
      const target = await realpath(packageLink).catch(() => null);
      if (target === null || allowed.has(target)) continue;
      allowed.add(target);
      const storeModules = enclosingModulesDir(target);
      if (storeModules !== null) {
        allowed.add(storeModules);
        queue.push(storeModules);
      }
      queue.push(join(target, "node_modules"));
    }
  }
  return [...allowed].sort();
}

async function packageEntries(modulesDir: string): Promise<string[]> {
  const names = await readdir(modulesDir).catch(() => [] as string[]);
  const out: string[] = [];
  for (const name of names) {
    if (name.startsWith(".")) continue;
    if (name.startsWith("@")) {
      for (const scoped of await readdir(join(modulesDir, name)).catch(() => [] as string[]))
        out.push(join(modulesDir, name, scoped));
    } else {
      out.push(join(modulesDir, name));
    }
  }
  return out;
}

/** For `<...>/.pnpm/<id>/node_modules/<name>` (or `@scope/<name>`), the `<...>/.pnpm/<id>/node_modules`. */
function enclosingModulesDir(packageDir: string): string | null {
  let dir = dirname(packageDir);
  if (basename(dir).startsWith("@")) dir = dirname(dir);
  return basename(dir) === "node_modules" && basename(dirname(dirname(dir))) === ".pnpm" ? dir : null;
}

export interface RubricLauncher {
  readonly isolationClass: IsolationClass;
  run(input: RubricRunInput): Promise<RubricOutcome>;
}

/**
 * Prepares the launch of a task class's rubric. Default (no declared command): the running Node on
 * `<bench>/rubric.ts` under the permission model: reads limited to its cwd, the bench directory, its
 * resolved dependencies and per case the case directory and SUT workspace; writes only to its own cwd; no
 * child processes, no workers, no native addons. A declared command (another language) gets the
 * process-level isolation only. Either way, where `unshare --net` works the rubric runs in an empty
 * network namespace. `isolationClass` says what applied.
 */
/**
 * How untrusted code runs: `bwrap`, inside the bubblewrap sandbox (the default; refused when it cannot
 * run here); `none`, as a plain subprocess with the weaker isolation described for each component.
 */
export type SandboxMode = "bwrap" | "none";

export interface RubricLauncherOptions {
  /** Default `bwrap`. */
  readonly sandbox?: SandboxMode;
  /** Where each case's rubric cwd is created (default the OS temp dir); runEval passes the run's own. */
  readonly tempRoot?: string;
  /** Without the sandbox: run in an empty network namespace where possible (default true). */
  readonly networkIsolation?: boolean;
  readonly limits?: RubricLimits;
  /** In the sandbox, its process-count, memory and disk limits (default: @eval/sandbox's defaultLimits()). */
  readonly resourceLimits?: ResourceLimits;
  /**
   * A directory for Node's compile cache (type-stripped and compiled modules), which halves a Node
   * rubric's start-up. Under the permission model Node uses it only with write access, so the rubric
   * may write there: keep one directory per rubric digest (runEval does), so a rubric can only ever
   * affect later runs of the very same rubric code. Null (default) disables it.
   */
  readonly compileCacheDir?: string | null;
}

/** The isolation a launcher with these options gives, or SandboxUnavailable when it cannot be had here. */
export function rubricIsolationClass(
  source: Pick<RubricSource, "rubricCommand">,
  options: Pick<RubricLauncherOptions, "sandbox" | "networkIsolation"> = {},
): IsolationClass {
  const usesPermissionModel = source.rubricCommand === null;
  if ((options.sandbox ?? "bwrap") === "bwrap") {
    const support = sandboxSupport();
    if (!support.available) throw new SandboxUnavailable("the rubric", support.reason);
    return usesPermissionModel ? "bwrap-permission" : "bwrap";
  }
  if (!usesPermissionModel) return "subprocess";
  return options.networkIsolation !== false && networkNamespaceWrapper() !== null
    ? "subprocess-permission-netns"
    : "subprocess-permission";
}

/**
 * In the sandbox a rubric sees: the read-only system, its bench directory with `cases/` emptied, the
 * case it scores and the SUT's workspace (read-only, named per case), its dependencies, and its own temp
 * dir as the only writable place (plus, for Node, the compile cache of this exact rubric). No network,
 * no host process, no environment but the scrubbed one.
 */
function rubricPolicy(
  benchReal: string,
  staticReads: readonly string[],
  hidden: readonly string[],
  readablePaths: readonly string[],
  cwd: string,
  compileCacheDir: string | null,
): SandboxPolicy {
  return {
    readOnly: [nodeInstallDir(), benchReal, ...staticReads, ...readablePaths],
    writable: [cwd, ...(compileCacheDir === null ? [] : [compileCacheDir])],
    hidden,
    network: false,
  };
}

/**
 * The directories holding answers among what a rubric can read: its own bench's `cases/`, and those of any
 * other task class or test fixture its dependencies reach (a bench that depends on another bench's package
 * must not read that bench's `expected/`).
 */
function answersIn(paths: readonly string[]): string[] {
  const answers = new Set<string>();
  for (const path of paths) {
    for (const candidate of [join(path, "cases"), join(path, "src", "__fixtures__"), join(path, "__fixtures__")]) {
      if (existsSync(candidate)) answers.add(candidate);
    }
  }
  return [...answers];
}

/** A Node rubric under the permission model: it reads `reads`, writes only its cwd (and the compile cache). */
function permissionModelArgv(
  reads: readonly string[],
  cwd: string,
  compileCacheDir: string | null,
  rubricPath: string,
): string[] {
  return [
    process.execPath,
    "--permission",
    // node:sqlite opens files outside the permission model: a rubric gets no such module.
    "--no-experimental-sqlite",
    ...reads.map((path) => `--allow-fs-read=${path}`),
    `--allow-fs-write=${cwd}`,
    ...(compileCacheDir === null ? [] : [`--allow-fs-read=${compileCacheDir}`, `--allow-fs-write=${compileCacheDir}`]),
    "--disable-warning=ExperimentalWarning",
    rubricPath,
  ];
}

export async function prepareRubricLauncher(
  source: RubricSource,
  options: RubricLauncherOptions = {},
): Promise<RubricLauncher> {
  const isolationClass = rubricIsolationClass(source, options);
  const sandboxed = isolationClass.startsWith("bwrap");
  const wrapper = sandboxed || options.networkIsolation === false ? null : networkNamespaceWrapper();
  const limits = {
    maxStdoutBytes: options.limits?.maxStdoutBytes ?? 8 * 1024 * 1024,
    maxStderrBytes: options.limits?.maxStderrBytes ?? 1024 * 1024,
  };
  const usesPermissionModel = source.rubricCommand === null;
  const benchReal = await realpath(source.benchPath);
  const staticReads = usesPermissionModel ? [benchReal, ...(await dependencyReadPaths(benchReal))] : [];
  const rubricPath = source.rubricPath ?? join(benchReal, "rubric.ts");
  // What the rubric must not see among what it can read: computed once per run, not per case.
  const hidden = sandboxed ? answersIn([benchReal, ...staticReads]) : [];
  let compileCacheDir: string | null = null;
  if (usesPermissionModel && options.compileCacheDir != null) {
    await mkdir(options.compileCacheDir, { recursive: true });
    compileCacheDir = await realpath(options.compileCacheDir);
  }
  return {
    isolationClass,
    async run(input) {
      // Per-case filesystem work is synchronous: a fresh empty directory, a few realpaths and its
      // removal cost tens of microseconds as direct syscalls, against a libuv thread-pool round trip
      // each (about 2 ms per case in all, measured), time in which no rubric of this slot runs.
      const cwd = realpathSync(mkdtempSync(join(options.tempRoot ?? tmpdir(), "rubric-")));
      try {
        const readablePaths = input.readablePaths.map(realOrSelf);
        const command = usesPermissionModel
          ? permissionModelArgv([cwd, ...staticReads, ...readablePaths], cwd, compileCacheDir, rubricPath)
          : [...source.rubricCommand!];
        const argv = wrapper === null ? command : [wrapper, "--net", "--", ...command];
        const outcome = await runProcess({
          command: argv[0]!,
          args: argv.slice(1),
          cwd,
          env: scrubbedRubricEnv(cwd, compileCacheDir),
          stdin: JSON.stringify(input.request),
          timeoutMs: input.timeoutMs,
          graceMs: RUBRIC_GRACE_MS,
          stdoutCapBytes: limits.maxStdoutBytes,
          stderrCapBytes: limits.maxStderrBytes,
          stderrKeepBytes: EXCERPT_BYTES,
          ...(input.signal === undefined ? {} : { signal: input.signal }),
          sandbox: sandboxed
            ? {
                ...rubricPolicy(benchReal, staticReads, hidden, readablePaths, cwd, compileCacheDir),
                ...(options.resourceLimits === undefined ? {} : { limits: options.resourceLimits }),
              }
            : null,
        });
        const limit = limitHitDetail(outcome);
        if (limit !== null && !outcome.aborted)
          return { kind: "resource_limit", detail: limit, process: processReport(outcome) };
        return classify(processReport(outcome), outcome.stdout.toString("utf8"), outcome.spawnError);
      } finally {
        // The process group is dead by now (runProcess waits for it), so nothing refills the cwd.
        rmSync(cwd, { recursive: true, force: true });
      }
    },
  };
}

/** A rubric past its deadline gets SIGTERM, then SIGKILL this much later. */
const RUBRIC_GRACE_MS = 500;

function excerpt(bytes: Buffer | string, total: number): StreamExcerpt {
  const buffer = typeof bytes === "string" ? Buffer.from(bytes, "utf8") : bytes;
  return { text: buffer.subarray(0, EXCERPT_BYTES).toString("utf8"), bytes: total, truncated: total > EXCERPT_BYTES };
}

function processReport(outcome: ProcessOutcome): RubricProcessReport {
  return {
    argv: outcome.argv,
    pid: outcome.pgid,
    exitCode: outcome.exitCode,
    signal: outcome.exitSignal,
    timedOut: outcome.timedOut,
    outputCapped: outcome.stdoutCapped || outcome.stderrCapped,
    aborted: outcome.aborted,
    wallClockMs: outcome.durationMs,
    stdout: excerpt(outcome.stdout, outcome.stdoutBytes),
    stderr: excerpt(outcome.stderr, outcome.stderrBytes),
  };
}

/** The line of stderr that says most: an error message if there is one (Node prints the source line first). */
function telling(text: string): string {
  const lines = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "");
  const error = lines.find((line) => /^[A-Za-z]*Error\b|^Error \[|ERR_[A-Z_]+/.test(line));
  return (error ?? lines[0] ?? "").slice(0, 300);
}

function classify(rubricProcess: RubricProcessReport, stdout: string, spawnError: string | null): RubricOutcome {
  if (rubricProcess.aborted) return { kind: "aborted", process: rubricProcess };
  if (rubricProcess.timedOut) return { kind: "timeout", process: rubricProcess };
  if (spawnError !== null)
    return { kind: "malformed", detail: `could not start the rubric: ${spawnError}`, process: rubricProcess };
  if (rubricProcess.outputCapped) {
    return {
      kind: "malformed",
      detail: `rubric output exceeded its cap (stdout ${rubricProcess.stdout.bytes} bytes, stderr ${rubricProcess.stderr.bytes} bytes); killed`,
      process: rubricProcess,
    };
  }
  if (rubricProcess.exitCode !== 0) {
    const why =
      rubricProcess.signal !== null ? `killed by ${rubricProcess.signal}` : `exited ${rubricProcess.exitCode}`;
    const stderr = telling(rubricProcess.stderr.text);
    return { kind: "malformed", detail: `rubric ${why}${stderr === "" ? "" : `: ${stderr}`}`, process: rubricProcess };
  }
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch (error) {
    return {
      kind: "malformed",
      detail: `rubric stdout is not one JSON document (${(error as Error).message.slice(0, 160)})`,
      process: rubricProcess,
    };
  }
  const parsed = safeParseWire(RubricResponseSchema, json);
  if (!parsed.success)
    return {
      kind: "malformed",
      detail: `rubric response is invalid: ${formatIssues(parsed.issues).slice(0, 300)}`,
      process: rubricProcess,
    };
  return { kind: "ok", response: parsed.data, process: rubricProcess };
}
