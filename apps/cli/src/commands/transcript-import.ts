import { Command, Option } from "clipanion";
import { EvalError } from "@eval/errors";
import { TRANSCRIPT_FORMATS as FORMATS, TRANSCRIPT_PROVIDERS as PROVIDERS } from "@eval/models/names";
import { EvalgateCommand } from "../base-command.ts";

type ProviderName = (typeof PROVIDERS)[number];
type FormatName = (typeof FORMATS)[number];

export class TranscriptImportCommand extends EvalgateCommand {
  static override paths = [["transcript", "import"]];
  static override usage = Command.Usage({
    category: "Transcripts",
    description: "Normalize an agent's session log into one transcript JSONL line (canonical tool names)",
    details: `
      Reads a native session log of a coding agent, maps its tool calls to the canonical vocabulary
      (Read, Write, Edit, Bash, Skill, ...; docs/tool-normalization.md), and prints one
      \`evalgate.transcript.v1\` line on stdout. A summary with tool-call counts by canonical name goes
      to stderr. Without --format, the format is detected among the provider's formats. A format name
      is accepted as --provider too (--provider codex-app-server, copilot-acp, pi-json).
    `,
    examples: [
      [
        "Import a Claude Code session",
        "evalgate transcript import --provider claude-code ~/.claude/projects/x/session.jsonl",
      ],
      [
        "Import a Codex exec --json capture",
        "evalgate transcript import --provider codex --format codex-exec-json run.jsonl",
      ],
      ["Import a Pi --mode json capture", "evalgate transcript import --provider pi pi-run.jsonl"],
      [
        "Import a recorded Codex app-server session",
        "evalgate transcript import --provider codex-app-server app-server.jsonl",
      ],
    ],
  });

  provider = Option.String("--provider", {
    required: true,
    description: `The agent that wrote the log: ${PROVIDERS.join(", ")} (or one of its formats)`,
  });
  format = Option.String("--format", { description: `The log's format (default: detected): ${FORMATS.join(", ")}` });
  caseId = Option.String("--case-id", { description: "Stamp the line with the case this session served" });
  file = Option.String({ required: true, name: "file" });

  protected async run(): Promise<number> {
    const {
      detectTranscriptFormat,
      parseTranscriptFile,
      PROVIDER_FORMATS,
      providerOfFormat,
      summarizeTranscript,
      transcriptLine,
    } = await import("@eval/tool-normalize");
    // A format named as the provider (`--provider codex-app-server`) means that format of its agent.
    const namedFormat = (FORMATS as readonly string[]).includes(this.provider)
      ? (this.provider as FormatName)
      : undefined;
    if (namedFormat !== undefined && this.format !== undefined && this.format !== namedFormat) {
      throw new EvalError(
        "EVAL_USAGE",
        `--provider ${namedFormat} names a format, and --format ${this.format} another`,
        { hint: "pass one of them" },
      );
    }
    const provider = (namedFormat === undefined ? this.provider : providerOfFormat(namedFormat)) as ProviderName;
    if (!(PROVIDERS as readonly string[]).includes(provider)) {
      throw new EvalError("EVAL_USAGE", `unknown --provider "${this.provider}"`, {
        hint: `choose one of: ${PROVIDERS.join(", ")}`,
      });
    }
    if (this.caseId !== undefined && this.caseId.trim() === "") {
      throw new EvalError("EVAL_USAGE", "--case-id must not be empty", {
        hint: "pass the case id, e.g. --case-id 001-cross-spawn",
      });
    }
    const format = (this.format ?? namedFormat) as FormatName | undefined;
    if (format !== undefined && !(FORMATS as readonly string[]).includes(format)) {
      throw new EvalError("EVAL_USAGE", `unknown --format "${format}"`, {
        hint: `choose one of: ${FORMATS.join(", ")}`,
      });
    }
    const { resolve } = await import("node:path");
    if (format !== undefined && !PROVIDER_FORMATS[provider].includes(format)) {
      throw new EvalError("EVAL_USAGE", `--format ${format} is not a ${provider} format`, {
        hint: `${provider} writes: ${PROVIDER_FORMATS[provider].join(", ")}`,
      });
    }
    const path = resolve(this.context.cwd, this.file);
    const chosen = format ?? (await detectTranscriptFormat(provider, path));
    const transcript = await parseTranscriptFile(chosen, path, { source: { path: this.file } });
    this.context.stdout.write(transcriptLine(transcript, this.caseId === undefined ? {} : { case_id: this.caseId }));
    for (const line of summarizeTranscript(transcript)) this.context.stderr.write(`${line}\n`);
    return 0;
  }
}
