// A program as the system under test (`command:`): untrusted, so it runs in the sandbox by default.
import {
  accessSync,
  chmodSync,
  constants,
  copyFileSync,
  existsSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join, resolve } from "node:path";
import { EvalError } from "@eval/errors";
import { SUT_REQUEST_SCHEMA_VERSION } from "@eval/models";
import type { SutInvocation, SutIsolation, SutOutput, SystemUnderTest } from "@eval/models";
import {
  defaultLimits,
  limitHitDetail,
  networkSupport,
  programFootprint,
  realOrSelf,
  runProcess,
  SandboxUnavailable,
  sandboxOwner,
  sandboxSupport,
  walkTreeSync,
} from "@eval/sandbox";
import type { ResourceLimits, SandboxPolicy } from "@eval/sandbox";
import type { SandboxMode } from "./rubric-isolation.ts";
import { framedDigest, treeDigest } from "@eval/hashing";
import { loadDigestCache } from "./digest-cache.ts";
import { BENCH_INVOCATION_TAG_ENV, checkSutOutput, SutAborted, SutResourceLimit } from "./sut.ts";

const SUT_GRACE_MS = 2_000;

export interface CommandSutOptions {
  /** Resolves relative program paths in argv (default process.cwd()); in the sandbox, the SUT's project (read-only). */
  readonly cwd?: string;
  /**
   * The SUT's environment. Default in the sandbox: PATH, LANG, TZ, HOME (its workspace) and the
   * invocation tag, nothing of the harness's; with `--sandbox none`, the harness's own environment.
   */
  readonly env?: NodeJS.ProcessEnv;
  /** Overrides the computed digest (e.g. a release version of the program). */
  readonly digest?: string;
  /** stdout beyond this kills the SUT (default 16 MiB). */
  readonly maxStdoutBytes?: number;
  /** Default `bwrap`: refused (SandboxUnavailable) when the sandbox cannot run here. */
  readonly sandbox?: SandboxMode;
  /**
   * In the sandbox, give the SUT outbound network: its own network namespace behind slirp4netns, without the
   * host's loopback (default false: none). Refused (EVAL_NETWORK_UNAVAILABLE) where slirp4netns is missing.
   */
  readonly network?: boolean;
  /**
   * Paths the SUT must never see, nor any directory containing or inside them: the bench root and the
   * state directory. A readable path that overlaps one is refused (EVAL_SUT_INVALID).
   */
  readonly hide?: readonly string[];
  /** More paths the sandboxed SUT may read (`--sut-read`), e.g. the directory its script imports from. */
  readonly readable?: readonly string[];
  /** Where file digests of its view are kept between runs (e.g. `<state>/file-digests.json`); absent: every file is read each time. */
  readonly digestCachePath?: string;
  /** Its process-count, memory and disk limits in the sandbox (default: @eval/sandbox's defaultLimits()). */
  readonly limits?: ResourceLimits;
  /**
   * The limits a user set for this run (flags): part of its digest, so a failure cached under one limit is
   * not served under another. (The task class's own are in the rubric digest; the defaults in neither.)
   */
  readonly limitsInDigest?: Partial<ResourceLimits>;
}

/** The absolute, real path of a program named on PATH (or relative to `base`), or null when there is none. */
export function resolveProgram(program: string, base: string, pathVariable = process.env.PATH ?? ""): string | null {
  const executable = (path: string): boolean => {
    try {
      accessSync(path, constants.X_OK);
      return statSync(path).isFile();
    } catch {
      return false;
    }
  };
  if (program.includes("/")) {
    const path = resolve(base, program);
    return executable(path) ? realpathSync(path) : null;
  }
  for (const dir of pathVariable.split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, program);
    if (executable(candidate)) return realpathSync(candidate);
  }
  return null;
}

/**
 * The SUT's identity: its argv and the full content of every path it can read (trees whole, no size
 * cut-off), file digests reused across runs from `cachePath` only for files whose device, inode, size,
 * ctime and mtime are unchanged. A path that cannot be digested refuses the SUT: a run under an unknown
 * identity could be served another program's cached scores.
 */
function viewDigest(
  argv: readonly string[],
  paths: readonly string[],
  cachePath: string | undefined,
  limits: readonly string[],
): string {
  const cache = cachePath === undefined ? undefined : loadDigestCache(cachePath);
  const parts = [...argv.map((arg) => `arg:${arg}`), ...limits];
  for (const path of paths) {
    try {
      // A path that does not exist is not in the sandbox's view either (a --sut-read path made later, say).
      parts.push(
        `view:${path}`,
        existsSync(path) ? treeDigest(path, cache === undefined ? {} : { cache: cache.entries }) : "absent",
      );
    } catch (error) {
      throw new EvalError(
        "EVAL_SUT_INVALID",
        `cannot digest ${path}, which the command SUT can read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): its identity, and so its cached scores, would be unknown`,
        { hint: "make it readable, or leave it out of --sut-read" },
      );
    }
  }
  if (cache !== undefined) cache.save();
  return framedDigest("evalgate.sut.command.v3", parts);
}

const isUnder = (path: string, dir: string): boolean =>
  path === dir || path.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
const overlaps = (a: string, b: string): boolean => isUnder(a, b) || isUnder(b, a);

/** The system's shared temp directories: never shown as a script's directory, nor any directory holding one. */
const SHARED_TEMP_DIRS = [...new Set([tmpdir(), "/tmp", "/var/tmp", "/dev/shm"].map(realOrSelf))];
/** A script's directory is shown only when walking it stays within these (else the script is copied). */
const PRIVATE_DIR_LIMITS = { maxDepth: 16, maxEntries: 10_000, maxBytes: 512 * 1024 * 1024 };

/**
 * Whether a script's directory may be shown whole: not the root, a home, a shared temp directory (or a
 * directory holding one), no `.git`, no hidden path inside or around it, and private: every entry a
 * regular file or directory owned by the directory's owner (no sockets, FIFOs, devices, symlinks, other
 * users' entries) within PRIVATE_DIR_LIMITS; as root, also readable by the sandbox's unprivileged uid.
 */
function privateScriptDir(dir: string, hidden: readonly string[]): boolean {
  const home = process.env.HOME === undefined ? null : realOrSelf(process.env.HOME);
  const aHome = (home !== null && isUnder(home, dir)) || /^\/(root|home\/[^/]+)$/.test(dir) || isUnder("/home", dir);
  if (
    dir === "/" ||
    aHome ||
    SHARED_TEMP_DIRS.some((temp) => isUnder(temp, dir)) ||
    existsSync(join(dir, ".git")) ||
    hidden.some((path) => overlaps(dir, path))
  )
    return false;
  const owner = statSync(dir);
  const readableByOthers = (mode: number, directory: boolean): boolean =>
    (mode & (directory ? 0o005 : 0o004)) === (directory ? 0o005 : 0o004);
  const sandboxUid = sandboxOwner();
  if (sandboxUid !== null && !readableByOthers(owner.mode, true)) return false;
  try {
    for (const entry of walkTreeSync(dir, PRIVATE_DIR_LIMITS)) {
      if ((entry.kind !== "file" && entry.kind !== "directory") || entry.stats.uid !== owner.uid) return false;
      if (sandboxUid !== null && !readableByOthers(entry.stats.mode, entry.kind === "directory")) return false;
    }
  } catch {
    return false;
  }
  return true;
}

/** What the sandbox shows of one script: its directory when private, else a private copy of the file at its path. */
type ScriptView = { readonly kind: "dir"; readonly path: string } | { readonly kind: "copy"; readonly file: string };

function scriptView(file: string, hidden: readonly string[]): ScriptView {
  const dir = dirname(file);
  return privateScriptDir(dir, hidden) ? { kind: "dir", path: dir } : { kind: "copy", file };
}

/**
 * Copies the scripts whose directories are not shown into a fresh private directory beside the case's
 * workspace (world-readable copies, so the sandbox's unprivileged uid can read them whatever the
 * originals' modes), bound read-only at their original paths. The caller removes the directory.
 */
function copyScripts(
  files: readonly string[],
  workspace: string,
): { dir: string; binds: { source: string; target: string; readOnly: true }[] } | null {
  if (files.length === 0) return null;
  const dir = mkdtempSync(join(dirname(workspace), "sut-scripts-"));
  chmodSync(dir, 0o755);
  const binds = files.map((file, index) => {
    const copy = join(dir, String(index));
    copyFileSync(file, copy);
    chmodSync(copy, 0o444);
    return { source: copy, target: file, readOnly: true as const };
  });
  return { dir, binds };
}

/**
 * The read-only paths a sandboxed command SUT sees: its program, its scripts' directories when private,
 * the `readable` paths; and the scripts to copy (those whose directories are not shown). Refuses (EVAL_SUT_INVALID) a readable path or a file that overlaps a path
 * it must never see.
 */
function sandboxView(
  program: string,
  scripts: readonly string[],
  base: string,
  options: CommandSutOptions,
): { readonly readOnly: string[]; readonly copied: string[] } {
  const hidden = (options.hide ?? []).map((path) => realOrSelf(resolve(base, path)));
  const readable = (options.readable ?? []).map((path) => resolve(base, path));
  for (const path of readable) {
    const clash = hidden.find((hiddenPath) => overlaps(realOrSelf(path), hiddenPath));
    if (clash !== undefined)
      throw new EvalError(
        "EVAL_SUT_INVALID",
        `--sut-read ${path} overlaps ${clash}, which a SUT must never see (the bench or evalgate's state)`,
      );
  }
  for (const file of [program, ...scripts]) {
    const inside = hidden.find((path) => isUnder(realpathSync(file), path));
    if (inside !== undefined)
      throw new EvalError(
        "EVAL_SUT_INVALID",
        `the command SUT's file ${file} lies inside ${inside}, which a SUT must never see: move the SUT out of the bench and the state directory`,
      );
  }
  const views = scripts.map((file) => scriptView(realpathSync(file), hidden));
  return {
    readOnly: [
      programFootprint(program),
      ...views.flatMap((view) => (view.kind === "dir" ? [view.path] : [])),
      ...readable,
    ],
    copied: views.flatMap((view) => (view.kind === "copy" ? [view.file] : [])),
  };
}

/**
 * A program as a SUT. Per case it is started in the scratch workspace (its cwd), in its own process
 * group, reads one SutRequest JSON document on stdin (the task, never a path into the bench) and
 * writes one JSON object on stdout. At the deadline or on abort its group gets SIGTERM, then SIGKILL.
 *
 * In the sandbox (default) it sees the read-only system, its program (`programFootprint`), each script
 * named in argv with its directory when that directory is private (`privateScriptDir`; else a private copy of
 * the file alone, at its path), any `readable` paths, and its workspace, the only writable place; never the bench root, the state directory,
 * a `.git` or a home directory; no network unless `network`, no host process, an allowlisted environment.
 * The digest covers argv and the full content of everything it can read (viewDigest).
 */
export function commandSut(argv: readonly string[], options: CommandSutOptions = {}): SystemUnderTest {
  if (argv.length === 0 || argv[0] === "")
    throw new EvalError("EVAL_SUT_INVALID", "command SUT needs a program: command:<program> [args...]");
  const base = options.cwd ?? process.cwd();
  const mode = options.sandbox ?? "bwrap";
  if (mode === "bwrap") {
    const support = sandboxSupport();
    if (!support.available) throw new SandboxUnavailable("the command SUT", support.reason);
    if (options.network === true) requireNetwork();
  }
  const isFile = (arg: string): boolean =>
    arg !== "" && !arg.startsWith("-") && existsSync(resolve(base, arg)) && statSync(resolve(base, arg)).isFile();
  const program = resolveProgram(argv[0]!, base, options.env?.PATH ?? process.env.PATH);
  if (program === null)
    throw new EvalError(
      "EVAL_SUT_INVALID",
      `command SUT program "${argv[0]}" is not an executable file${argv[0]!.includes("/") ? ` (resolved against ${base})` : " on PATH"}`,
    );
  // The SUT runs in its scratch workspace, so arguments naming existing files are made absolute first.
  const resolved = [program, ...argv.slice(1).map((arg) => (isFile(arg) ? resolve(base, arg) : arg))];
  // The program first, then the files argv names (scripts, data), each once.
  const files = [...new Set([program, ...resolved.slice(1).filter(isFile)])];
  const isolation: SutIsolation =
    mode === "none" ? "process" : options.network === true ? "bwrap-slirp4netns" : "bwrap";
  const view = mode === "bwrap" ? sandboxView(program, files.slice(1), base, options) : null;
  // Everything it can read of the host besides the system: as shown in the sandbox, else its program's installation, the files argv names and --sut-read.
  const shown =
    view === null
      ? [programFootprint(program), ...files.slice(1), ...(options.readable ?? []).map((path) => resolve(base, path))]
      : [...view.readOnly, ...view.copied];
  const limitsPart = Object.entries(options.limitsInDigest ?? {}).map(([name, value]) => `limit:${name}=${value}`);
  const digest =
    options.digest ?? viewDigest(resolved, [...new Set(shown.map(realOrSelf))], options.digestCachePath, limitsPart);
  const maxStdout = options.maxStdoutBytes ?? 16 * 1024 * 1024;
  return {
    label: `command:${argv.join(" ")}`,
    digest,
    isolation,
    ...(view === null ? {} : { limits: options.limits ?? defaultLimits() }),
    async run(invocation) {
      const env = options.env ?? (mode === "none" ? process.env : sandboxEnv(invocation.workspacePath));
      const copies = view === null ? null : copyScripts(view.copied, invocation.workspacePath);
      const policy =
        view === null
          ? null
          : {
              readOnly: view.readOnly,
              writable: [invocation.workspacePath],
              network: options.network === true ? ("slirp4netns" as const) : false,
              binds: copies?.binds ?? [],
              ...(options.limits === undefined ? {} : { limits: options.limits }),
            };
      try {
        return await runCommand(
          resolved,
          invocation,
          { ...env, [BENCH_INVOCATION_TAG_ENV]: invocation.invocationTag },
          maxStdout,
          policy,
        );
      } finally {
        if (copies !== null) rmSync(copies.dir, { recursive: true, force: true });
      }
    },
  };
}

/** A networked SUT needs slirp4netns: without it, refused (never the host's network instead). */
function requireNetwork(): void {
  const found = networkSupport();
  if (found.available) return;
  const sudo = process.getuid?.() === 0 ? "" : "sudo ";
  throw new EvalError("EVAL_NETWORK_UNAVAILABLE", `cannot give the command SUT a network: ${found.reason}`, {
    hint: `install it (\`${sudo}apt-get install slirp4netns\`, or ./scripts/setup.sh as root), or run without --sut-network`,
  });
}

/** What a sandboxed SUT's environment holds when the caller does not say: nothing of the harness's. */
function sandboxEnv(workspace: string): Record<string, string> {
  return { PATH: "/usr/local/bin:/usr/bin:/bin", LANG: "C.UTF-8", TZ: "UTC", HOME: workspace, TMPDIR: "/tmp" };
}

async function runCommand(
  argv: readonly string[],
  invocation: SutInvocation,
  env: NodeJS.ProcessEnv,
  maxStdout: number,
  sandbox: SandboxPolicy | null,
): Promise<SutOutput> {
  if (invocation.signal.aborted) throw new SutAborted("aborted before start");
  const definedEnv = Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  const outcome = await runProcess({
    command: argv[0]!,
    args: argv.slice(1),
    cwd: invocation.workspacePath,
    env: definedEnv,
    stdin: JSON.stringify({
      schema_version: SUT_REQUEST_SCHEMA_VERSION,
      case: invocation.benchCase,
      workspace_path: invocation.workspacePath,
      canary_seed: invocation.canarySeed,
      invocation_tag: invocation.invocationTag,
      timeout_ms: Math.max(1, Math.round(invocation.timeoutMs)),
      ...(invocation.trial === undefined ? {} : { trial: invocation.trial }),
      ...(invocation.trialSeed === undefined ? {} : { trial_seed: invocation.trialSeed }),
    }),
    // The runner's own deadline aborts the signal; this one only bounds a SUT that ignores it.
    timeoutMs: invocation.timeoutMs + SUT_GRACE_MS,
    graceMs: SUT_GRACE_MS,
    stdoutCapBytes: maxStdout,
    stderrKeepBytes: 8192,
    signal: invocation.signal,
    sandbox,
  });
  invocation.recordStreams?.({ stdout: outcome.stdout, stderr: outcome.stderr });
  if (outcome.aborted) throw new SutAborted("aborted");
  const limit = limitHitDetail(outcome);
  if (limit !== null) throw new SutResourceLimit(limit);
  if (outcome.spawnError !== null) throw new Error(`cannot start ${argv[0]}: ${outcome.spawnError}`);
  if (outcome.stdoutCapped) throw new Error(`stdout exceeded ${maxStdout} bytes`);
  if (outcome.timedOut) throw new SutAborted("deadline");
  if (outcome.exitCode !== 0) {
    const line = outcome.stderr.trim().split("\n").at(-1)?.slice(0, 300) ?? "";
    throw new Error(
      `${outcome.exitSignal === null ? `exited ${outcome.exitCode}` : `killed by ${outcome.exitSignal}`}${line === "" ? "" : `: ${line}`}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(outcome.stdout.toString("utf8"));
  } catch (error) {
    throw new Error(`stdout is not one JSON document (${(error as Error).message.slice(0, 160)})`);
  }
  return checkSutOutput(json);
}
