import { once } from "node:events";
import { Command, Option } from "clipanion";
import { MODEL_STUB_LINE_SCHEMA_VERSION, MODEL_STUB_STOPPED_LINE_SCHEMA_VERSION } from "@eval/models/names";
import { EvalgateCommand } from "../base-command.ts";
import * as t from "typanion";
import { numberFlag, numberRule } from "../number-flag.ts";

export class ModelStubCommand extends EvalgateCommand {
  static override paths = [["model-stub"]];
  static override usage = Command.Usage({
    category: "Agents",
    description: "Serve a scripted model endpoint on loopback for agent CLIs, answering from a scenario file",
    details: `
      Speaks the Anthropic Messages, OpenAI Responses, OpenAI Chat Completions and Gemini generateContent /
      streamGenerateContent APIs, with streaming. Each request is answered from the scenario's turns (tool calls
      mapped onto the tools the CLI offered, or text, with the turn's token counts). Prints one JSON line with the
      URL, then serves until SIGINT or SIGTERM. docs/adapters.md shows the scenario format and each CLI's settings.
    `,
    examples: [
      ["Serve a scenario on a free port", "evalgate model-stub --scenario fix.yaml"],
      [
        "On a fixed port, logging each request (secrets redacted)",
        "evalgate model-stub --scenario fix.yaml --port 8787 --log requests.jsonl",
      ],
    ],
  });

  scenario = Option.String("--scenario", { required: true, description: "Scenario file (YAML or JSON)" });
  port = Option.String("--port", { description: "Port to listen on (default: any free port)" });
  host = Option.String("--host", "127.0.0.1", { description: "Loopback address: 127.0.0.1, ::1 or localhost" });
  log = Option.String("--log", { description: "Append one JSON line per request here (credentials redacted)" });

  protected async run(): Promise<number> {
    const { loadScenario, startModelStub } = await import("@eval/model-stub");
    const { resolve } = await import("node:path");
    const port = numberFlag(
      "--port",
      this.port,
      0,
      numberRule("an integer from 0 to 65535", [t.isInteger(), t.isInInclusiveRange(0, 65_535)]),
    );
    const stub = await startModelStub({
      scenario: loadScenario(resolve(this.context.cwd, this.scenario)),
      host: this.host,
      port,
      ...(this.log === undefined ? {} : { logFile: resolve(this.context.cwd, this.log) }),
    });
    // Listening before the URL line is printed: a reader may stop the stub as soon as it has read it.
    const signalled = Promise.race([once(process, "SIGINT"), once(process, "SIGTERM")]);
    this.emit({
      type: "model_stub",
      schema_version: MODEL_STUB_LINE_SCHEMA_VERSION,
      url: stub.url,
      host: stub.host,
      port: stub.port,
    });
    await signalled;
    await stub.close();
    this.emit({
      type: "model_stub_stopped",
      schema_version: MODEL_STUB_STOPPED_LINE_SCHEMA_VERSION,
      stopped: true,
      requests: stub.requests().length,
    });
    return 0;
  }
}
