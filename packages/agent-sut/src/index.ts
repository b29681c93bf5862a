export { agentSutKinds } from "./agent-kinds.ts";
export type { AgentSutOptions } from "./agent-kinds.ts";
export { cassetteDirOf, createLiveSut, createReplaySut } from "./suts.ts";
export type { LiveSutOptions } from "./suts.ts";
export type { WireReplayOptions } from "./wire-replay.ts";
export type { TranscriptLogOptions } from "./transcript-log.ts";
export { CASSETTE_FILES, readCassette, writeCassette } from "./cassette-files.ts";
export type { Cassette } from "./cassette-files.ts";
