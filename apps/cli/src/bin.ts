#!/usr/bin/env node
// The only place that ends the process: everything below returns an exit code.
// A namespace import: a named import of something an old Node lacks would fail before any check runs.
import * as nodeModule from "node:module";
import { nodeVersionProblem } from "./node-version.ts";

const tooOld = nodeVersionProblem(process.versions.node);
if (tooOld !== null) {
  process.stderr.write(tooOld);
  process.exit(1);
}
nodeModule.enableCompileCache?.();
// A closed pipe (`evalgate ... | head`) is a normal way for a reader to stop: end quietly.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});
const { runCli } = await import("./cli.ts");
process.exitCode = await runCli(process.argv.slice(2));
