// Re-stamps every cassette of both benches with the prompt its case's canary pin reproduces: the
// replay SUT refuses a cassette whose prompt_sha256 differs from
// promptSha256(buildAgentPrompt(case, canarySeedFor(case.cassette_canary_pin))). Updates
// cassette.json (prompt_sha256, the prompt inside argv_redacted) and the prompt Gemini echoes in its
// stream. Run from the repo root after editing a case's prompt or pin, then re-sign the bench:
//   node bench/vuln-remediation/scripts/refresh-cassette-prompts.ts
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseToml } from "smol-toml";
import { BenchCaseSchema, CaseTomlSchema, CassetteMetaSchema, parseWire } from "@eval/models";
import { buildAgentPrompt, promptSha256 } from "@eval/cli-subscription-adapters";
import { canarySeedFor } from "@eval/runner";

const BENCH_ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const TASK_CLASSES = ["vuln-remediation", "migration-chainguard-distroless"];
/** The flag each CLI takes the prompt with; Codex reads it on stdin, so its argv carries none. */
const PROMPT_FLAG: Record<string, string | null> = { "claude-code": "--print", gemini: "--prompt", codex: null };

function refreshCase(casePath: string): boolean {
  const cassetteDir = join(casePath, "cassette");
  if (!existsSync(cassetteDir)) return false;
  const raw = parseToml(readFileSync(join(casePath, "case.toml"), "utf8"));
  const toml = parseWire(
    CaseTomlSchema,
    Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : v])),
  );
  // Only the case fields the prompt is built from matter here; paths and digest are placeholders.
  const benchCase = parseWire(BenchCaseSchema, {
    ...toml,
    case_path: casePath,
    input_path: join(casePath, "input"),
    expected_path: join(casePath, "expected"),
    cassette_path: cassetteDir,
    case_digest: `blake3:${"0".repeat(64)}`,
  });
  const prompt = buildAgentPrompt(benchCase, canarySeedFor(toml.cassette_canary_pin));
  const metaPath = join(cassetteDir, "cassette.json");
  const meta = parseWire(CassetteMetaSchema, JSON.parse(readFileSync(metaPath, "utf8")));
  const argv = [...meta.argv_redacted];
  const flag = PROMPT_FLAG[meta.adapter];
  if (flag) {
    const at = argv.indexOf(flag);
    if (at === -1 || at + 1 >= argv.length) throw new Error(`${metaPath}: argv has no ${flag} <prompt>`);
    argv[at + 1] = prompt;
  }
  const updated = {
    ...JSON.parse(readFileSync(metaPath, "utf8")),
    argv_redacted: argv,
    prompt_sha256: promptSha256(prompt),
  };
  const before = readFileSync(metaPath, "utf8");
  const after = `${JSON.stringify(updated, null, 2)}\n`;
  writeFileSync(metaPath, after);
  if (meta.adapter === "gemini") {
    const streamPath = join(cassetteDir, "stdout.jsonl");
    const lines = readFileSync(streamPath, "utf8").split("\n");
    const rewritten = lines.map((line) => {
      if (line === "") return line;
      const event = JSON.parse(line) as Record<string, unknown>;
      return event.type === "message" && event.role === "user" ? JSON.stringify({ ...event, content: prompt }) : line;
    });
    writeFileSync(streamPath, rewritten.join("\n"));
  }
  return before !== after;
}

let changed = 0;
for (const taskClass of TASK_CLASSES) {
  const casesDir = join(BENCH_ROOT, taskClass, "cases");
  for (const entry of readdirSync(casesDir, { withFileTypes: true })) {
    if (entry.isDirectory() && refreshCase(join(casesDir, entry.name))) changed++;
  }
}
process.stderr.write(`refreshed ${changed} cassette(s); now run \`evalgate bench sign\` for each task class\n`);
