/**
 * evalgate's version is the harness version, which has one source: @eval/runner's package.json (it is
 * recorded on every report and folded into every cache key). The changesets config keeps evalgate and
 * @eval/runner in one `fixed` group, so `evalgate --version` and the recorded version never drift.
 */
export { HARNESS_VERSION } from "@eval/runner";
