// No curation script writes or edits a cassette: a shipped cassette is only what a real agent CLI did, recorded
// by `evalgate run --record` through bench/vuln-remediation/scripts/record-cassettes.ts. This scans every
// script under bench/*/scripts/ (the recorder aside) for the three ways one could forge a cassette: an
// agent-stream generator (the synthetic ones these scripts once used), touching a cassette's metadata fields, or a file-writing call whose
// target names a cassette. The rule is proven to bite by planting each violation in a temporary copy.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..");
const RECORDER = "bench/vuln-remediation/scripts/record-cassettes.ts";
const STREAM_IMPORT = /\b(claudeStream|claudeAuthErrorStream|codexStream|geminiStream)\b/;
const CASSETTE_FIELDS = /evalgate\.cassette\.v1|\bprompt_sha256\b|\bargv_redacted\b|\bCassetteMetaSchema\b/;
const WRITE_CALL =
  /\b(writeFileSync|appendFileSync|copyFileSync|cpSync|renameSync|rmSync|mkdirSync|symlinkSync|createWriteStream|writeFile|appendFile)\(([^;]{0,300})/g;

/**
 * `path: reason` for each script under `root`/bench/*\/scripts/ that could write a cassette; a file-writing
 * call is judged by its statement's text (up to its `;`, at most 300 characters).
 */
function cassetteWriters(root: string): string[] {
  const found: string[] = [];
  for (const bench of readdirSync(join(root, "bench"), { withFileTypes: true })) {
    const dir = join(root, "bench", bench.name, "scripts");
    if (!bench.isDirectory()) continue;
    let files: string[];
    try {
      files = readdirSync(dir).filter((name) => name.endsWith(".ts"));
    } catch {
      continue;
    }
    for (const name of files) {
      const path = relative(root, join(dir, name));
      if (path === RECORDER) continue;
      const text = readFileSync(join(dir, name), "utf8");
      if (STREAM_IMPORT.test(text)) found.push(`${path}: uses an agent-stream generator`);
      if (CASSETTE_FIELDS.test(text)) found.push(`${path}: touches cassette metadata`);
      for (const call of text.matchAll(WRITE_CALL))
        if (/cassette/i.test(call[2]!)) found.push(`${path}: ${call[1]} into a cassette`);
    }
  }
  return found;
}

function copyScripts(): string {
  const target = mkdtempSync(join(tmpdir(), "evalgate-cassette-writers-"));
  for (const bench of readdirSync(join(repo, "bench"), { withFileTypes: true })) {
    const scripts = join(repo, "bench", bench.name, "scripts");
    if (bench.isDirectory() && readdirSync(join(repo, "bench", bench.name)).includes("scripts"))
      cpSync(scripts, join(target, "bench", bench.name, "scripts"), { recursive: true });
  }
  return target;
}

describe("cassette writers", () => {
  let planted: string;
  beforeAll(() => {
    planted = copyScripts();
    const scripts = join(planted, "bench", "migration-chainguard-distroless", "scripts");
    writeFileSync(
      join(scripts, "stamp-cassette.ts"),
      'import { writeFileSync } from "node:fs";\nwriteFileSync(join(caseDir, "cassette", "stdout.jsonl"), "");\n',
    );
    writeFileSync(
      join(scripts, "rehash.ts"),
      "const meta = JSON.parse(text);\nmeta.prompt_sha256 = promptSha256(prompt);\nwriteFileSync(metaPath, JSON.stringify(meta));\n",
    );
    writeFileSync(join(scripts, "fake-stream.ts"), 'import { claudeStream } from "@eval/test-utils";\n');
    // A copy of the recorder keeps its exemption only at the recorder's own path.
    cpSync(join(repo, RECORDER), join(scripts, "record-cassettes.ts"));
    writeFileSync(
      join(planted, RECORDER),
      `${readFileSync(join(repo, RECORDER), "utf8")}\nwriteFileSync(join(cassetteDir, "cassette.json"), "{}");\n`,
    );
  });
  afterAll(() => rmSync(planted, { recursive: true, force: true }));

  it("finds no script under bench/*/scripts/ that writes or edits a cassette", () => {
    expect(cassetteWriters(repo)).toEqual([]);
  });

  it("names each planted violation, and exempts only the recorder", () => {
    const found = cassetteWriters(planted);
    const m = "bench/migration-chainguard-distroless/scripts";
    expect(found).toEqual(
      expect.arrayContaining([
        `${m}/stamp-cassette.ts: writeFileSync into a cassette`,
        `${m}/rehash.ts: touches cassette metadata`,
        `${m}/fake-stream.ts: uses an agent-stream generator`,
      ]),
    );
    expect(found).toHaveLength(3);
    expect(found.some((line) => line.includes("record-cassettes.ts"))).toBe(false);
  });
});
