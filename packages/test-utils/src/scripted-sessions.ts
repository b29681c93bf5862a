import { readFileSync, writeFileSync } from "node:fs";
import { isMap, isSeq, parseDocument } from "yaml";

/** One scripted model session as a bench's `cassette-sessions.yaml` holds it (the model stub's scenario format). */
export interface ScriptedSession {
  readonly match: string;
  readonly turns: readonly Record<string, unknown>[];
  readonly final_text?: string;
}

/**
 * Puts `session` into the scenario file at `path`: replaces the session with the same `match`, else appends
 * it. The rest of the file keeps its text. Cassettes are then recorded from this file by running the real CLI
 * against the model stub serving it (bench/vuln-remediation/scripts/record-cassettes.ts).
 */
export function upsertScriptedSession(path: string, session: ScriptedSession): void {
  const doc = parseDocument(readFileSync(path, "utf8"));
  const sessions = doc.get("sessions");
  if (!isSeq(sessions)) throw new Error(`${path}: no sessions list`);
  const node = doc.createNode(session);
  const at = sessions.items.findIndex((item) => isMap(item) && item.get("match") === session.match);
  if (at === -1) sessions.items.push(node);
  else sessions.items[at] = node;
  writeFileSync(path, doc.toString({ lineWidth: 0 }));
}
