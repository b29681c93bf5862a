// The yaml package, loaded on first use: a warm run parses no YAML with it (digests.yaml and
// failure_modes.yaml are read with js-yaml), and its ~70 modules cost every run's start-up when imported
// eagerly (docs/performance.md, run-warm). It stays for what js-yaml does not do as well: pnpm lockfiles,
// near-misses.yaml and `bench sign`'s round trip of digests.yaml (parse and stringify, unchanged output).
import { createRequire } from "node:module";

const requireHere = createRequire(import.meta.url);

/** The yaml package's module (CommonJS build), required once. */
export function yamlPackage(): typeof import("yaml") {
  return requireHere("yaml") as typeof import("yaml");
}
