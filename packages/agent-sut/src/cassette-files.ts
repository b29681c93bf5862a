import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { swapDirectorySync } from "@eval/durable-fs";
import type { CassetteMeta } from "@eval/models";
import { CassetteMetaSchema, formatIssues, parseWire, safeParseWire } from "@eval/models";
import type { RecordedExchange } from "@eval/model-bridge";
import { CassetteInvalid } from "@eval/cli-subscription-adapters";

export const CASSETTE_FILES = Object.freeze({
  meta: "cassette.json",
  stdout: "stdout.jsonl",
  stderr: "stderr.txt",
  diff: "workspace.diff",
  /** Optional: every model exchange of the session through the bridge (secrets removed), one JSON line each. */
  exchanges: "exchanges.jsonl",
});

export interface Cassette {
  readonly meta: CassetteMeta;
  readonly stdout: string;
  readonly stderr: string;
  readonly diff: string;
  /** The wire recording (null for a cassette recorded without the bridge, or before it existed). */
  readonly exchanges?: readonly RecordedExchange[] | null;
}

/**
 * Writes a cassette directory atomically: the files go into a sibling temporary directory, which then
 * replaces `dir` (an older cassette is moved aside first and removed after), so a reader never sees a
 * half-written cassette.
 */
export function writeCassette(dir: string, cassette: Cassette): void {
  const meta = parseWire(CassetteMetaSchema, cassette.meta);
  swapDirectorySync(
    dir,
    (staging) => {
      writeFileSync(join(staging, CASSETTE_FILES.meta), `${JSON.stringify(meta, null, 2)}\n`);
      writeFileSync(join(staging, CASSETTE_FILES.stdout), cassette.stdout);
      writeFileSync(join(staging, CASSETTE_FILES.stderr), cassette.stderr);
      writeFileSync(join(staging, CASSETTE_FILES.diff), cassette.diff);
      if (cassette.exchanges != null)
        writeFileSync(
          join(staging, CASSETTE_FILES.exchanges),
          cassette.exchanges.map((exchange) => `${JSON.stringify(exchange)}\n`).join(""),
        );
    },
    { replace: true },
  );
}

/** Reads and validates a cassette directory; throws CassetteInvalid naming the problem. */
export function readCassette(dir: string): Cassette {
  const read = (name: string): string => {
    try {
      return readFileSync(join(dir, name), "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw new CassetteInvalid(
        code === "ENOENT"
          ? `cassette file ${join(dir, name)} is missing`
          : `cannot read ${join(dir, name)}: ${(error as Error).message}`,
        {
          dir,
        },
      );
    }
  };
  const metaText = read(CASSETTE_FILES.meta);
  let raw: unknown;
  try {
    raw = JSON.parse(metaText);
  } catch (error) {
    throw new CassetteInvalid(`${join(dir, CASSETTE_FILES.meta)} is not valid JSON: ${(error as Error).message}`, {
      dir,
    });
  }
  const parsed = safeParseWire(CassetteMetaSchema, raw);
  if (!parsed.success)
    throw new CassetteInvalid(`${join(dir, CASSETTE_FILES.meta)}: ${formatIssues(parsed.issues)}`, { dir });
  const exchanges = existsSync(join(dir, CASSETTE_FILES.exchanges))
    ? readExchanges(dir, read(CASSETTE_FILES.exchanges))
    : null;
  return {
    meta: parsed.data,
    stdout: read(CASSETTE_FILES.stdout),
    stderr: read(CASSETTE_FILES.stderr),
    diff: read(CASSETTE_FILES.diff),
    exchanges,
  };
}

/** The wire recording's lines, each checked for the fields a replay answers from. */
function readExchanges(dir: string, text: string): RecordedExchange[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line, index) => {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        value = null;
      }
      const exchange = value as Partial<RecordedExchange> | null;
      if (
        exchange === null ||
        typeof exchange !== "object" ||
        typeof exchange.path !== "string" ||
        typeof exchange.method !== "string" ||
        typeof exchange.status !== "number" ||
        typeof exchange.response_body !== "string" ||
        typeof exchange.usage !== "object"
      ) {
        throw new CassetteInvalid(
          `${join(dir, CASSETTE_FILES.exchanges)} line ${index + 1} is not a recorded exchange`,
          { dir },
        );
      }
      return exchange as RecordedExchange;
    });
}
