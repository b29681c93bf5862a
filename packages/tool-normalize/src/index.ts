export { CANONICAL_TOOL_NAMES, PROVIDERS, TOOL_TABLE } from "./tool-table.ts";
export type { Provider } from "./tool-table.ts";
export { findRule, isCanonicalToolName, normalizeToolCall } from "./normalize.ts";
export { patchTargets } from "./derive.ts";
export { INPUT_STRING_CHARS, MAX_ERRORS, MESSAGE_EXCERPT_CHARS, RESULT_EXCERPT_CHARS } from "./builder.ts";
export {
  createTranscriptParser,
  detectTranscriptFormat,
  MAX_LINE_CHARS,
  parseTranscriptFile,
  PROVIDER_FORMATS,
  providerOfFormat,
  TRANSCRIPT_FORMATS,
} from "./parser.ts";
export type { TranscriptFormat } from "./parser.ts";
export { countToolCalls, filesChanged, filesRead, findSkillTrigger, shellCommands, toolCallsNamed } from "./helpers.ts";
export {
  readTranscriptJsonl,
  repairTranscriptDirectory,
  stampTranscript,
  transcriptLine,
  writeTranscriptJsonl,
} from "./jsonl.ts";
export { resolveStreamLogOption, summarizeTranscript } from "./stream-log.ts";
export type { StreamLogOption } from "./stream-log.ts";
export type { Transcript } from "@eval/models";
