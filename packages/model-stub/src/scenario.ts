import { readFileSync } from "node:fs";
import { EvalError } from "@eval/errors";
import { sha256Digest } from "@eval/hashing";
import { parse as parseYaml } from "yaml";
import { z } from "zod";

/**
 * A scenario: what the scripted model answers. Each session is a list of turns; turn n answers the
 * request whose conversation already holds n model turns, so a CLI's retries, side requests and parallel
 * sessions never shift the script. Paths are relative to the CLI's working directory; the stub maps each
 * action onto whichever tool the CLI offered for it (docs/adapters.md has the table).
 */
const UsageSchema = z.strictObject({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
});

const ActionSchema = z.union([
  z.strictObject({ write: z.strictObject({ path: z.string().min(1), content: z.string() }) }),
  z.strictObject({ edit: z.strictObject({ path: z.string().min(1), old: z.string().min(1), new: z.string() }) }),
  z.strictObject({ run: z.strictObject({ command: z.string().min(1) }) }),
  z.strictObject({ read: z.strictObject({ path: z.string().min(1) }) }),
  /** A tool call by the CLI's own name and arguments, passed through untouched. */
  z.strictObject({ call: z.strictObject({ name: z.string().min(1), arguments: z.record(z.string(), z.unknown()) }) }),
]);

const TurnSchema = z
  .strictObject({
    /** Tool calls made in this turn (in one model message). */
    tools: z.array(ActionSchema).min(1).optional(),
    /** Assistant text; with `tools`, text said before the calls. */
    text: z.string().optional(),
    /** Answer this turn with an HTTP error shaped like the protocol's own. */
    error: z.strictObject({ status: z.number().int().min(400).max(599), message: z.string() }).optional(),
    usage: UsageSchema.optional(),
    /** The model declines with this turn's text: Anthropic's `stop_reason: "refusal"` (the other protocols answer the text). */
    refusal: z.literal(true).optional(),
  })
  .refine((turn) => turn.refusal !== true || (turn.text !== undefined && turn.tools === undefined), {
    message: "a refusal turn needs text and no tools",
  })
  .refine((turn) => turn.tools !== undefined || turn.text !== undefined || turn.error !== undefined, {
    message: "a turn needs tools, text or error",
  });

const SessionSchema = z.strictObject({
  /** Chosen when this text occurs in the conversation's user messages; a session without it is the default. */
  match: z.string().min(1).optional(),
  turns: z.array(TurnSchema).min(1),
  /** The answer after the last turn (default "Done."). */
  final_text: z.string().optional(),
});

const SessionsScenarioSchema = z.strictObject({
  usage: UsageSchema.optional(),
  sessions: z.array(SessionSchema).min(1),
});
const OneSessionScenarioSchema = SessionSchema.extend({ usage: UsageSchema.optional() });

export type Usage = z.infer<typeof UsageSchema>;
export type ScenarioAction = z.infer<typeof ActionSchema>;
export type ScenarioSession = z.infer<typeof SessionSchema>;

export interface Scenario {
  readonly sessions: readonly ScenarioSession[];
  /** Token counts reported for a turn that names none. */
  readonly usage: Usage;
  /**
   * SHA-256 over the validated scenario (sessions and usage, as JSON in the schema's field order): the
   * same script gives the same digest whether it came from YAML, JSON or an object, and any change to
   * what the stub answers changes it.
   */
  readonly sha256: string;
}

const DEFAULT_USAGE: Usage = { input_tokens: 1000, output_tokens: 50 };

/** A scenario file that cannot be used. */
export class ScenarioInvalid extends EvalError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super("EVAL_SCENARIO_INVALID", message, {
      details,
      hint: "fix the scenario file; docs/adapters.md describes its fields",
    });
  }
}

/** Validates a parsed scenario document (YAML or JSON). */
export function parseScenario(value: unknown, source = "scenario"): Scenario {
  const many = value !== null && typeof value === "object" && "sessions" in value;
  const parsed = many ? SessionsScenarioSchema.safeParse(value) : OneSessionScenarioSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ScenarioInvalid(`${source}: ${issue.path.join(".") || "(top)"}: ${issue.message}`, { source });
  }
  const data = parsed.data;
  const usage = data.usage ?? DEFAULT_USAGE;
  if ("sessions" in data) return withDigest(data.sessions, usage);
  const { usage: _usage, ...session } = data;
  return withDigest([session], usage);
}

function withDigest(sessions: readonly ScenarioSession[], usage: Usage): Scenario {
  return { sessions, usage, sha256: sha256Digest(JSON.stringify({ sessions, usage })) };
}

/** Reads and validates a scenario file (YAML, of which JSON is a subset). */
export function loadScenario(path: string): Scenario {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ScenarioInvalid(
      `cannot read scenario ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      { path },
    );
  }
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    throw new ScenarioInvalid(`${path} is not YAML or JSON: ${(error as Error).message.split("\n")[0]}`, { path });
  }
  return parseScenario(value, path);
}

/** The session whose `match` occurs in the user's text, else the first without `match`. */
export function chooseSession(scenario: Scenario, userText: string): ScenarioSession | null {
  return (
    scenario.sessions.find((session) => session.match !== undefined && userText.includes(session.match)) ??
    scenario.sessions.find((session) => session.match === undefined) ??
    null
  );
}
