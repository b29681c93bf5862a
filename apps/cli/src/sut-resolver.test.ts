import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { binaryEnvName } from "@eval/cli-subscription-adapters";
import { CLAUDE_SUCCESS, fakeClaude } from "./commands/adapters.test-helpers.ts";
import { sutChooser, sutResolveOptions } from "./sut-resolver.ts";
import type { SutResolverOptions } from "./sut-resolver.ts";

let dir: string;
let options: SutResolverOptions;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "evalgate-sut-"));
  await writeFile(
    join(dir, "sut.mjs"),
    "export async function fix() { return { cost_usd: 0 }; }\nexport default async () => ({});\nexport const value = 1;\n",
  );
  options = {
    cwd: dir,
    env: {},
    stateDir: join(dir, ".evalgate"),
    benchRoot: join(dir, "bench"),
    record: false,
    allowCliSubscription: false,
    acknowledgeUnsandboxedCli: false,
    allowStaleCompliance: false,
    onWarning: () => {},
  };
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const selected = (agent: unknown, cases: unknown[] = []) => ({ taskClass: { name: "t", agent }, cases }) as never;

describe("sutResolveOptions", () => {
  it("maps the flags: the bench, the state and --cache-dir hidden from a command SUT, --sut-read, --sut-network; replay and cli registered", () => {
    const mapped = sutResolveOptions({
      ...options,
      hideFromSut: ["/cache"],
      sutRead: ["/lib"],
      sutNetwork: true,
      sandbox: "none",
    });
    expect(mapped).toMatchObject({
      cwd: dir,
      benchRoot: options.benchRoot,
      stateDir: options.stateDir,
      hide: ["/cache"],
      readable: ["/lib"],
      network: true,
      sandbox: "none",
    });
    expect(Object.keys(mapped.agents!).sort()).toEqual(["cli", "replay"]);
  });
});

describe("sutChooser", () => {
  it("resolves module: specs relative to cwd once the run has selected its cases", async () => {
    const choose = await sutChooser("module:sut.mjs#fix", options);
    expect((await choose(selected(null))).label).toBe("module:sut.mjs#fix");
    await expect((await sutChooser("module:sut.mjs#value", options))(selected(null))).rejects.toThrow(
      /no function export "value"/,
    );
  });

  it("without --sut, the runner's default rule: replay for cases with a cassette, refused without one", async () => {
    const choose = await sutChooser(undefined, options);
    expect((await choose(selected(null, [{ cassette_path: join(dir, "c.jsonl") }]))).label).toBe("replay");
    await expect(choose(selected(null, [{ cassette_path: null }]))).rejects.toMatchObject({ code: "EVAL_SUT_INVALID" });
  });

  it("refuses unknown specs, unknown adapters and an argument to replay", async () => {
    for (const spec of ["telepathy", "cli:nonesuch", "replay:x"])
      await expect((await sutChooser(spec, options))(selected(null))).rejects.toMatchObject({
        code: "EVAL_SUT_INVALID",
      });
  });

  it("a cli: agent takes the loaded task class's agent declaration", async () => {
    const fake = fakeClaude({ stream: CLAUDE_SUCCESS });
    const agentOptions = {
      ...options,
      env: { PATH: process.env.PATH, [binaryEnvName("claude-code")]: fake.binaryPath },
      allowCliSubscription: true,
      acknowledgeUnsandboxedCli: true,
      allowStaleCompliance: true,
      agentNetwork: "host" as const,
    };
    const choose = await sutChooser("cli:claude-code", agentOptions);
    expect((await choose(selected(null))).label).toBe("cli:claude-code");
    // The class's flags reach the backend, which refuses a permission bypass among them as it does on the command line.
    await expect(
      choose(selected({ adapters: { "claude-code": { args: ["--dangerously-skip-permissions"] } } })),
    ).rejects.toThrow(expect.objectContaining({ code: "EVAL_ADAPTER_INVALID" }));
  }, 60_000);
});
