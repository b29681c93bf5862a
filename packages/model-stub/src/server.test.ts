import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadScenario, parseScenario } from "./scenario.ts";
import { MODEL_STUB_IDENTITY_PATH, probeModelStub, startModelStub } from "./server.ts";
import type { ModelStub } from "./server.ts";

const KEY = "sk-test-secret-4242";
const SCENARIO = parseScenario({
  usage: { input_tokens: 111, output_tokens: 22 },
  sessions: [
    {
      match: "fix the version",
      turns: [
        {
          text: "Editing.",
          tools: [{ write: { path: "package.json", content: "{}\n" } }, { run: { command: "npm test" } }],
          usage: { input_tokens: 500, output_tokens: 40 },
        },
        { tools: [{ edit: { path: "a.txt", old: "alpha\n", new: "beta\n" } }] },
      ],
      final_text: "Fixed.",
    },
    { turns: [{ error: { status: 400, message: "scripted refusal" } }] },
  ],
});

let stub: ModelStub | null = null;
afterEach(async () => {
  await stub?.close();
  stub = null;
});

async function post(
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; type: string; text: string }> {
  const response = await fetch(`${stub!.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, type: response.headers.get("content-type") ?? "", text: await response.text() };
}

function events(text: string): Record<string, unknown>[] {
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: ") && line !== "data: [DONE]")
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);
}

const CLAUDE_TOOLS = [
  { name: "Write", input_schema: { type: "object", properties: { file_path: {}, content: {} } } },
  { name: "Edit", input_schema: { type: "object", properties: { file_path: {}, old_string: {}, new_string: {} } } },
  { name: "Bash", input_schema: { type: "object", properties: { command: {} } } },
];

describe("Anthropic Messages", () => {
  it("streams the turn's tool calls onto the tools Claude Code offered, with the turn's usage, resolving paths against its working directory", async () => {
    stub = await startModelStub({ scenario: SCENARIO });
    const body = {
      model: "m",
      stream: true,
      system: [{ type: "text", text: "x" }],
      tools: CLAUDE_TOOLS,
      messages: [
        { role: "system", content: "Primary working directory: /w/ws\n" },
        { role: "user", content: "please fix the version" },
      ],
    };
    const { status, type, text } = await post("/v1/messages?beta=true", body, { "x-api-key": KEY });
    expect(status).toBe(200);
    expect(type).toBe("text/event-stream");
    const sent = events(text);
    expect(sent.map((event) => event.type)).toEqual([
      "message_start",
      ...Array(3).fill(["content_block_start", "content_block_delta", "content_block_stop"]).flat(),
      "message_delta",
      "message_stop",
    ]);
    const deltas = sent
      .filter((event) => event.type === "content_block_delta")
      .map((event) => event.delta as Record<string, string>);
    expect(deltas[0]).toEqual({ type: "text_delta", text: "Editing." });
    expect(JSON.parse(deltas[1]!.partial_json!)).toEqual({ file_path: "/w/ws/package.json", content: "{}\n" });
    expect(JSON.parse(deltas[2]!.partial_json!)).toEqual({ command: "npm test" });
    const final = sent.find((event) => event.type === "message_delta")!;
    expect(final).toMatchObject({
      delta: { stop_reason: "tool_use" },
      usage: { input_tokens: 500, output_tokens: 40 },
    });
  });

  it("answers turn n when the conversation holds n model turns, then the final text, without streaming when not asked", async () => {
    stub = await startModelStub({ scenario: SCENARIO });
    const history = [
      { role: "user", content: "fix the version" },
      { role: "assistant", content: "x" },
      { role: "user", content: "r" },
    ];
    const second = JSON.parse(
      (await post("/v1/messages", { model: "m", tools: CLAUDE_TOOLS, messages: history })).text,
    ) as Record<string, unknown>;
    expect(second.content).toEqual([
      {
        type: "tool_use",
        id: "call_1_0",
        name: "Edit",
        input: { file_path: "a.txt", old_string: "alpha\n", new_string: "beta\n" },
      },
    ]);
    expect(second.usage).toMatchObject({ input_tokens: 111, output_tokens: 22 });
    const third = JSON.parse(
      (
        await post("/v1/messages", {
          model: "m",
          tools: CLAUDE_TOOLS,
          messages: [...history, { role: "assistant", content: "y" }, { role: "user", content: "r" }],
        })
      ).text,
    ) as Record<string, unknown>;
    expect(third).toMatchObject({ stop_reason: "end_turn", content: [{ type: "text", text: "Fixed." }] });
  });

  it("a refusal turn declines with the protocol's refusal stop, streamed or not; a refusal with tools is refused", async () => {
    const declines = parseScenario({ turns: [{ text: "I can't help with that.", refusal: true }] });
    stub = await startModelStub({ scenario: declines });
    const ask = { model: "m", tools: CLAUDE_TOOLS, messages: [{ role: "user", content: "fix it" }] };
    const plain = JSON.parse((await post("/v1/messages", ask)).text) as Record<string, unknown>;
    expect(plain).toMatchObject({
      stop_reason: "refusal",
      content: [{ type: "text", text: "I can't help with that." }],
    });
    const streamed = (await post("/v1/messages", { ...ask, stream: true })).text;
    expect(streamed).toContain('"stop_reason":"refusal"');
    expect(() => parseScenario({ turns: [{ text: "no", refusal: true, tools: [{ read: { path: "a" } }] }] })).toThrow(
      /a refusal turn needs text and no tools/,
    );
  });

  it("gives the default session's scripted error in the protocol's error shape", async () => {
    stub = await startModelStub({ scenario: SCENARIO });
    const { status, text } = await post("/v1/messages", {
      model: "m",
      tools: CLAUDE_TOOLS,
      messages: [{ role: "user", content: "something else" }],
    });
    expect(status).toBe(400);
    expect(JSON.parse(text)).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: "scripted refusal" },
    });
  });
});

describe("OpenAI Responses", () => {
  const tools = [
    { type: "function", name: "exec_command", parameters: { type: "object", properties: { cmd: {} } } },
    { type: "custom", name: "apply_patch", format: { type: "grammar" } },
  ];
  it("maps writes onto Codex's freeform apply_patch and commands onto exec_command, ending with response.completed and usage", async () => {
    stub = await startModelStub({ scenario: SCENARIO });
    const { text } = await post(
      "/v1/responses",
      {
        model: "gpt-5.5",
        stream: true,
        tools,
        input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "fix the version" }] }],
      },
      { authorization: `Bearer ${KEY}` },
    );
    const sent = events(text);
    expect(sent[0]!.type).toBe("response.created");
    const done = sent
      .filter((event) => event.type === "response.output_item.done")
      .map((event) => event.item as Record<string, unknown>);
    expect(done.map((item) => item.type)).toEqual(["message", "custom_tool_call", "function_call"]);
    expect(done[1]).toMatchObject({
      name: "apply_patch",
      input: "*** Begin Patch\n*** Add File: package.json\n+{}\n*** End Patch\n",
    });
    expect(JSON.parse(done[2]!.arguments as string)).toEqual({ cmd: "npm test" });
    expect(sent.at(-1)).toMatchObject({
      type: "response.completed",
      response: { usage: { input_tokens: 500, output_tokens: 40, total_tokens: 540 } },
    });
  });

  it("counts a model turn of several items once, and answers an edit as an Update File patch", async () => {
    stub = await startModelStub({ scenario: SCENARIO });
    const input = [
      { type: "message", role: "user", content: [{ type: "input_text", text: "fix the version" }] },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Editing." }] },
      { type: "custom_tool_call", call_id: "a", name: "apply_patch", input: "..." },
      { type: "function_call", call_id: "b", name: "exec_command", arguments: "{}" },
      { type: "custom_tool_call_output", call_id: "a", output: "ok" },
      { type: "function_call_output", call_id: "b", output: "ok" },
    ];
    const sent = events((await post("/v1/responses", { model: "gpt-5.5", stream: true, tools, input })).text);
    const item = sent.find((event) => event.type === "response.output_item.done")!.item as Record<string, unknown>;
    expect(item.input).toBe("*** Begin Patch\n*** Update File: a.txt\n@@\n-alpha\n+beta\n*** End Patch\n");
  });
});

describe("OpenAI Chat Completions", () => {
  it("streams Pi's tool calls (its edit takes a list of replacements) and a usage chunk before [DONE]", async () => {
    stub = await startModelStub({ scenario: SCENARIO });
    const tools = [
      {
        type: "function",
        function: { name: "edit", parameters: { type: "object", properties: { path: {}, edits: {} } } },
      },
      { type: "function", function: { name: "bash", parameters: { type: "object", properties: { command: {} } } } },
    ];
    const messages = [
      { role: "system", content: "Current working directory: /p/ws" },
      { role: "user", content: "fix the version" },
      { role: "assistant", content: "x" },
      { role: "tool", content: "ok" },
    ];
    const { text } = await post("/v1/chat/completions", { model: "stub", stream: true, tools, messages });
    expect(text.trimEnd().endsWith("data: [DONE]")).toBe(true);
    const sent = events(text);
    const call = (
      sent[1]!.choices as { delta: { tool_calls: { function: { name: string; arguments: string } }[] } }[]
    )[0]!.delta.tool_calls[0]!;
    expect(call.function.name).toBe("edit");
    expect(JSON.parse(call.function.arguments)).toEqual({
      path: "/p/ws/a.txt",
      edits: [{ oldText: "alpha\n", newText: "beta\n" }],
    });
    expect(sent.at(-2)).toMatchObject({ choices: [{ finish_reason: "tool_calls" }] });
    expect(sent.at(-1)).toMatchObject({ usage: { prompt_tokens: 111, completion_tokens: 22, total_tokens: 133 } });
  });
});

describe("OpenAI Chat Completions without streaming", () => {
  it("answers one chat.completion with the tool calls and usage, and text after the last turn", async () => {
    stub = await startModelStub({ scenario: SCENARIO });
    const tools = [
      { type: "function", function: { name: "bash", parameters: { type: "object", properties: { command: {} } } } },
    ];
    const answer = JSON.parse(
      (
        await post("/v1/chat/completions", {
          model: "m",
          tools,
          messages: [{ role: "user", content: "something else, scripted error is for Anthropic only" }],
        })
      ).text,
    ) as Record<string, unknown>;
    expect(answer).toMatchObject({ error: { message: "scripted refusal" } });
    const scenario = parseScenario({ turns: [{ tools: [{ run: { command: "ls" } }] }] });
    await stub.close();
    stub = await startModelStub({ scenario });
    const first = JSON.parse(
      (await post("/v1/chat/completions", { model: "m", tools, messages: [{ role: "user", content: "go" }] })).text,
    ) as { choices: { message: { tool_calls: unknown[] }; finish_reason: string }[] };
    expect(first.choices[0]).toMatchObject({
      finish_reason: "tool_calls",
      message: {
        tool_calls: [{ id: "call_1_0", type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } }],
      },
    });
    const last = JSON.parse(
      (
        await post("/v1/chat/completions", {
          model: "m",
          tools,
          messages: [
            { role: "user", content: "go" },
            { role: "assistant", content: null },
            { role: "tool", content: "ok" },
          ],
        })
      ).text,
    ) as { choices: { message: { content: string }; finish_reason: string }[] };
    expect(last.choices[0]).toMatchObject({ finish_reason: "stop", message: { content: "Done." } });
  });
});

describe("Gemini", () => {
  const tools = [
    {
      functionDeclarations: [
        { name: "write_file", parametersJsonSchema: { type: "object", properties: { file_path: {}, content: {} } } },
        {
          name: "replace",
          parametersJsonSchema: {
            type: "object",
            required: ["file_path", "instruction"],
            properties: { file_path: {}, instruction: {}, old_string: {}, new_string: {} },
          },
        },
      ],
    },
  ];
  it("streams functionCall parts with usageMetadata, says when no tool fits, and fills replace's required instruction", async () => {
    stub = await startModelStub({ scenario: SCENARIO });
    const contents = [{ role: "user", parts: [{ text: "fix the version" }] }];
    const { type, text } = await post("/v1beta/models/gemini-x:streamGenerateContent?alt=sse&key=" + KEY, {
      contents,
      tools,
    });
    expect(type).toBe("text/event-stream");
    const [chunk] = events(text) as {
      candidates: { content: { parts: Record<string, unknown>[] } }[];
      usageMetadata: unknown;
    }[];
    const parts = chunk!.candidates[0]!.content.parts;
    expect(parts[0]!.text).toBe("Editing.\n[model-stub] the CLI offered no shell tool");
    expect(parts[1]).toMatchObject({
      functionCall: { name: "write_file", args: { file_path: "package.json", content: "{}\n" } },
    });
    expect(chunk!.usageMetadata).toEqual({ promptTokenCount: 500, candidatesTokenCount: 40, totalTokenCount: 540 });
    const next = [
      ...contents,
      { role: "model", parts: [{ functionCall: { name: "write_file", args: {} } }] },
      { role: "user", parts: [{ functionResponse: { name: "write_file", response: {} } }] },
    ];
    const answer = JSON.parse(
      (await post("/v1beta/models/gemini-x:generateContent", { contents: next, tools })).text,
    ) as { candidates: { content: { parts: Record<string, unknown>[] } }[] };
    expect(answer.candidates[0]!.content.parts[0]).toMatchObject({
      functionCall: {
        name: "replace",
        args: {
          instruction: "Apply the scripted change.",
          file_path: "a.txt",
          old_string: "alpha\n",
          new_string: "beta\n",
        },
      },
    });
  });

  it("answers the router's structured-output request outside the script", async () => {
    stub = await startModelStub({ scenario: SCENARIO });
    const body = {
      contents: [{ role: "user", parts: [{ text: "fix the version" }] }],
      generationConfig: { responseMimeType: "application/json", responseJsonSchema: {} },
    };
    const answer = JSON.parse((await post("/v1beta/models/router:generateContent", body)).text) as {
      candidates: { content: { parts: { text: string }[] } }[];
    };
    expect(JSON.parse(answer.candidates[0]!.content.parts[0]!.text)).toEqual({
      complexity_reasoning: "scripted session",
      complexity_score: 1,
    });
    expect(stub.requests()[0]!.turn).toBeNull();
  });
});

describe("the request log", () => {
  it("logs every request with credentials redacted in headers, query and body, to memory and to the log file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "model-stub-"));
    try {
      const logFile = join(dir, "requests.jsonl");
      stub = await startModelStub({ scenario: SCENARIO, logFile });
      await post(
        "/v1/messages",
        { model: "m", tools: CLAUDE_TOOLS, messages: [{ role: "user", content: `fix the version; my key is ${KEY}` }] },
        { "x-api-key": KEY },
      );
      await post(`/v1beta/models/g:generateContent?key=${KEY}`, { contents: [] });
      await post("/v1/chat/completions", { model: "m", messages: [] }, { authorization: `Bearer ${KEY}` });
      await fetch(`${stub.url}/v1/models`);
      const written = readFileSync(logFile, "utf8");
      expect(written).not.toContain(KEY);
      expect(written.trim().split("\n")).toHaveLength(4);
      const log = stub.requests();
      expect(JSON.stringify(log)).not.toContain(KEY);
      expect(log[0]).toMatchObject({
        protocol: "anthropic-messages",
        headers: { "x-api-key": "[redacted]" },
        tools_offered: ["Write", "Edit", "Bash"],
        session: 0,
        turn: 0,
        status: 200,
      });
      expect(log[1]!.path).toBe("/v1beta/models/g:generateContent?key=%5Bredacted%5D");
      expect(log[2]!.headers.authorization).toBe("[redacted]");
      expect(log[3]).toMatchObject({ method: "GET", path: "/v1/models", status: 404, protocol: null });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("answers a body that is not JSON with a 400 in the protocol's shape", async () => {
    stub = await startModelStub({ scenario: SCENARIO });
    const response = await fetch(`${stub.url}/v1/responses`, { method: "POST", body: "{not json" });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/not a JSON object/);
  });
});

describe("scenario files and options", () => {
  it("refuses a host that is not loopback", async () => {
    await expect(startModelStub({ scenario: SCENARIO, host: "0.0.0.0" })).rejects.toMatchObject({
      code: "EVAL_CONFIG_INVALID",
    });
  });

  it("reads YAML and JSON, and names the field a bad scenario gets wrong", () => {
    const dir = mkdtempSync(join(tmpdir(), "model-stub-"));
    try {
      writeFileSync(join(dir, "ok.yaml"), "turns:\n  - text: hi\n");
      expect(loadScenario(join(dir, "ok.yaml")).sessions[0]!.turns).toEqual([{ text: "hi" }]);
      writeFileSync(join(dir, "bad.json"), JSON.stringify({ turns: [{ tools: [{ delete: { path: "x" } }] }] }));
      expect(() => loadScenario(join(dir, "bad.json"))).toThrow(/bad\.json: turns\.0\.tools\.0/);
      writeFileSync(join(dir, "empty.yaml"), "turns:\n  - usage: { input_tokens: 1, output_tokens: 1 }\n");
      expect(() => loadScenario(join(dir, "empty.yaml"))).toThrow(/a turn needs tools, text or error/);
      expect(() => loadScenario(join(dir, "missing.yaml"))).toThrow(/cannot read scenario .*ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the stub's identity: the digest of the scenario it serves", () => {
  it("answers its scenario's digest at the identity path, unlogged; probeModelStub reads it from any URL on its origin", async () => {
    stub = await startModelStub({ scenario: SCENARIO });
    expect(stub.scenarioSha256).toMatch(/^sha256:[0-9a-f]{64}$/);
    const body = (await (await fetch(`${stub.url}${MODEL_STUB_IDENTITY_PATH}`)).json()) as Record<string, unknown>;
    expect(body).toEqual({ evalgate_model_stub: 1, scenario_sha256: stub.scenarioSha256 });
    expect(await probeModelStub(`${stub.url}/v1`)).toBe(stub.scenarioSha256);
    expect(stub.requests()).toEqual([]);
  });

  it("the same script gives the same digest from YAML or an object; any change to an answer changes it", () => {
    const dir = mkdtempSync(join(tmpdir(), "evalgate-stub-digest-"));
    try {
      writeFileSync(join(dir, "s.yaml"), "turns:\n  - text: hi\n");
      expect(loadScenario(join(dir, "s.yaml")).sha256).toBe(parseScenario({ turns: [{ text: "hi" }] }).sha256);
      expect(parseScenario({ turns: [{ text: "hi!" }] }).sha256).not.toBe(
        parseScenario({ turns: [{ text: "hi" }] }).sha256,
      );
      expect(parseScenario({ turns: [{ text: "hi" }], usage: { input_tokens: 1, output_tokens: 1 } }).sha256).not.toBe(
        parseScenario({ turns: [{ text: "hi" }] }).sha256,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("probeModelStub: null for a server that is not a stub, a closed port, a bad URL and any non-loopback origin (never asked)", async () => {
    const { createServer } = await import("node:http");
    const other = createServer((_request, response) =>
      response.end(JSON.stringify({ scenario_sha256: `sha256:${"a".repeat(64)}` })),
    );
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
    const port = (other.address() as { port: number }).port;
    try {
      expect(await probeModelStub(`http://127.0.0.1:${port}`)).toBeNull();
    } finally {
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
    expect(await probeModelStub(`http://127.0.0.1:${port}`, 500)).toBeNull();
    expect(await probeModelStub("not a url")).toBeNull();
    expect(await probeModelStub("https://api.anthropic.com")).toBeNull();
    expect(await probeModelStub("https://127.0.0.1:1")).toBeNull();
  });
});
