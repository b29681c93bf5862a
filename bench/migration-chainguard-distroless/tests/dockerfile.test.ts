import { describe, expect, it } from "vitest";
import { commandArgv, copySourceStage, parseDockerfile, parseImageRef, splitInstructions } from "../dockerfile.ts";

describe("splitInstructions", () => {
  it("joins continuations, skipping comments and blank lines inside them", () => {
    const { instructions } = splitInstructions(
      "FROM alpine\nRUN apk add \\\n  # the client\n  curl \\\n\n  jq\n# trailing comment\n",
    );
    expect(instructions.map((i) => [i.keyword, i.args, i.line])).toEqual([
      ["FROM", "alpine", 1],
      ["RUN", "apk add curl jq", 2],
    ]);
  });

  it("honours the escape directive", () => {
    const { instructions } = splitInstructions(
      "# escape=`\nFROM mcr.microsoft.com/windows\nRUN dir C:\\ `\n  && echo done\n",
    );
    expect(instructions[1]!.args).toBe("dir C:\\ && echo done");
  });

  it("rejects a bad escape directive", () => {
    expect(splitInstructions("# escape=x\nFROM a\n").problems[0]).toContain("escape directive");
  });

  it("keeps a heredoc body inside its instruction", () => {
    const { instructions, problems } = splitInstructions("FROM alpine\nRUN <<EOF\nFROM not-a-stage\nEOF\nUSER 1000\n");
    expect(problems).toEqual([]);
    expect(instructions.map((i) => i.keyword)).toEqual(["FROM", "RUN", "USER"]);
    expect(instructions[1]!.args).toContain("FROM not-a-stage");
  });

  it("reports an unclosed heredoc and an unknown instruction", () => {
    expect(splitInstructions("FROM a\nRUN <<-END\n\techo\n").problems[0]).toContain("heredoc END is never closed");
    expect(splitInstructions("FROM a\nRUNN echo\n").problems[0]).toBe("line 2: unknown instruction RUNN");
    expect(splitInstructions("FROM a\n=oops\n").problems[0]).toContain("cannot read an instruction");
  });

  it("separates flags and reads exec form", () => {
    const { instructions } = splitInstructions(
      'FROM a\nCOPY --from=build --chown=1:1 /out/app /app\nRUN --mount=type=cache,target=/root/.cache go build\nCMD ["/app", "--port", "80"]\nENTRYPOINT /app --port 80\nCMD [not json\n',
    );
    expect(instructions[1]!.flags).toEqual({ from: "build", chown: "1:1" });
    expect(instructions[1]!.args).toBe("/out/app /app");
    expect(instructions[2]!.flags).toEqual({ mount: "type=cache,target=/root/.cache" });
    expect(instructions[3]!.execForm).toEqual(["/app", "--port", "80"]);
    expect(instructions[4]!.execForm).toBeNull();
    expect(commandArgv(instructions[4]!)).toEqual(["/bin/sh", "-c", "/app --port 80"]);
    expect(instructions[5]!.execForm).toBeNull();
  });

  it("handles CRLF line endings", () => {
    expect(splitInstructions("FROM a\r\nUSER 1\r\n").instructions.map((i) => i.args)).toEqual(["a", "1"]);
  });
});

describe("parseImageRef", () => {
  it("splits registry, tag and digest without mistaking a registry port for a tag", () => {
    expect(parseImageRef("cgr.dev/chainguard/node:latest-dev@sha256:abc")).toEqual({
      raw: "cgr.dev/chainguard/node:latest-dev@sha256:abc",
      repository: "cgr.dev/chainguard/node",
      tag: "latest-dev",
      digest: "sha256:abc",
    });
    expect(parseImageRef("localhost:5000/app")).toMatchObject({
      repository: "localhost:5000/app",
      tag: null,
      digest: null,
    });
    expect(parseImageRef("alpine:")).toMatchObject({ repository: "alpine", tag: null });
  });
});

describe("parseDockerfile", () => {
  it("builds stages, resolves stage references and ARG defaults", () => {
    const dockerfile = parseDockerfile(
      'ARG GO_IMAGE=golang:1.23\nARG RUNTIME="cgr.dev/chainguard/static"\nFROM --platform=$BUILDPLATFORM ${GO_IMAGE} AS build\nRUN go build\nFROM build AS test\nRUN go test\nFROM ${RUNTIME}:latest\nCOPY --from=0 /out /out\nCOPY --from=test /x /x\nCOPY --from=busybox:1 /bin/sh /sh\n',
    );
    expect(dockerfile.problems).toEqual([]);
    expect(dockerfile.stages.map((s) => [s.name, s.from, s.fromStage])).toEqual([
      ["build", "golang:1.23", null],
      ["test", "build", 0],
      [null, "cgr.dev/chainguard/static:latest", null],
    ]);
    expect(dockerfile.stages[0]!.instructions[0]!.keyword).toBe("RUN");
    expect(copySourceStage(dockerfile, "0")!.name).toBe("build");
    expect(copySourceStage(dockerfile, "TEST")!.index).toBe(1);
    expect(copySourceStage(dockerfile, "busybox:1")).toBeNull();
    expect(copySourceStage(dockerfile, "9")).toBeNull();
  });

  it("reports malformed FROM lines, instructions before FROM, and an empty file", () => {
    expect(parseDockerfile("FROM a AS\n").problems[0]).toContain('FROM needs "image [AS name]"');
    expect(parseDockerfile("FROM a b\n").problems[0]).toContain("FROM needs");
    expect(parseDockerfile("RUN echo\nFROM a\n").problems[0]).toBe("line 1: RUN before the first FROM");
    expect(parseDockerfile("# nothing\n").problems).toEqual(["no FROM instruction"]);
  });
});
