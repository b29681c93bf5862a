#!/usr/bin/env node
// The only place that ends the process: everything below returns an exit code.
import { enableCompileCache } from "node:module";

enableCompileCache?.();
// A closed pipe (`evalgate ... | head`) is a normal way for a reader to stop: end quietly.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit(0);
  throw error;
});
const { runCli } = await import("./cli.ts");
process.exitCode = await runCli(process.argv.slice(2));
