import { createRequire } from "node:module";

/** This package's version: the harness version recorded on reports and folded into cache keys. */
export const HARNESS_VERSION: string = (createRequire(import.meta.url)("../package.json") as { version: string })
  .version;
