import type { EnvNameEntry } from "@eval/models";

export const REDACTED = "<redacted>";

/**
 * Long flags whose value is a secret. Matched on the flag's last dash-separated words, so
 * `--github-token` and `--openai-api-key` count too. Short flags are never matched: `-p` is the prompt
 * for Claude Code and Gemini (the seed's round-2 bug #1 redacted every prompt that way).
 */
const SECRET_FLAG =
  /^--(?:[a-z0-9]+-)*(?:api-key|apikey|token|password|passwd|secret|client-secret|access-key|auth-token)$/i;

/** Environment names that look like they hold credentials. */
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|BEARER|COOKIE|SESSION)/i;

/** `NAME=value` where NAME looks like a credential (e.g. an `env` wrapper's or a `-c` override's argument). */
const SECRET_ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_.]*)=(.+)$/s;

export function isSecretEnvName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/**
 * Returns argv with secret values replaced by `<redacted>`: `--password=x` → `--password=<redacted>`,
 * `--password x` → `--password <redacted>`, `OPENAI_API_KEY=sk-...` → `OPENAI_API_KEY=<redacted>`.
 * Every other argument (the prompt included) is kept verbatim.
 */
export function redactArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index]!;
    const equals = arg.indexOf("=");
    if (arg.startsWith("--") && equals > 2 && SECRET_FLAG.test(arg.slice(0, equals))) {
      out.push(`${arg.slice(0, equals)}=${REDACTED}`);
      continue;
    }
    if (SECRET_FLAG.test(arg)) {
      out.push(arg);
      if (index + 1 < argv.length) {
        out.push(REDACTED);
        index += 1;
      }
      continue;
    }
    const assignment = SECRET_ASSIGNMENT.exec(arg);
    if (!arg.startsWith("-") && assignment !== null && isSecretEnvName(assignment[1]!)) {
      out.push(`${assignment[1]}=${REDACTED}`);
      continue;
    }
    out.push(arg);
  }
  return out;
}

/** The secret values in argv (values of secret flags and secret assignments), for scrubbing output. */
export function secretValuesInArgv(argv: readonly string[]): string[] {
  const values: string[] = [];
  for (let index = 0; index < argv.length; index += 1) {
    const arg = argv[index]!;
    const equals = arg.indexOf("=");
    if (arg.startsWith("--") && equals > 2 && SECRET_FLAG.test(arg.slice(0, equals)))
      values.push(arg.slice(equals + 1));
    else if (SECRET_FLAG.test(arg) && index + 1 < argv.length) {
      values.push(argv[index + 1]!);
      index += 1;
    } else {
      const assignment = SECRET_ASSIGNMENT.exec(arg);
      if (!arg.startsWith("-") && assignment !== null && isSecretEnvName(assignment[1]!)) values.push(assignment[2]!);
    }
  }
  return values.filter((value) => value.length > 0);
}

/** Names of the variables in `env`, sorted, each tagged when it looks like a credential. Values never leave. */
export function describeEnv(env: Readonly<Record<string, string | undefined>>): EnvNameEntry[] {
  return Object.keys(env)
    .filter((name) => env[name] !== undefined)
    .sort()
    .map((name) => ({ name, secret: isSecretEnvName(name) }));
}

/** Values of secret-named variables in `env` (at least 4 characters: shorter ones would scrub noise). */
export function secretValuesInEnv(env: Readonly<Record<string, string | undefined>>): string[] {
  return Object.entries(env)
    .filter(([name, value]) => value !== undefined && isSecretEnvName(name))
    .map(([, value]) => value!)
    .filter((value) => value.length >= 4);
}

/**
 * Replaces every occurrence of each secret value in `text` by `<redacted>`: applied to recorded stdout,
 * stderr, transcripts and messages, so a CLI that echoes its credentials cannot leak them into evidence.
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret.length > 0 && out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}
