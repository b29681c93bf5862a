import { createHash } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import rubric, { hasShell, judgeDockerfile, readFacts, scoreCase, type MigrationFacts } from "../rubric.ts";
import { BREAKDOWN_KEYS } from "../breakdown-keys.ts";
import { parseDockerfile, parseImageRef } from "../dockerfile.ts";
import {
  cassetteMeta,
  caseIds,
  cleanupWorkspaces,
  freshWorkspace,
  loadCase,
  replayedWorkspace,
} from "./case-fixtures.ts";

afterAll(cleanupWorkspaces);

const ok = { trial_class: "parse_success" };
const codes = (score: { failure_modes: ReadonlyArray<{ code: string }> }) =>
  score.failure_modes.map((f) => f.code).sort();
const DIGEST = `@sha256:${"a".repeat(64)}`;
const facts: MigrationFacts = {
  dockerfile: "Dockerfile",
  ports: [8080],
  artifacts: ["/usr/local/bin/api"],
  command_tokens: ["/usr/local/bin/api"],
  requires_builder: true,
  runtime_shell_script: null,
  allowed_files: ["Dockerfile"],
};
const judge = (text: string, overrides: Partial<MigrationFacts> = {}) =>
  judgeDockerfile(parseDockerfile(text), { ...facts, ...overrides });
const GOOD = `FROM cgr.dev/chainguard/go:latest-dev${DIGEST} AS build\nRUN go build -o /out/api .\nFROM cgr.dev/chainguard/static${DIGEST}\nCOPY --from=build /out/api /usr/local/bin/api\nEXPOSE 8080\nENTRYPOINT ["/usr/local/bin/api"]\n`;

describe("every recorded session, replayed onto its case", () => {
  const verdicts: Record<string, { passed: boolean; codes: string[]; score: number }> = {
    "dotnet-aspnet-api": { passed: true, codes: [], score: 1 },
    "go-api-alpine-runtime": { passed: true, codes: [], score: 1 },
    "go-healthd-distroless": { passed: true, codes: [], score: 1 },
    "nginx-static-site": { passed: true, codes: [], score: 1 },
    "python-fastapi-distroless": { passed: true, codes: [], score: 1 },
    "ruby-sinatra-bundler": { passed: true, codes: [], score: 1 },
    "rust-api-debian-slim": { passed: true, codes: [], score: 1 },
    "java-spring-healthcheck-curl": {
      passed: false,
      codes: ["package_manager_in_final", "shell_form_in_final"],
      score: 0.4444,
    },
    "node-entrypoint-shell-script": { passed: false, codes: ["shell_required_missing"], score: 0.4444 },
    "node-ts-api-multistage": { passed: true, codes: [], score: 1 },
    "python-flask-singlestage": { passed: false, codes: ["image_unpinned"], score: 0.8889 },
    "python-worker-stdlib": { passed: true, codes: [], score: 1 },
  };

  it("covers every case in the bench", () => {
    expect(Object.keys(verdicts).sort()).toEqual(caseIds());
  });

  it.each(caseIds())("%s", async (caseId) => {
    const benchCase = loadCase(caseId);
    // Recorded by a real CLI: packages/agent-sut/src/shipped-cassettes.test.ts checks its provenance.
    expect(cassetteMeta(benchCase).synthetic).toBe(false);
    const score = await rubric.score(benchCase, ok, { workspacePath: replayedWorkspace(benchCase) });
    expect({ passed: score.passed, codes: codes(score), score: score.score }).toEqual(verdicts[caseId]);
    expect(Object.keys(score.breakdown).sort()).toEqual([...BREAKDOWN_KEYS].sort());
  });

  it.each(caseIds())("%s: the cassette is stamped with the case's prompt plus its canary line", (caseId) => {
    const benchCase = loadCase(caseId);
    const meta = cassetteMeta(benchCase);
    expect(meta.prompt_sha256).not.toBe(`sha256:${"0".repeat(64)}`);
    if (meta.adapter === "codex") return; // Codex reads its prompt on stdin: only the hash is recorded.
    // Claude Code takes it after --print, Pi as its one positional argument.
    const prompt = meta.argv_redacted.find((arg) => arg.startsWith(benchCase.prompt!))!;
    expect(prompt.startsWith(benchCase.prompt!)).toBe(true);
    expect(`sha256:${createHash("sha256").update(prompt).digest("hex")}`).toBe(meta.prompt_sha256);
  });

  it.each(caseIds())("%s: the untouched input is not a migration", (caseId) => {
    const benchCase = loadCase(caseId);
    const score = scoreCase(benchCase, ok, freshWorkspace(benchCase));
    expect(codes(score)).toContain("base_not_hardened");
    expect(codes(score)).toContain("no_change");
    expect(score.score).toBe(0);
    expect(score.passed).toBe(false);
  });
});

describe("rules", () => {
  it("accepts a clean two-stage migration", () => {
    const { findings, breakdown } = judge(GOOD);
    expect(findings).toEqual([]);
    expect(Object.values(breakdown).every((v) => v === 1)).toBe(true);
  });

  it("flags a final stage on a general-purpose base", () => {
    expect(
      judge(GOOD.replace(`cgr.dev/chainguard/static${DIGEST}`, "alpine:3.20")).findings.map((f) => f.code),
    ).toEqual(["base_not_hardened", "runs_as_root"]);
  });

  it("flags floating and missing tags but not digests or explicit versions", () => {
    const { findings } = judge(
      GOOD.replace(`go:latest-dev${DIGEST}`, "go:latest-dev").replace(`static${DIGEST}`, "static"),
    );
    expect(findings).toEqual([
      {
        code: "image_unpinned",
        severity: "warn",
        detail:
          "not pinned by digest or explicit tag: cgr.dev/chainguard/go:latest-dev (line 1), cgr.dev/chainguard/static (line 3)",
      },
    ]);
    expect(judge(GOOD.replace(`go:latest-dev${DIGEST}`, "golang:1.23.4")).findings).toEqual([]);
  });

  it("requires a builder stage when the service is compiled", () => {
    const single = `FROM cgr.dev/chainguard/go:latest-dev${DIGEST}\nRUN go build -o /usr/local/bin/api .\nUSER 65532\nEXPOSE 8080\nENTRYPOINT ["/usr/local/bin/api"]\n`;
    const codesOf = judge(single).findings.map((f) => f.code);
    expect(codesOf).toContain("no_builder_stage");
    expect(codesOf).toContain("package_manager_in_final");
    expect(judge(GOOD, { requires_builder: false }).findings).toEqual([]);
  });

  it("does not count a copy from the final stage's own ancestor as a builder", () => {
    const text = `FROM cgr.dev/chainguard/static${DIGEST} AS base\nFROM base\nCOPY --from=base /etc/passwd /etc/passwd\nCOPY api /usr/local/bin/api\nEXPOSE 8080\nENTRYPOINT ["/usr/local/bin/api"]\n`;
    expect(judge(text).findings.map((f) => f.code)).toEqual(["no_builder_stage"]);
  });

  it("flags root users and bases that default to root", () => {
    expect(judge(GOOD.replace("EXPOSE 8080", "USER root\nEXPOSE 8080")).findings.map((f) => f.code)).toEqual([
      "runs_as_root",
    ]);
    expect(judge(GOOD.replace("EXPOSE 8080", "USER 0:0\nEXPOSE 8080")).findings.map((f) => f.code)).toEqual([
      "runs_as_root",
    ]);
    expect(judge(GOOD.replace(`static${DIGEST}`, "static:latest-dev" + DIGEST)).findings.map((f) => f.code)).toEqual([
      "runs_as_root",
    ]);
    const distroless = GOOD.replace(`cgr.dev/chainguard/static${DIGEST}`, "gcr.io/distroless/static-debian12:latest");
    expect(judge(distroless).findings.map((f) => f.code)).toEqual(["image_unpinned", "runs_as_root"]);
    expect(judge(distroless.replace("static-debian12:latest", "static-debian12:nonroot")).findings).toEqual([]);
  });

  it("inherits USER, EXPOSE and the base through FROM <stage>", () => {
    const text = `FROM cgr.dev/chainguard/go:latest-dev${DIGEST} AS build\nRUN go build\nFROM cgr.dev/chainguard/static${DIGEST} AS runtime\nUSER 65532\nEXPOSE 8080\nFROM runtime\nCOPY --from=build /out/api /usr/local/bin/api\nENTRYPOINT ["/usr/local/bin/api"]\n`;
    expect(judge(text).findings).toEqual([]);
  });

  it("flags shell-form commands and missing commands", () => {
    const shellForm = judge(GOOD.replace('ENTRYPOINT ["/usr/local/bin/api"]', "ENTRYPOINT /usr/local/bin/api"));
    expect(shellForm.findings.map((f) => f.code)).toEqual(["shell_form_in_final"]);
    expect(shellForm.breakdown.exec_form_command).toBe(0);
    const none = judge(GOOD.replace('ENTRYPOINT ["/usr/local/bin/api"]\n', ""));
    expect(none.findings.map((f) => f.code)).toEqual(["artifact_missing"]);
    expect(none.breakdown.exec_form_command).toBe(0);
  });

  it("flags dropped ports and artifacts", () => {
    expect(judge(GOOD.replace("EXPOSE 8080", "EXPOSE 8081/tcp")).findings).toEqual([
      { code: "ports_changed", severity: "block", detail: "no longer exposed: 8080" },
    ]);
    const detail = judge(GOOD.replace("/usr/local/bin/api\nEXPOSE", "/srv/api\nEXPOSE")).findings[0]!.detail!;
    expect(detail).toContain("/usr/local/bin/api is not copied into the final stage");
  });

  it("resolves relative COPY destinations against the WORKDIR a stage inherits", () => {
    const text = `FROM cgr.dev/chainguard/go:latest-dev${DIGEST} AS build\nRUN go build\nFROM cgr.dev/chainguard/static${DIGEST} AS runtime\nWORKDIR /usr/local/bin\nFROM runtime\nCOPY --from=build /out/api api\nEXPOSE 8080\nENTRYPOINT ["/usr/local/bin/api"]\n`;
    expect(judge(text).findings).toEqual([]);
  });

  it("resolves COPY destinations against WORKDIR and directory targets", () => {
    const text = `FROM cgr.dev/chainguard/go:latest-dev${DIGEST} AS build\nRUN go build\nFROM cgr.dev/chainguard/static${DIGEST}\nWORKDIR /usr/local\nCOPY --from=build ["/out/api", "bin/"]\nEXPOSE 8080\nENTRYPOINT ["/usr/local/bin/api"]\n`;
    expect(judge(text).findings).toEqual([]);
  });

  it("needs a shell only when the command runs the script", () => {
    const script = { runtime_shell_script: "entrypoint.sh", command_tokens: [] };
    const withScript = GOOD.replace('ENTRYPOINT ["/usr/local/bin/api"]', 'ENTRYPOINT ["/entrypoint.sh"]');
    expect(judge(withScript, script).findings.map((f) => f.code)).toEqual(["shell_required_missing"]);
    expect(
      judge(
        withScript.replace(`static${DIGEST}`, `static:latest-dev${DIGEST}`).replace("EXPOSE", "USER 65532\nEXPOSE"),
        script,
      ).findings,
    ).toEqual([]);
    expect(judge(GOOD, script).findings).toEqual([]);
  });

  it("knows which images carry a shell", () => {
    expect(hasShell(parseImageRef("cgr.dev/chainguard/wolfi-base"))).toBe(true);
    expect(hasShell(parseImageRef("gcr.io/distroless/base:debug-nonroot"))).toBe(true);
    expect(hasShell(parseImageRef("gcr.io/distroless/base:nonroot"))).toBe(false);
    expect(hasShell(parseImageRef("debian:12"))).toBe(true);
    expect(hasShell(null)).toBe(false);
  });
});

describe("scoreCase edges", () => {
  const benchCase = () => loadCase("go-api-alpine-runtime");

  it("reports a missing Dockerfile", () => {
    const ws = freshWorkspace(benchCase());
    rmSync(join(ws, "Dockerfile"));
    expect(codes(scoreCase(benchCase(), ok, ws))).toEqual(["dockerfile_missing"]);
  });

  it("reports an unreadable Dockerfile and still judges what parsed", () => {
    const ws = replayedWorkspace(benchCase());
    writeFileSync(join(ws, "Dockerfile"), `${readFileSync(join(ws, "Dockerfile"), "utf8")}HEALTHCHEK CMD x\n`);
    const score = scoreCase(benchCase(), ok, ws);
    expect(codes(score)).toEqual(["dockerfile_unparseable"]);
    expect(score.failure_modes[0]!.detail).toContain("unknown instruction HEALTHCHEK");
    writeFileSync(join(ws, "Dockerfile"), "RUN echo\n");
    expect(codes(scoreCase(benchCase(), ok, ws))).toEqual(["dockerfile_unparseable"]);
  });

  it("flags collateral edits", () => {
    const ws = replayedWorkspace(benchCase());
    writeFileSync(join(ws, "go.mod"), "module example.com/other\n");
    const score = scoreCase(benchCase(), ok, ws);
    expect(codes(score)).toEqual(["collateral_change"]);
    expect(score.breakdown.scope_clean).toBe(0);
  });

  it("handles CLI errors, refusals, parse failures and a missing workspace", async () => {
    expect(codes(scoreCase(benchCase(), { trial_class: "cli_error" }, null))).toEqual(["agent_cli_error"]);
    expect(scoreCase(benchCase(), { trial_class: "cli_error", error: "auth" }, null).failure_modes[0]!.detail).toBe(
      "auth",
    );
    expect(codes(await rubric.score(benchCase(), ok, { workspacePath: null }))).toEqual(["workspace_missing"]);
    expect(codes(scoreCase(benchCase(), { trial_class: "model_refusal" }, freshWorkspace(benchCase())))).toContain(
      "agent_refused",
    );
    expect(codes(scoreCase(benchCase(), { trial_class: "format_drift" }, replayedWorkspace(benchCase())))).toEqual([
      "agent_stream_unparsed",
    ]);
  });

  it("throws on a malformed facts file (a bench defect)", () => {
    const dir = freshWorkspace(benchCase());
    writeFileSync(join(dir, "facts.json"), "{}");
    expect(() => readFacts(dir)).toThrow(/does not have the migration-chainguard-distroless.expected.v1 shape/);
  });
});
