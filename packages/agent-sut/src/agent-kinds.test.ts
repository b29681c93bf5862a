import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { EvalWarning } from "@eval/errors";
import type { SystemUnderTest, TaskAgent } from "@eval/models";
import { binaryEnvName } from "@eval/cli-subscription-adapters";
import { createFakeCli, readStream, writeReport } from "@eval/cli-subscription-adapters/test-helpers";
import { resolveSutSpec } from "@eval/runner";
import { stateLayout } from "@eval/state-layout";
import { agentSutKinds } from "./agent-kinds.ts";
import type { AgentSutOptions } from "./agent-kinds.ts";

type KindOptions = AgentSutOptions & { readonly taskAgent?: TaskAgent | null };

/** The SUT the runner's resolver builds for `spec` with the agent kinds registered, as a run does. */
function resolveAgentSut(spec: string, { taskAgent = null, ...options }: KindOptions): Promise<SystemUnderTest> {
  const taskClass = { name: "demo", agent: taskAgent } as unknown as Parameters<typeof resolveSutSpec>[1];
  return resolveSutSpec(spec, taskClass, {
    cwd: process.cwd(),
    benchRoot: options.benchRoot,
    stateDir: options.stateDir,
    env: options.env,
    agents: agentSutKinds(options),
  });
}

/** A fake `claude` that prints a successful session. */
function fakeClaude(): { binaryPath: string } {
  return createFakeCli("claude", {
    version: "2.1.330 (Claude Code)",
    steps: [{ stdout: readStream("claude-success.stdout.jsonl") }],
  });
}

function options(overrides: Partial<KindOptions> = {}): KindOptions {
  return {
    stateDir: mkdtempSync(join(tmpdir(), "evalgate-state-")),
    benchRoot: "bench",
    env: { PATH: process.env.PATH },
    record: false,
    allowCliSubscription: false,
    acknowledgeUnsandboxedCli: false,
    allowStaleCompliance: false,
    onWarning: () => {},
    ...overrides,
  };
}

describe("agentSutKinds", () => {
  it("registers replay and cli; a spec of either kind in another shape is refused", async () => {
    expect(Object.keys(agentSutKinds(options()))).toEqual(["replay", "cli"]);
    for (const spec of ["replay:x", "cli"])
      await expect(resolveAgentSut(spec, options())).rejects.toThrow(
        expect.objectContaining({ code: "EVAL_SUT_INVALID", message: `unknown SUT spec "${spec}"` }),
      );
  });

  it("replay with the opt-in replays on the wire (the real CLI behind the bridge); without it, the harness reads cassettes", async () => {
    expect((await resolveAgentSut("replay", options())).isolation).toBe("harness");
    const wire = await resolveAgentSut("replay", options({ allowCliSubscription: true, sandbox: "none" }));
    expect(wire.isolation).toBe("bwrap-bridge");
    expect(wire.digest).not.toBe((await resolveAgentSut("replay", options())).digest);
  });

  it("replay: a replay SUT; --record with replay is a usage error", async () => {
    const sut = await resolveAgentSut("replay", options());
    expect(sut.label).toBe("replay");
    await expect(resolveAgentSut("replay", options({ record: true }))).rejects.toThrow(
      expect.objectContaining({ code: "EVAL_USAGE" }),
    );
  });

  it("cli:<adapter>: unknown adapters, missing opt-ins and a missing compliance report stop before any case", async () => {
    await expect(resolveAgentSut("cli:cursor", options())).rejects.toThrow(
      expect.objectContaining({ code: "EVAL_SUT_INVALID" }),
    );
    const fake = fakeClaude();
    // Behind the model bridge (the default) the provider's key is needed; it never reaches the CLI.
    const env = {
      PATH: process.env.PATH,
      ANTHROPIC_API_KEY: "sk-ant-test",
      [binaryEnvName("claude-code")]: fake.binaryPath,
    };
    await expect(resolveAgentSut("cli:claude-code", options({ env }))).rejects.toThrow(
      expect.objectContaining({ code: "EVAL_ADAPTER_NOT_OPTED_IN" }),
    );
    const optedIn = { env, allowCliSubscription: true, acknowledgeUnsandboxedCli: true };
    await expect(resolveAgentSut("cli:claude-code", options(optedIn))).rejects.toThrow(
      expect.objectContaining({ code: "EVAL_ADAPTER_COMPLIANCE_MISSING" }),
    );
    const warnings: EvalWarning[] = [];
    const stale = await resolveAgentSut(
      "cli:claude-code",
      options({ ...optedIn, allowStaleCompliance: true, onWarning: (warning) => warnings.push(warning) }),
    );
    expect(stale.label).toBe("cli:claude-code");
    expect(warnings.map((warning) => warning.code)).toEqual(["adapter.compliance_overridden"]);
    expect(stale.isolation).toBe("bwrap-bridge");
  });

  it("cli:<adapter> behind the bridge needs the provider's key, or an upstream; the host's network needs both opt-ins", async () => {
    const fake = fakeClaude();
    const env = { PATH: process.env.PATH, [binaryEnvName("claude-code")]: fake.binaryPath };
    const base = { env, allowCliSubscription: true, allowStaleCompliance: true };
    await expect(resolveAgentSut("cli:claude-code", options(base))).rejects.toThrow(
      expect.objectContaining({
        code: "EVAL_MODEL_KEY_MISSING",
        message: expect.stringContaining("ANTHROPIC_API_KEY"),
      }),
    );
    expect(
      (await resolveAgentSut("cli:claude-code", options({ ...base, modelUpstream: "http://127.0.0.1:9/v1" })))!
        .isolation,
    ).toBe("bwrap-bridge");
    await expect(resolveAgentSut("cli:claude-code", options({ ...base, modelUpstream: "ftp://x" }))).rejects.toThrow(
      expect.objectContaining({ code: "EVAL_USAGE" }),
    );
    await expect(resolveAgentSut("cli:claude-code", options({ ...base, agentNetwork: "host" }))).rejects.toThrow(
      expect.objectContaining({ code: "EVAL_ADAPTER_NOT_OPTED_IN" }),
    );
    expect(
      (
        await resolveAgentSut(
          "cli:claude-code",
          options({ ...base, agentNetwork: "host", acknowledgeUnsandboxedCli: true }),
        )
      ).isolation,
    ).toBe("bwrap-network");
  });

  it("cli:<adapter> with a passing compliance report for that binary: a live SUT", async () => {
    const fake = fakeClaude();
    const opts = options({
      env: {
        PATH: process.env.PATH,
        ANTHROPIC_API_KEY: "sk-ant-test",
        [binaryEnvName("claude-code")]: fake.binaryPath,
      },
      allowCliSubscription: true,
      acknowledgeUnsandboxedCli: true,
      record: true,
    });
    writeReport(stateLayout(opts.stateDir).compliance, {
      adapter: "claude-code",
      binaryPath: fake.binaryPath,
      version: "2.1.330",
    });
    const sut = await resolveAgentSut("cli:claude-code", opts);
    expect(sut.label).toBe("cli:claude-code");
    expect(sut.digest).toMatch(/^blake3:/);
    expect(binaryEnvName("claude-code")).toBe("EVALGATE_CLI_BINARY_CLAUDE_CODE");
  }, 60_000);

  it("cli:<adapter> takes the task class's model and flags for it; --agent-model replaces the model; the class's flags are checked like --agent-arg", async () => {
    const fake = fakeClaude();
    const base = {
      env: { PATH: process.env.PATH, [binaryEnvName("claude-code")]: fake.binaryPath },
      allowCliSubscription: true,
      acknowledgeUnsandboxedCli: true,
      allowStaleCompliance: true,
      agentNetwork: "host" as const,
    };
    const digest = async (extra: Partial<KindOptions>) =>
      (await resolveAgentSut("cli:claude-code", options({ ...base, ...extra }))).digest;
    const classModel = { adapters: { "claude-code": { model: "class-model", args: ["--effort", "high"] } } };
    const [none, flagOnly, fromClass, classAndFlag, otherAdapter] = await Promise.all([
      digest({}),
      digest({ agentModel: "flag-model", agentArgs: ["--effort", "high"] }),
      digest({ taskAgent: classModel }),
      digest({ taskAgent: classModel, agentModel: "flag-model" }),
      digest({ taskAgent: { adapters: { codex: { model: "gpt" } } } }),
    ]);
    expect(fromClass).not.toBe(none);
    expect(classAndFlag).toBe(flagOnly);
    expect(otherAdapter).toBe(none);
    await expect(
      resolveAgentSut(
        "cli:claude-code",
        options({ ...base, taskAgent: { adapters: { "claude-code": { args: ["--dangerously-skip-permissions"] } } } }),
      ),
    ).rejects.toThrow(expect.objectContaining({ code: "EVAL_ADAPTER_INVALID" }));
  }, 60_000);
});
