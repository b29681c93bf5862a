// Signing through the CLI, in-process on the small upper bench: key generate, run and shard/merge signed with a
// key file or EVALGATE_SIGNING_KEY, verdicts that require a declared signer, and a merge refusing unsigned or
// undeclared bundles.
import { readFile, readdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { invoke } from "../test-helpers.ts";
import { makeUpperBench } from "./run.test-helpers.ts";

const TIERS = join(import.meta.dirname, "..", "..", "..", "..", "docs", "trust-tiers.yaml");
let bench: { root: string; benchRoot: string; benchPath: string };
beforeAll(async () => {
  bench = await makeUpperBench({ "a-1": "alpha", "b-2": "bravo" });
});
afterAll(async () => {
  await rm(bench.root, { recursive: true, force: true });
});

const cwd = () => ({ cwd: bench.root });
const runArgs = (state: string, extra: string[] = []) => [
  "run",
  "--task-class",
  "upper",
  "--bench-root",
  bench.benchRoot,
  "--sut",
  "module:sut.mjs#upper",
  "--sandbox",
  "none",
  "--out",
  state,
  "--quiet",
  ...extra,
];

/** A trust-tiers file whose bronze requires signed evidence from the named public keys. */
async function tiersRequiringSignatures(name: string, publicKeys: readonly string[]): Promise<string> {
  const text = (await readFile(TIERS, "utf8"))
    .replace(
      "    threshold: 0.6\n    min_cases: 10\n    min_held_out: 5\n    description: The agent may open",
      "    threshold: 0.05\n    min_cases: 1\n    min_held_out: 1\n    require_signed: true\n    description: The agent may open",
    )
    .replace("  vuln-remediation: untrusted", "  vuln-remediation: untrusted\n  upper: untrusted")
    .concat(`\nsigners:\n${publicKeys.map((key, i) => `  - name: signer-${i}\n    public_key: ${key}\n`).join("")}`);
  const path = join(bench.root, name);
  await writeFile(path, text);
  return path;
}

async function records(state: string): Promise<Record<string, unknown>[]> {
  const runs = join(bench.root, state, "runs");
  const names = (await readdir(runs)).filter((name) => name.endsWith(".json")).sort();
  return Promise.all(
    names.map(async (name) => JSON.parse(await readFile(join(runs, name), "utf8")) as Record<string, unknown>),
  );
}

describe("evalgate key generate and signed runs", () => {
  it("generates a key (never overwriting one), signs a run with it, and a tier requiring that signer is reached", async () => {
    const generated = await invoke(["key", "generate", "--write", "ci.pem"], cwd());
    expect(generated.code, generated.stderr).toBe(0);
    const key = JSON.parse(generated.stdout) as { key_id: string; public_key: string; path: string };
    expect(key).toMatchObject({
      type: "signing_key",
      path: join(bench.root, "ci.pem"),
      key_id: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
    const again = await invoke(["key", "generate", "--write", "ci.pem"], cwd());
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("the file exists (a key is never overwritten)");

    const run = await invoke(runArgs("signed", ["--signing-key", "ci.pem"]), cwd());
    expect(run.code, run.stderr).toBe(0);
    const [record] = await records("signed");
    expect(record!.signature).toMatchObject({ key_id: key.key_id, public_key: key.public_key });
    const listed = await invoke(["runs", "--out", "signed"], cwd());
    expect(JSON.parse(listed.stdout.trim().split("\n").at(-1)!)).toMatchObject({ signed: true });

    const tiers = await tiersRequiringSignatures("tiers-ci.yaml", [key.public_key]);
    const verdict = await invoke(
      [
        "promote-verdict",
        "--task-class",
        "upper",
        "--bench-root",
        bench.benchRoot,
        "--out",
        "signed",
        "--trust-tiers",
        tiers,
      ],
      cwd(),
    );
    expect(verdict.code, verdict.stderr).toBe(0);
    expect(JSON.parse(verdict.stdout)).toMatchObject({
      evidence_sufficient: true,
      signatures: { status: "signed", signers: ["signer-0"], head_signed: true },
    });

    // An unsigned run of the same SUT in that chain: the tier is no longer reached, and the verdict says why.
    const unsigned = await invoke(runArgs("signed", ["--no-cache"]), cwd());
    expect(unsigned.code, unsigned.stderr).toBe(0);
    const refused = await invoke(
      [
        "promote-verdict",
        "--task-class",
        "upper",
        "--bench-root",
        bench.benchRoot,
        "--out",
        "signed",
        "--trust-tiers",
        tiers,
      ],
      cwd(),
    );
    expect(JSON.parse(refused.stdout)).toMatchObject({
      evidence_sufficient: false,
      signatures: { status: "unsigned", head_signed: false },
    });
  }, 120_000);

  it("signs with EVALGATE_SIGNING_KEY, and refuses a bad key before running anything", async () => {
    const generated = JSON.parse((await invoke(["key", "generate", "--write", "env.pem"], cwd())).stdout) as {
      key_id: string;
    };
    const env = { EVALGATE_SIGNING_KEY: await readFile(join(bench.root, "env.pem"), "utf8") };
    const run = await invoke(runArgs("env-signed"), { ...cwd(), env });
    expect(run.code, run.stderr).toBe(0);
    expect((await records("env-signed"))[0]!.signature).toMatchObject({ key_id: generated.key_id });
    expect(env).toEqual({});

    const bad = await invoke(runArgs("bad-key"), { ...cwd(), env: { EVALGATE_SIGNING_KEY: "not a key" } });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("EVALGATE_SIGNING_KEY is not a PEM private key");
    const inside = await invoke(runArgs("env-signed", ["--signing-key", "env-signed/key.pem"]), cwd());
    expect(inside.code).toBe(1);
    expect(inside.stderr).toContain("is inside the state directory");
    expect(await records("env-signed")).toHaveLength(1);

    // Truncation: the record deleted, `gc` keeps the run's details and reports it.
    const runs = join(bench.root, "env-signed", "runs");
    for (const name of (await readdir(runs)).filter((n) => n.endsWith(".json"))) await rm(join(runs, name));
    const gc = await invoke(["gc", "--out", "env-signed"], cwd());
    expect(gc.code, gc.stderr).toBe(0);
    expect(JSON.parse(gc.stdout.trim().split("\n").at(-1)!)).toMatchObject({
      removed_detail_dirs: [],
      kept_removed_run_dirs: [expect.stringContaining(join("env-signed", "runs"))],
    });
    expect(gc.stderr).toContain("possible truncation");
  }, 120_000);

  it("ATTACK: a shard bundle rewritten together with its manifest digests (the signature kept, or dropped): refused by a signing merge", async () => {
    await invoke(["key", "generate", "--write", "shard.pem"], cwd());
    const other = JSON.parse((await invoke(["key", "generate", "--write", "other.pem"], cwd())).stdout) as {
      public_key: string;
    };
    const planned = await invoke(
      [
        "plan",
        "--task-class",
        "upper",
        "--bench-root",
        bench.benchRoot,
        "--sut",
        "module:sut.mjs#same",
        "--sandbox",
        "none",
        "--output",
        "plan.json",
      ],
      cwd(),
    );
    expect(planned.code, planned.stderr).toBe(0);
    const shard = await invoke(
      [
        "run",
        "--plan",
        "plan.json",
        "--shard",
        "1/1",
        "--bundle",
        "bundle",
        "--bench-root",
        bench.benchRoot,
        "--sandbox",
        "none",
        "--out",
        "shard-state",
        "--quiet",
        "--signing-key",
        "shard.pem",
      ],
      cwd(),
    );
    expect(shard.code, shard.stderr).toBe(0);
    const manifestPath = join(bench.root, "bundle", "manifest.json");
    const manifest = JSON.parse(await readFile(manifestPath, "utf8"));
    expect(manifest.signature).toBeDefined();

    // A signing merge accepts its own key's bundles, and refuses an undeclared shard key.
    const merged = await invoke(["merge", "bundle", "--out", "merged", "--signing-key", "shard.pem"], cwd());
    expect(merged.code, merged.stderr).toBe(0);
    const foreign = await invoke(["merge", "bundle", "--out", "merged-2", "--signing-key", "other.pem"], cwd());
    expect(foreign.code).toBe(9);
    expect(foreign.stderr).toContain("which is neither this merge's key nor a signer declared");

    // The forger turns every failing unit into a pass and rewrites the digests, as `scale-out.md` once admitted.
    const { blake3Digest } = await import("@eval/hashing");
    const files = [];
    for (const entry of manifest.files as { path: string; digest: string }[]) {
      if (!entry.path.startsWith("units/")) {
        files.push(entry);
        continue;
      }
      const unit = JSON.parse(await readFile(join(bench.root, "bundle", entry.path), "utf8"));
      const text = `${JSON.stringify({ ...unit, score: { ...unit.score, passed: true, score: 1, failure_modes: [] } }, null, 2)}\n`;
      await writeFile(join(bench.root, "bundle", entry.path), text);
      files.push({ path: entry.path, digest: blake3Digest(text) });
    }
    await writeFile(manifestPath, `${JSON.stringify({ ...manifest, files }, null, 2)}\n`);
    const kept = await invoke(["merge", "bundle", "--out", "forged-1"], cwd());
    expect(kept.code).toBe(9);
    expect(kept.stderr).toContain("the signature does not verify");
    const { signature: _dropped, ...unsignedManifest } = { ...manifest, files };
    await writeFile(manifestPath, `${JSON.stringify(unsignedManifest, null, 2)}\n`);
    // Without signing configured the forgery merges (what docs/scale-out.md names); a signing merge refuses it.
    const open = await invoke(["merge", "bundle", "--out", "forged-2"], cwd());
    expect(open.code, open.stderr).toBe(0);
    expect(JSON.parse(open.stdout)).toMatchObject({ passed_count: 2 });
    const signing = await invoke(
      [
        "merge",
        "bundle",
        "--out",
        "forged-3",
        "--signing-key",
        "shard.pem",
        "--trust-tiers",
        await tiersRequiringSignatures("tiers-other.yaml", [other.public_key]),
      ],
      cwd(),
    );
    expect(signing.code).toBe(9);
    expect(signing.stderr).toContain("is unsigned, and this merge signs");
  }, 180_000);
});

describe("evalgate attest", () => {
  it("writes a run's signed in-toto attestation and checks it against the chain; a tampered one is exit 5 in one line", async () => {
    const generated = await invoke(["key", "generate", "--write", "attest.pem"], cwd());
    expect(generated.code, generated.stderr).toBe(0);
    const key = JSON.parse(generated.stdout) as { key_id: string; public_key: string };
    const run = await invoke(runArgs("attested", ["--signing-key", "attest.pem"]), cwd());
    expect(run.code, run.stderr).toBe(0);
    const runId = JSON.parse(run.stdout.trim().split("\n").at(-1)!).run_id as string;
    const written = await invoke(
      ["attest", runId, "--out", "attested", "--write", "run.intoto.json", "--signing-key", "attest.pem"],
      cwd(),
    );
    expect(written.code, written.stderr).toBe(0);
    expect(JSON.parse(written.stdout)).toMatchObject({
      type: "attestation",
      verified: false,
      run_id: runId,
      task_class: "upper",
      key_id: key.key_id,
      signer: null,
    });
    const envelope = JSON.parse(await readFile(join(bench.root, "run.intoto.json"), "utf8")) as {
      payloadType: string;
      payload: string;
      signatures: { keyid: string }[];
    };
    expect(envelope).toMatchObject({
      payloadType: "application/vnd.in-toto+json",
      signatures: [{ keyid: key.key_id }],
    });

    const tiers = await tiersRequiringSignatures("tiers-attest.yaml", [key.public_key]);
    const checked = await invoke(
      ["attest", "--verify", "run.intoto.json", "--out", "attested", "--trust-tiers", tiers],
      cwd(),
    );
    expect(checked.code, checked.stderr).toBe(0);
    expect(JSON.parse(checked.stdout)).toMatchObject({
      type: "attestation",
      verified: true,
      run_id: runId,
      signer: "signer-0",
      subject_sha256: JSON.parse(written.stdout).subject_sha256,
    });

    // ATTACK: the payload's bound raised under the old signature.
    const statement = JSON.parse(Buffer.from(envelope.payload, "base64").toString("utf8")) as {
      predicate: { figures: { lower_bound_95: number } };
    };
    statement.predicate.figures.lower_bound_95 = 0.99;
    await writeFile(
      join(bench.root, "forged.intoto.json"),
      JSON.stringify({ ...envelope, payload: Buffer.from(JSON.stringify(statement)).toString("base64") }),
    );
    const forged = await invoke(
      ["attest", "--verify", "forged.intoto.json", "--out", "attested", "--trust-tiers", tiers],
      cwd(),
    );
    expect(forged.code).toBe(5);
    expect(forged.stderr).toMatch(/EVAL_ATTESTATION_INVALID|the signature does not verify/);
    expect(forged.stderr).not.toMatch(/\n\s+at /);
    // Not signed by a declared key: refused too.
    const undeclared = await invoke(
      ["attest", "--verify", "run.intoto.json", "--out", "attested", "--trust-tiers", TIERS],
      cwd(),
    );
    expect(undeclared.code).toBe(5);

    const unsigned = await invoke(["attest", runId, "--out", "attested", "--write", "x.json"], { ...cwd(), env: {} });
    expect(unsigned.code).toBe(1);
    expect(unsigned.stderr).toContain("an attestation is signed");
    const both = await invoke(["attest", runId, "--verify", "run.intoto.json", "--out", "attested"], cwd());
    expect(both.code).toBe(1);
    expect(both.stderr).toContain("or --verify <file> alone");
  }, 180_000);
});
