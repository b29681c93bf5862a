import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { EvalError, type EvalWarning } from "@eval/errors";
import { EvalgateConfigSchema, type EvalgateConfig } from "@eval/models";

/**
 * Settings every command may read, with precedence: flags > EVALGATE_* env > the `evalgate` key of
 * the nearest package.json, or the nearest evalgate.config.json > defaults. The schema of the file is
 * `EvalgateConfigSchema` (@eval/models, published as schemas/evalgate-config.schema.json).
 */

export type ConfigFile = EvalgateConfig;
export type ConfigKey = Exclude<keyof ConfigFile, "$schema">;

export interface LoadedConfig {
  readonly values: ConfigFile;
  /** The file the values came from (null when none was found). */
  readonly source: string | null;
  /** Directory relative paths in the file are resolved against. */
  readonly baseDir: string;
}

/**
 * Finds and validates the nearest config, walking up from `cwd`; when there is none there, walking up
 * from `benchRoot` (a bench root given by flag or env, so `--bench-root` from elsewhere finds the
 * project's config). With no config at all, defaults resolve against `cwd` (and a state directory
 * started there is announced: `watchNewStateDir`).
 */
export function loadConfigFile(cwd: string, benchRoot?: string): LoadedConfig {
  const nearCwd = findConfigFile(cwd);
  if (nearCwd !== null || benchRoot === undefined)
    return nearCwd ?? { values: {}, source: null, baseDir: resolve(cwd) };
  return findConfigFile(benchRoot) ?? { values: {}, source: null, baseDir: resolve(cwd) };
}

function findConfigFile(start: string): LoadedConfig | null {
  for (let dir = resolve(start); ; dir = dirname(dir)) {
    const standalone = join(dir, "evalgate.config.json");
    if (existsSync(standalone))
      return { values: parseConfig(readJson(standalone), standalone), source: standalone, baseDir: dir };
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      const pkg = readJson(manifest) as { evalgate?: unknown } | null;
      if (pkg !== null && typeof pkg === "object" && pkg.evalgate !== undefined) {
        return { values: parseConfig(pkg.evalgate, `${manifest} (key "evalgate")`), source: manifest, baseDir: dir };
      }
    }
    if (dirname(dir) === dir) return null;
  }
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new EvalError("EVAL_CONFIG_INVALID", `${path} is not valid JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

function parseConfig(value: unknown, where: string): ConfigFile {
  const result = EvalgateConfigSchema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new EvalError("EVAL_CONFIG_INVALID", `${where}: ${issue.path.join(".") || "(root)"}: ${issue.message}`, {
    hint: `accepted keys: ${Object.keys(EvalgateConfigSchema.shape)
      .filter((key) => key !== "$schema")
      .join(", ")}`,
  });
}

const ENV_NAMES: Record<ConfigKey, string> = {
  bench_root: "EVALGATE_BENCH_ROOT",
  state_dir: "EVALGATE_STATE_DIR",
  trust_tiers: "EVALGATE_TRUST_TIERS",
  concurrency: "EVALGATE_CONCURRENCY",
  max_cost_usd: "EVALGATE_MAX_COST_USD",
  timeout_per_case_seconds: "EVALGATE_TIMEOUT_PER_CASE_SECONDS",
  trials: "EVALGATE_TRIALS",
  format: "EVALGATE_FORMAT",
};

export interface SettingSources {
  readonly flags: Partial<Record<ConfigKey, string | number | undefined>>;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
}

export class Settings {
  private readonly file: LoadedConfig;
  private readonly sources: SettingSources;

  constructor(sources: SettingSources) {
    this.sources = sources;
    const benchRoot =
      typeof sources.flags.bench_root === "string" ? sources.flags.bench_root : this.envValue("bench_root");
    this.file = loadConfigFile(sources.cwd, benchRoot === undefined ? undefined : resolve(sources.cwd, benchRoot));
  }

  /** The directory the settings file is in (without one, the working directory). */
  get baseDir(): string {
    return this.file.baseDir;
  }

  /** Where the settings file is (null: none found, defaults only). */
  get configSource(): string | null {
    return this.file.source;
  }

  /**
   * Call before a command that may create `stateDir`; the returned function, called after it, gives a
   * warning when the directory did not exist before and does now and no flag or env named it: the
   * command says which state directory it started and why there (a second chain and cache never start
   * silently, and a command that failed before creating anything says nothing about it).
   */
  watchNewStateDir(stateDir: string): () => EvalWarning | null {
    // --out or EVALGATE_STATE_DIR named it: the user said so.
    if (
      existsSync(stateDir) ||
      typeof this.sources.flags.state_dir === "string" ||
      this.envValue("state_dir") !== undefined
    )
      return () => null;
    const why =
      this.file.source === null
        ? `the default, in ${this.file.baseDir}: no evalgate.config.json (or package.json "evalgate" key) at or above ${this.sources.cwd}`
        : `${this.file.values.state_dir === undefined ? "the default" : "state_dir"} from ${this.file.source}`;
    return () =>
      existsSync(stateDir)
        ? {
            code: "state.new",
            message: `started a new state directory ${stateDir} (${why}); if you meant an existing one, pass --out or set state_dir in evalgate.config.json`,
            details: { state_dir: stateDir, config: this.file.source },
          }
        : null;
  }

  /** A path setting, absolute: flags and env resolve against cwd, the file against its directory. */
  path(key: "bench_root" | "state_dir" | "trust_tiers", fallback: string): string {
    const flag = this.sources.flags[key];
    if (typeof flag === "string") return resolve(this.sources.cwd, flag);
    const env = this.sources.env[ENV_NAMES[key]];
    if (env !== undefined && env !== "") return resolve(this.sources.cwd, env);
    const fromFile = this.file.values[key];
    if (fromFile !== undefined) return resolve(this.file.baseDir, fromFile);
    return resolve(this.file.baseDir, fallback);
  }

  /** A numeric setting, validated wherever it came from. */
  number(key: "concurrency" | "max_cost_usd" | "timeout_per_case_seconds" | "trials", fallback: number): number {
    const raw = this.sources.flags[key] ?? this.envValue(key);
    if (raw !== undefined) {
      const value = typeof raw === "number" ? raw : Number(raw);
      const whole = key === "concurrency" || key === "trials";
      const valid = Number.isFinite(value) && value >= 0 && (!whole || (Number.isInteger(value) && value >= 1));
      if (!valid) {
        throw new EvalError(
          "EVAL_CONFIG_INVALID",
          `${key} must be ${whole ? "a whole number >= 1" : "a number >= 0"}, got "${raw}"`,
          {
            hint: `set it with the --${key.replaceAll("_", "-")} flag or ${ENV_NAMES[key]}`,
          },
        );
      }
      return value;
    }
    return this.file.values[key] ?? fallback;
  }

  format(): "jsonl" | "human" {
    const raw = this.sources.flags.format ?? this.envValue("format") ?? this.file.values.format ?? "jsonl";
    if (raw !== "jsonl" && raw !== "human") {
      throw new EvalError("EVAL_CONFIG_INVALID", `format must be jsonl or human, got "${raw}"`);
    }
    return raw;
  }

  private envValue(key: ConfigKey): string | undefined {
    const value = this.sources.env[ENV_NAMES[key]];
    return value === undefined || value === "" ? undefined : value;
  }
}
