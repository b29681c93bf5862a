import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { EvalWarning } from "@eval/errors";
import { sha256Digest } from "@eval/hashing";
import type { BenchCase, SutInvocation, SutStreams } from "@eval/models";
import { CassetteMetaSchema, sutCaseOf } from "@eval/models";
import { benchRootOf, testBenchCase } from "@eval/test-utils";
import { parseScenario, startModelStub } from "@eval/model-stub";
import { readCassette, writeCassette } from "./cassette-files.ts";
import { buildAgentPrompt, promptSha256 } from "@eval/cli-subscription-adapters";
import { createFakeCli, readStream, writeReport } from "@eval/cli-subscription-adapters/test-helpers";
import type { FakeStep } from "@eval/cli-subscription-adapters/test-helpers";
import { createLiveSut, createReplaySut } from "./suts.ts";

const SEED = "ab".repeat(32);
const OTHER_SEED = "cd".repeat(32);

/** The bench root of the newest case makeCase built: where a recording live SUT writes its cassette. */
let latestBenchRoot = "/nonexistent";

function makeCase(prompt = "Fix the vulnerable dependency in src/app.js."): { benchCase: BenchCase; caseDir: string } {
  const caseDir = join(mkdtempSync(join(tmpdir(), "evalgate-bench-")), "vuln-remediation", "cases", "demo-case");
  mkdirSync(join(caseDir, "input", "src"), { recursive: true });
  writeFileSync(join(caseDir, "input", "src", "app.js"), "broken\n");
  const benchCase = testBenchCase({ caseDir, prompt });
  latestBenchRoot = benchRootOf(caseDir);
  return { benchCase, caseDir };
}

function invocation(benchCase: BenchCase, seed = SEED): SutInvocation {
  const workspacePath = mkdtempSync(join(tmpdir(), "evalgate-ws-"));
  cpSync(benchCase.input_path, workspacePath, { recursive: true });
  return {
    benchCase: sutCaseOf(benchCase),
    workspacePath,
    canarySeed: seed,
    signal: new AbortController().signal,
    timeoutMs: 20_000,
    invocationTag: "bench:2026-11-22T03:00:00Z:vuln-remediation:demo-case",
  };
}

function liveSut(
  name: "claude" | "codex",
  steps: FakeStep[],
  extra: Record<string, unknown> = {},
  binaryPath?: string,
) {
  const version = name === "claude" ? "2.1.330 (Claude Code)" : "codex-cli 0.169.0";
  const adapter = name === "claude" ? "claude-code" : "codex";
  const made = createFakeCli(name, {
    version,
    steps,
    authStatus: { args: "login status", stdout: "Logged in using an API key\n", code: 0 },
  });
  const fake = binaryPath === undefined ? made : { ...made, binaryPath };
  const complianceDir = join(mkdtempSync(join(tmpdir(), "evalgate-state-")), "compliance");
  writeReport(complianceDir, { adapter, binaryPath: fake.binaryPath, version: version.match(/\d+\.\d+\.\d+/)![0] });
  const sut = createLiveSut({
    adapter,
    allow_cli_subscription: true,
    acknowledge_unsandboxed_cli: true,
    sandbox: "none",
    complianceDir,
    binaryPath: fake.binaryPath,
    env: { PATH: process.env.PATH },
    graceMs: 1_000,
    record: true,
    benchRoot: latestBenchRoot,
    ...extra,
  });
  return { sut, fake };
}

describe("a live agent SUT's identity", () => {
  it("is the CLI's binary and installation by content, not its --version: another binary printing the same version is another SUT", () => {
    const one = liveSut("claude", [{ stdout: "file:claude-success.stdout.jsonl" }]);
    const two = liveSut("claude", [{ stdout: "file:claude-success.stdout.jsonl" }]);
    // Same bytes at two paths: the same SUT.
    expect(two.sut.digest).toBe(one.sut.digest);
    const rebuilt = liveSut("claude", [{ stdout: "file:claude-success.stdout.jsonl" }]);
    appendFileSync(rebuilt.fake.binaryPath, "// another build, same --version\n");
    // The digest is taken when the SUT is made: a new one over the changed binary.
    const changed = liveSut("claude", [], {}, rebuilt.fake.binaryPath);
    expect(changed.sut.digest).not.toBe(one.sut.digest);
  });
});

describe("live SUT against evalgate's model stub", () => {
  it("the cassette's provenance names the scenario the stub served, checked against the compliance report before any case", async () => {
    const stub = await startModelStub({ scenario: parseScenario({ turns: [{ text: "Fixed." }] }) });
    try {
      const { benchCase, caseDir } = makeCase();
      const fake = createFakeCli("claude", {
        version: "2.1.330 (Claude Code)",
        steps: [
          { modifyFile: { path: "src/app.js", content: "fixed\n" } },
          { stdout: "file:claude-success.stdout.jsonl" },
        ],
      });
      const complianceDir = join(mkdtempSync(join(tmpdir(), "evalgate-state-")), "compliance");
      writeReport(complianceDir, {
        adapter: "claude-code",
        binaryPath: fake.binaryPath,
        version: "2.1.330",
        origin: stub.url,
        scenario: stub.scenarioSha256,
      });
      const options = {
        adapter: "claude-code" as const,
        allow_cli_subscription: true,
        acknowledge_unsandboxed_cli: true,
        sandbox: "none" as const,
        complianceDir,
        binaryPath: fake.binaryPath,
        record: true,
        benchRoot: latestBenchRoot,
      };
      const sut = createLiveSut({ ...options, env: { PATH: process.env.PATH, ANTHROPIC_BASE_URL: stub.url } });
      await sut.preflight!({ cases: [sutCaseOf(benchCase)], trials: 1 });
      await sut.run(invocation(benchCase));
      const meta = CassetteMetaSchema.parse(
        JSON.parse(readFileSync(join(caseDir, "cassette", "cassette.json"), "utf8")),
      );
      expect(meta.provenance).toMatchObject({
        agent_network: "host",
        model_source: "scripted",
        scenario_sha256: stub.scenarioSha256,
      });
      // A report earned against the provider's API admits no run against the stub.
      const other = join(mkdtempSync(join(tmpdir(), "evalgate-state-")), "compliance");
      writeReport(other, { adapter: "claude-code", binaryPath: fake.binaryPath, version: "2.1.330" });
      expect(() =>
        createLiveSut({
          ...options,
          complianceDir: other,
          env: { PATH: process.env.PATH, ANTHROPIC_BASE_URL: stub.url },
        }),
      ).toThrow(expect.objectContaining({ code: "EVAL_ADAPTER_COMPLIANCE_MISSING" }));
    } finally {
      await stub.close();
    }
  });
});

describe("buildAgentPrompt", () => {
  it("appends a canary derived from the seed; same case and seed, same prompt", () => {
    const { benchCase } = makeCase();
    const prompt = buildAgentPrompt(benchCase, SEED);
    expect(prompt.startsWith("Fix the vulnerable dependency in src/app.js.\n\n[evalgate canary ")).toBe(true);
    expect(buildAgentPrompt(benchCase, SEED)).toBe(prompt);
    expect(buildAgentPrompt(benchCase, OTHER_SEED)).not.toBe(prompt);
    expect(promptSha256(prompt)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(() => buildAgentPrompt(benchCase, "short")).toThrow(/64 lowercase hex/);
  });
});

describe("live SUT with --record, then replay", () => {
  it("records the session as a cassette; replay reproduces classification, transcript and diff without a live call", async () => {
    const { benchCase, caseDir } = makeCase();
    const { sut, fake } = liveSut("claude", [
      { modifyFile: { path: "src/app.js", content: "fixed\n" } },
      { stdout: "file:claude-success.stdout.jsonl" },
    ]);
    expect(sut.label).toBe("cli:claude-code");
    expect(sut.digest).toMatch(/^blake3:[0-9a-f]{64}$/);
    const liveStreams: SutStreams[] = [];
    const live = { ...invocation(benchCase), recordStreams: (streams: SutStreams) => void liveStreams.push(streams) };
    const output = await sut.run(live);
    // The harness is handed the CLI's own streams (secrets scrubbed) to record.
    expect(liveStreams).toHaveLength(1);
    expect(liveStreams[0]!.stdout).toBe(readStream("claude-success.stdout.jsonl"));
    expect(output).toMatchObject({
      adapter: "claude-code",
      cli_version: "2.1.330",
      trial_class: "parse_success",
      cost_usd: 0.0213,
      replayed: false,
    });
    expect(readFileSync(join(live.workspacePath, "src", "app.js"), "utf8")).toBe("fixed\n");
    expect(fake.invocations()[0]!.envNames).toContain("EVALGATE_BENCH_INVOCATION_TAG");

    const cassetteDir = join(caseDir, "cassette");
    expect(readdirSync(cassetteDir).sort()).toEqual(["cassette.json", "stderr.txt", "stdout.jsonl", "workspace.diff"]);
    const meta = CassetteMetaSchema.parse(JSON.parse(readFileSync(join(cassetteDir, "cassette.json"), "utf8")));
    expect(meta.prompt_sha256).toBe(promptSha256(buildAgentPrompt(benchCase, SEED)));
    expect(meta.argv_redacted[1]).toBe(buildAgentPrompt(benchCase, SEED));
    expect(meta).toMatchObject({
      adapter: "claude-code",
      cli_version: "2.1.330",
      exit_code: 0,
      timed_out: false,
      synthetic: false,
    });
    // Provenance: the content of the binary that ran (not its path), and how it reached its model.
    expect(meta.provenance).toEqual({
      cli_binary_sha256: sha256Digest(readFileSync(realpathSync(fake.binaryPath))),
      agent_network: "host",
      endpoint_host: null,
      model_source: "live",
    });
    expect(readFileSync(join(cassetteDir, "stdout.jsonl"), "utf8")).toBe(readStream("claude-success.stdout.jsonl"));

    const replayed = await createReplaySut({ benchRoot: benchRootOf(benchCase.case_path) }).run(invocation(benchCase));
    expect(replayed).toMatchObject({
      trial_class: "parse_success",
      cost_usd: 0,
      recorded_cost_usd: 0.0213,
      replayed: true,
      synthetic_cassette: false,
      diff: output.diff,
    });
    expect(replayed.transcript).toEqual(output.transcript);
    expect(fake.invocations()).toHaveLength(1);
    const replayStreams: SutStreams[] = [];
    const replayWorkspace = {
      ...invocation(benchCase),
      recordStreams: (streams: SutStreams) => void replayStreams.push(streams),
    };
    await createReplaySut({ benchRoot: benchRootOf(benchCase.case_path) }).run(replayWorkspace);
    expect(replayStreams.map((streams) => streams.stdout)).toEqual([readStream("claude-success.stdout.jsonl")]);
    expect(readFileSync(join(replayWorkspace.workspacePath, "src", "app.js"), "utf8")).toBe("fixed\n");
  });

  it("--record refuses, before any case, to replace a recorded session (naming the cases; re-sign when the bench is signed) unless told to overwrite", async () => {
    const { benchCase, caseDir } = makeCase();
    const cases = [sutCaseOf(benchCase)];
    const { sut } = liveSut("claude", [{ stdout: "file:claude-success.stdout.jsonl" }]);
    await expect(sut.preflight!({ cases, trials: 1 })).resolves.toBeUndefined();
    await sut.run(invocation(benchCase));
    await expect(sut.preflight!({ cases, trials: 1 })).rejects.toThrow(
      expect.objectContaining({
        code: "EVAL_USAGE",
        message: "--record would replace the recorded sessions of 1 case(s): demo-case",
        hint: expect.not.stringContaining("re-sign"),
      }),
    );
    writeFileSync(join(caseDir, "..", "digests.yaml"), "schema_version: evalgate.digests.v1\n");
    await expect(sut.preflight!({ cases, trials: 2 })).rejects.toThrow(
      expect.objectContaining({
        hint: expect.stringContaining(
          "--record-overwrite to replace them, then re-sign the bench (evalgate bench sign)",
        ),
      }),
    );
    await expect(
      liveSut("claude", [], { record_overwrite: true }).sut.preflight!({ cases, trials: 1 }),
    ).resolves.toBeUndefined();
    await expect(
      liveSut("claude", [], { record: false }).sut.preflight!({ cases, trials: 1 }),
    ).resolves.toBeUndefined();
  });

  it("--record with trials writes one cassette per trial; replay reads each trial's own and refuses fewer sessions than trials", async () => {
    const { benchCase, caseDir } = makeCase();
    const { sut } = liveSut("claude", [
      { modifyFile: { path: "src/app.js", content: "fixed\n" } },
      { stdout: "file:claude-success.stdout.jsonl" },
    ]);
    await sut.run(invocation(benchCase));
    const replay = createReplaySut({ benchRoot: benchRootOf(benchCase.case_path) });
    const cases = [sutCaseOf(benchCase)];
    await expect(replay.preflight!({ cases, trials: 1 })).resolves.toBeUndefined();
    await expect(replay.preflight!({ cases, trials: 3 })).rejects.toThrow(
      expect.objectContaining({
        code: "EVAL_CASSETTES_TOO_FEW",
        message: expect.stringMatching(/needs 3 recorded sessions per case; too few in demo-case \(1\)/),
      }),
    );
    const second = liveSut("claude", [
      { modifyFile: { path: "src/app.js", content: "fixed differently\n" } },
      { stdout: "file:claude-success.stdout.jsonl" },
    ]);
    await second.sut.run({ ...invocation(benchCase), trial: 1 });
    expect(existsSync(join(caseDir, "cassette.trial-1", "cassette.json"))).toBe(true);
    await expect(replay.preflight!({ cases, trials: 2 })).resolves.toBeUndefined();
    const trial1 = { ...invocation(benchCase), trial: 1 };
    await replay.run(trial1);
    expect(readFileSync(join(trial1.workspacePath, "src", "app.js"), "utf8")).toBe("fixed differently\n");
    const trial0 = invocation(benchCase);
    await replay.run(trial0);
    expect(readFileSync(join(trial0.workspacePath, "src", "app.js"), "utf8")).toBe("fixed\n");
  });

  it("a CLI that can no longer be started is the agent's infrastructure (agent.infrastructure); what the CLI reports itself is not", async () => {
    const { benchCase } = makeCase();
    const { sut, fake } = liveSut("claude", [{ stdout: "file:claude-success.stdout.jsonl" }]);
    rmSync(fake.binaryPath);
    await expect(sut.run(invocation(benchCase))).rejects.toThrow(
      expect.objectContaining({
        failure_mode: "agent.infrastructure",
        message: expect.stringMatching(/^claude-code: the CLI could not be started: .*claude: ENOENT$/),
      }),
    );
    // The file is there but cannot be executed: the same.
    writeFileSync(fake.binaryPath, "#!/bin/sh\n", { mode: 0o644 });
    await expect(sut.run(invocation(benchCase))).rejects.toThrow(
      expect.objectContaining({ failure_mode: "agent.infrastructure", message: expect.stringMatching(/EACCES$/) }),
    );
    // A CLI that says its network is down, or exits as if it could not start, is the SUT failing the attempt.
    const { sut: claims } = liveSut("claude", [
      { stderr: "spawn ENOENT: the CLI could not be started\n", stdout: "file:claude-noauth.stdout.jsonl", exit: 127 },
    ]);
    const thrown = await claims.run(invocation(benchCase)).catch((error: unknown) => error);
    expect(thrown).toMatchObject({ code: "EVAL_ADAPTER_TRIAL_FAILED" });
    expect((thrown as { failure_mode?: unknown }).failure_mode).toBeUndefined();
  });

  it("a CLI error (auth) throws for the runner's sut.exception and writes no cassette", async () => {
    const { benchCase, caseDir } = makeCase();
    const { sut } = liveSut("claude", [{ stdout: "file:claude-noauth.stdout.jsonl", exit: 1 }]);
    await expect(sut.run(invocation(benchCase))).rejects.toThrow(
      expect.objectContaining({
        code: "EVAL_ADAPTER_TRIAL_FAILED",
        message: expect.stringMatching(/\(auth_failure\)/),
      }),
    );
    expect(existsSync(join(caseDir, "cassette"))).toBe(false);
  });

  it("replay refuses a stale cassette (other canary seed), a missing one, a malformed one, and a diff that does not apply", async () => {
    const { benchCase, caseDir } = makeCase();
    const replay = createReplaySut({ benchRoot: benchRootOf(benchCase.case_path) });
    await expect(replay.run(invocation(benchCase))).rejects.toThrow(
      expect.objectContaining({
        code: "EVAL_CASSETTE_INVALID",
        message: expect.stringMatching(/cassette.json is missing/),
      }),
    );
    const { sut } = liveSut("claude", [
      { modifyFile: { path: "src/app.js", content: "fixed\n" } },
      { stdout: "file:claude-success.stdout.jsonl" },
    ]);
    await sut.run(invocation(benchCase));
    await expect(replay.run(invocation(benchCase, OTHER_SEED))).rejects.toThrow(
      /is stale: it was recorded for prompt sha256:/,
    );
    const changedPrompt = { ...benchCase, prompt: "Something else." };
    await expect(replay.run(invocation(changedPrompt))).rejects.toThrow(/is stale/);
    const drifted = invocation(benchCase);
    writeFileSync(join(drifted.workspacePath, "src", "app.js"), "someone changed the input\n");
    await expect(replay.run(drifted)).rejects.toThrow(/the diff for src\/app.js does not apply/);
    writeFileSync(join(caseDir, "cassette", "cassette.json"), "{not json");
    await expect(replay.run(invocation(benchCase))).rejects.toThrow(/cassette.json is not valid JSON/);
    writeFileSync(
      join(caseDir, "cassette", "cassette.json"),
      JSON.stringify({ schema_version: "evalgate.cassette.v1" }),
    );
    await expect(replay.run(invocation(benchCase))).rejects.toThrow(/adapter: /);
  });

  it("replays a hand-written synthetic cassette in the CLI's own format through the same parser", async () => {
    const { benchCase, caseDir } = makeCase();
    const prompt = buildAgentPrompt(benchCase, SEED);
    writeCassette(join(caseDir, "cassette"), {
      meta: {
        schema_version: "evalgate.cassette.v1",
        adapter: "gemini",
        cli_version: "0.61.0",
        argv_redacted: ["--prompt", prompt],
        prompt_sha256: promptSha256(prompt),
        exit_code: 0,
        timed_out: false,
        stdout_capped: false,
        duration_ms: 10,
        cost_usd: null,
        recorded_at: "2026-11-22T03:00:00Z",
        synthetic: true,
      },
      stdout: readStream("gemini-success.stdout.jsonl"),
      stderr: "",
      diff: "",
    });
    // A drifted recorded stream still replays, with a warning.
    const warnings: EvalWarning[] = [];
    const drifted = readCassette(join(caseDir, "cassette"));
    writeCassette(join(caseDir, "cassette"), { ...drifted, stdout: `${drifted.stdout}{"type":"hologram"}\n` });
    expect(
      (
        await createReplaySut({
          benchRoot: benchRootOf(benchCase.case_path),
          onWarning: (warning) => warnings.push(warning),
        }).run(invocation(benchCase))
      ).trial_class,
    ).toBe("format_drift");
    expect(warnings.map((warning) => warning.code)).toEqual(["replay.cassette_not_clean"]);
    writeCassette(join(caseDir, "cassette"), drifted);
    // Writing again replaces the old cassette atomically.
    writeCassette(join(caseDir, "cassette"), { ...readCassette(join(caseDir, "cassette")) });
    expect(readdirSync(caseDir).filter((name) => name.startsWith("cassette"))).toEqual(["cassette"]);
    const output = await createReplaySut({ benchRoot: benchRootOf(benchCase.case_path) }).run(invocation(benchCase));
    expect(output).toMatchObject({ adapter: "gemini", trial_class: "parse_success", synthetic_cassette: true });
    expect(output.cost_usd).toBe(0);
    expect(output.recorded_cost_usd).toBeNull();
  });
});

describe("secrets never reach recorded evidence; the prompt always does", () => {
  it("--password=hunter2, --password hunter2 and OPENAI_API_KEY=sk-... stay out of argv, env, cassette, transcript and warnings", async () => {
    const secretKey = "sk-test-0123456789abcdef";
    const { benchCase, caseDir } = makeCase("Upgrade the dependency.");
    const warnings: EvalWarning[] = [];
    const { sut, fake } = liveSut(
      "codex",
      [
        { echoArgs: true },
        { echoEnv: "OPENAI_API_KEY" },
        {
          stdout: `{"type":"item.completed","item":{"id":"item_9","type":"agent_message","text":"your key is ${secretKey}, password hunter2"}}\n`,
        },
        { stdout: "file:codex-success.stdout.jsonl" },
      ],
      {
        env: { PATH: process.env.PATH, OPENAI_API_KEY: secretKey, UNRELATED_SECRET_TOKEN: "never-passed" },
        extra_args: ["--password=hunter2", "--password", "hunter2", `OPENAI_API_KEY=${secretKey}`],
        onWarning: (warning: EvalWarning) => warnings.push(warning),
      },
    );
    const output = await sut.run(invocation(benchCase));
    // The CLI itself did get what it needs.
    const exec = fake.invocations().find((entry) => entry.args[0] === "exec")!;
    expect(exec.args).toContain("--password=hunter2");
    expect(exec.envNames).toContain("OPENAI_API_KEY");
    expect(exec.envNames).not.toContain("UNRELATED_SECRET_TOKEN");
    expect(exec.stdin).toBe(buildAgentPrompt(benchCase, SEED));

    const evidence = [
      JSON.stringify(output),
      ...readdirSync(join(caseDir, "cassette")).map((name) => readFileSync(join(caseDir, "cassette", name), "utf8")),
      JSON.stringify(warnings),
    ].join("\n");
    expect(evidence).not.toContain("hunter2");
    expect(evidence).not.toContain(secretKey);
    expect(evidence).not.toContain("never-passed");
    const meta = (
      output as { backend_metadata: { argv_redacted: string[]; env_allowlist: { name: string; secret: boolean }[] } }
    ).backend_metadata;
    expect(meta.argv_redacted.slice(-4)).toEqual([
      "--password=<redacted>",
      "--password",
      "<redacted>",
      "OPENAI_API_KEY=<redacted>",
    ]);
    expect(meta.env_allowlist).toContainEqual({ name: "OPENAI_API_KEY", secret: true });
    expect(readFileSync(join(caseDir, "cassette", "stderr.txt"), "utf8")).toContain("OPENAI_API_KEY=<redacted>");
  });

  it("the prompt given with --print survives redaction into metadata and cassette, even when it mentions a password flag", async () => {
    const { benchCase, caseDir } = makeCase("Rotate the credential passed as --password in deploy.sh.");
    const { sut } = liveSut("claude", [{ stdout: "file:claude-success.stdout.jsonl" }], {
      extra_args: ["--password", "hunter2"],
    });
    const output = (await sut.run(invocation(benchCase))) as { backend_metadata: { argv_redacted: string[] } };
    const prompt = buildAgentPrompt(benchCase, SEED);
    expect(output.backend_metadata.argv_redacted.slice(0, 2)).toEqual(["--print", prompt]);
    const meta = JSON.parse(readFileSync(join(caseDir, "cassette", "cassette.json"), "utf8")) as {
      argv_redacted: string[];
    };
    expect(meta.argv_redacted).toContain(prompt);
    expect(meta.argv_redacted.slice(-2)).toEqual(["--password", "<redacted>"]);
  });
});

describe("transcript log", () => {
  it("writes one transcript line per invocation, live or replayed, and the stream log when asked", async () => {
    const { benchCase } = makeCase();
    const transcriptsDir = join(mkdtempSync(join(tmpdir(), "evalgate-transcripts-")), "transcripts");
    const { sut } = liveSut(
      "claude",
      [{ modifyFile: { path: "src/app.js", content: "fixed\n" } }, { stdout: "file:claude-success.stdout.jsonl" }],
      { record: true, transcriptLog: { transcriptsDir, streamLog: "raw" } },
    );
    await sut.run(invocation(benchCase));
    const streams = readdirSync(join(transcriptsDir, "streams"));
    expect(streams).toEqual(["bench_2026-11-22T03_00_00Z_vuln-remediation_demo-case.jsonl"]);
    expect(readFileSync(join(transcriptsDir, "streams", streams[0]!), "utf8")).toBe(
      readStream("claude-success.stdout.jsonl"),
    );

    await createReplaySut({
      benchRoot: benchRootOf(benchCase.case_path),
      transcriptLog: { transcriptsDir, streamLog: "summary" },
    }).run(invocation(benchCase));
    const lines = readFileSync(join(transcriptsDir, "vuln-remediation.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line).toMatchObject({
        schema_version: "evalgate.transcript.v1",
        case_id: "demo-case",
        invocation_tag: "bench:2026-11-22T03:00:00Z:vuln-remediation:demo-case",
      });
    }
    expect(
      readFileSync(
        join(transcriptsDir, "streams", "bench_2026-11-22T03_00_00Z_vuln-remediation_demo-case.summary.txt"),
        "utf8",
      ),
    ).toContain("tool calls");
  });

  it("writes the transcript even when the live session ends in a CLI error", async () => {
    const { benchCase } = makeCase();
    const transcriptsDir = join(mkdtempSync(join(tmpdir(), "evalgate-transcripts-")), "transcripts");
    const { sut } = liveSut("claude", [{ stdout: "file:claude-noauth.stdout.jsonl" }, { exit: 1 }], {
      transcriptLog: { transcriptsDir },
    });
    await expect(sut.run(invocation(benchCase))).rejects.toThrow(/auth/);
    expect(readFileSync(join(transcriptsDir, "vuln-remediation.jsonl"), "utf8").trim().split("\n")).toHaveLength(1);
    expect(existsSync(join(transcriptsDir, "streams"))).toBe(false);
  });
});
