import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { EvalError } from "@eval/errors";
import { z } from "zod";

/**
 * Settings every command may read, with precedence: flags > EVALGATE_* env > the `evalgate` key of
 * the nearest package.json, or the nearest evalgate.config.json > defaults.
 */
const ConfigFileSchema = z.strictObject({
  bench_root: z.string().min(1).optional(),
  state_dir: z.string().min(1).optional(),
  trust_tiers: z.string().min(1).optional(),
  concurrency: z.number().int().min(1).max(256).optional(),
  max_cost_usd: z.number().min(0).optional(),
  timeout_per_case_seconds: z.number().positive().optional(),
  trials: z.number().int().min(1).max(1000).optional(),
  format: z.enum(["jsonl", "human"]).optional(),
});
export type ConfigFile = z.output<typeof ConfigFileSchema>;
export type ConfigKey = keyof ConfigFile;

export interface LoadedConfig {
  readonly values: ConfigFile;
  /** The file the values came from (null when none was found). */
  readonly source: string | null;
  /** Directory relative paths in the file are resolved against. */
  readonly baseDir: string;
}

/** Finds and validates the nearest config, walking up from `cwd`. */
export function loadConfigFile(cwd: string): LoadedConfig {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const standalone = join(dir, "evalgate.config.json");
    if (existsSync(standalone)) return { values: parseConfig(readJson(standalone), standalone), source: standalone, baseDir: dir };
    const manifest = join(dir, "package.json");
    if (existsSync(manifest)) {
      const pkg = readJson(manifest) as { evalgate?: unknown } | null;
      if (pkg !== null && typeof pkg === "object" && pkg.evalgate !== undefined) {
        return { values: parseConfig(pkg.evalgate, `${manifest} (key "evalgate")`), source: manifest, baseDir: dir };
      }
    }
    if (dirname(dir) === dir) return { values: {}, source: null, baseDir: resolve(cwd) };
  }
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new EvalError("EVAL_CONFIG_INVALID", `${path} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
}

function parseConfig(value: unknown, where: string): ConfigFile {
  const result = ConfigFileSchema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new EvalError(
    "EVAL_CONFIG_INVALID",
    `${where}: ${issue.path.join(".") || "(root)"}: ${issue.message}`,
    { hint: `accepted keys: ${Object.keys(ConfigFileSchema.shape).join(", ")}` },
  );
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
    this.file = loadConfigFile(sources.cwd);
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
        throw new EvalError("EVAL_CONFIG_INVALID", `${key} must be ${whole ? "a whole number >= 1" : "a number >= 0"}, got "${raw}"`, {
          hint: `set it with the --${key.replaceAll("_", "-")} flag or ${ENV_NAMES[key]}`,
        });
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
