// A stand-in for an agent CLI, driven by scenario.json beside the executable that runs it. It replays
// real observed streams and misbehaves on request (ignores SIGTERM, leaves a child running, hangs,
// floods stdout, splits JSON lines across writes). Tests write the executable into a temp dir.
import { execFileSync, spawn } from "node:child_process";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

const scenarioDir = process.env.FAKE_CLI_DIR ?? dirname(process.argv[1]);
const scenario = JSON.parse(readFileSync(join(scenarioDir, "scenario.json"), "utf8"));
const args = process.argv.slice(2);
const streamsDir = scenario.streamsDir;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let stdin = "";
process.stdin.setEncoding("utf8");
const stdinDone = new Promise((resolve) => {
  process.stdin.on("data", (chunk) => (stdin += chunk));
  process.stdin.on("end", resolve);
  process.stdin.on("error", resolve);
});

function content(spec) {
  return spec.startsWith("file:") ? readFileSync(join(streamsDir, spec.slice(5)), "utf8") : spec;
}

function write(stream, text) {
  return new Promise((resolve) => {
    if (!stream.write(text)) stream.once("drain", resolve);
    else resolve();
  });
}

async function main() {
  if (args[0] === "--version") {
    process.stdout.write(`${scenario.version}\n`);
    return 0;
  }
  if (scenario.authStatus && args.join(" ") === scenario.authStatus.args) {
    process.stdout.write(content(scenario.authStatus.stdout ?? ""));
    process.stderr.write(content(scenario.authStatus.stderr ?? ""));
    if (scenario.authStatus.delayMs) await sleep(scenario.authStatus.delayMs);
    return scenario.authStatus.code ?? 0;
  }
  await stdinDone;
  appendFileSync(join(scenarioDir, "invocations.jsonl"), `${JSON.stringify({ args, stdin, cwd: process.cwd(), envNames: Object.keys(process.env).sort() })}\n`);
  for (const step of scenario.steps) {
    if (step.ignoreSignals) for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, () => {});
    if (step.spawnChild) {
      // Like Gemini's relaunch: a child that shares stdout and ignores SIGTERM.
      const child = spawn(process.execPath, ["-e", "for (const s of ['SIGTERM','SIGINT','SIGHUP']) process.on(s, () => {}); setInterval(() => {}, 1000);"], {
        stdio: ["ignore", "inherit", "inherit"],
      });
      writeFileSync(join(scenarioDir, "child.pid"), String(child.pid));
    }
    if (step.stdout !== undefined) await write(process.stdout, content(step.stdout));
    if (step.stderr !== undefined) await write(process.stderr, content(step.stderr));
    if (step.echoEnv) await write(process.stderr, `${step.echoEnv}=${process.env[step.echoEnv] ?? ""}\n`);
    if (step.echoArgs) await write(process.stdout, `${JSON.stringify({ type: "debug_args", args })}\n`);
    if (step.split !== undefined) {
      const text = content(step.split);
      for (let index = 0; index < text.length; index += step.chunk ?? 7) {
        await write(process.stdout, text.slice(index, index + (step.chunk ?? 7)));
        await sleep(step.delayMs ?? 2);
      }
    }
    if (step.modifyFile) writeFileSync(join(process.cwd(), step.modifyFile.path), step.modifyFile.content);
    if (step.writeByPrompt) {
      // What an agent that did the task leaves: the files of the first entry whose text the prompt holds.
      const prompt = `${args.join(" ")}\n${stdin}`;
      const found = step.writeByPrompt.find((entry) => prompt.includes(entry.match));
      for (const [path, text] of Object.entries(found?.files ?? {})) writeFileSync(join(process.cwd(), path), text);
    }
    if (step.shell) execFileSync("/bin/sh", ["-c", step.shell], { stdio: "ignore" });
    if (step.flood) {
      const line = `${"x".repeat(65535)}\n`;
      for (;;) await write(process.stdout, line);
    }
    if (step.sleepMs) await sleep(step.sleepMs);
    if (step.hang) await new Promise(() => setInterval(() => {}, 1000));
    if (step.exit !== undefined) return step.exit;
  }
  return 0;
}

main().then((code) => process.exit(code));
