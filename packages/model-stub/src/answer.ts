import type { Answer, ParsedRequest } from "./protocols/types.ts";
import type { Scenario, ScenarioSession } from "./scenario.ts";
import { chooseSession } from "./scenario.ts";
import { planCall } from "./tool-mapping.ts";

/** What the scenario says for one request. */
export type Decision =
  | {
      readonly kind: "answer";
      readonly answer: Answer;
      readonly session: number | null;
      readonly turn: number | null;
      readonly unmapped: readonly string[];
    }
  | {
      readonly kind: "error";
      readonly status: number;
      readonly message: string;
      readonly session: number;
      readonly turn: number;
    };

// Gemini CLI asks a router model, with a JSON schema, how hard each turn is before answering it.
const ROUTER_ANSWER = JSON.stringify({ complexity_reasoning: "scripted session", complexity_score: 1 });

// Where each CLI states its working directory in the prompt (Claude Code, Codex, Gemini CLI, Pi).
const CWD_PATTERNS = [
  /Primary working directory: (\/[^\s<]+)/,
  /Working directory: (\/[^\s<]+)/,
  /<cwd>(\/[^<]+)<\/cwd>/,
  /Current working directory: (\/[^\s<]+)/,
  /working in the directory: (\/[^\s<]+)/i,
  /Workspace Directories:\**\s*\n\s*- (\/[^\s<]+)/,
  /working directory is:? (\/[^\s<]+)/i,
];

/** The CLI's working directory as its prompt states it, or null (paths then stay relative). */
export function detectCwd(text: string): string | null {
  for (const pattern of CWD_PATTERNS) {
    const match = pattern.exec(text);
    if (match !== null) return match[1]!.replace(/[.,;:'"`)]+$/, "");
  }
  return null;
}

function textAnswer(text: string, scenario: Scenario, session: number | null, turn: number | null): Decision {
  return { kind: "answer", answer: { text, calls: [], usage: scenario.usage }, session, turn, unmapped: [] };
}

/**
 * Decides the answer to one request: a structured-output side request gets the router answer; a request
 * offering no tools gets text (a title or topic side request); otherwise the chosen session's turn at the
 * conversation's model-turn count, with each action mapped onto the tools offered (`idPrefix` makes ids).
 */
export function decide(scenario: Scenario, request: ParsedRequest, idPrefix: string): Decision {
  if (request.wantsJson) return textAnswer(ROUTER_ANSWER, scenario, null, null);
  const session: ScenarioSession | null = chooseSession(scenario, request.userText);
  if (session === null)
    return textAnswer("[model-stub] no scenario session matches this conversation.", scenario, null, null);
  const sessionIndex = scenario.sessions.indexOf(session);
  const turnIndex = request.modelTurns;
  const turn = session.turns[turnIndex];
  if (turn === undefined) return textAnswer(session.final_text ?? "Done.", scenario, sessionIndex, turnIndex);
  if (turn.error !== undefined)
    return {
      kind: "error",
      status: turn.error.status,
      message: turn.error.message,
      session: sessionIndex,
      turn: turnIndex,
    };
  const usage = turn.usage ?? scenario.usage;
  if (turn.tools === undefined || request.tools.length === 0) {
    return {
      kind: "answer",
      answer: { text: turn.text ?? "OK", calls: [], usage, ...(turn.refusal === true ? { refusal: true } : {}) },
      session: sessionIndex,
      turn: request.tools.length === 0 ? null : turnIndex,
      unmapped: [],
    };
  }
  const cwd = detectCwd(request.contextText);
  const calls: Answer["calls"][number][] = [];
  const unmapped: string[] = [];
  turn.tools.forEach((action, index) => {
    const planned = planCall(action, request.tools, cwd);
    if ("unmapped" in planned) unmapped.push(planned.unmapped);
    else calls.push({ ...planned, id: `${idPrefix}_${index}` });
  });
  const notes = unmapped.map((reason) => `[model-stub] ${reason}`);
  const text = [turn.text, ...notes].filter((part): part is string => part !== undefined).join("\n");
  return {
    kind: "answer",
    answer: { text: text === "" ? null : text, calls, usage },
    session: sessionIndex,
    turn: turnIndex,
    unmapped,
  };
}
