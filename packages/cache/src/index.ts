export { cacheKey } from "./cache-key.ts";
export type { CacheKeyParts } from "./cache-key.ts";
export { ScoreCache } from "./score-cache.ts";
export { loadOrCreateMacKey, readMacKey, sealEntry, splitEntry, verifyEntry } from "./entry-mac.ts";
