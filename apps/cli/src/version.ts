/**
 * evalgate's version is the harness version, which has one source: @eval/runner's package.json (it is
 * recorded on every report and folded into every cache key). Imported through the runner's light
 * `./version` subpath, so starting the CLI does not load the runner. The changesets config keeps
 * evalgate and @eval/runner in one `fixed` group, so `evalgate --version` and the recorded version
 * never drift (cli.test.ts checks them against each other).
 */
export { HARNESS_VERSION } from "@eval/runner/version";
