// A Dockerfile parser for the instructions a migration rubric needs: parser directives (escape),
// comments, line continuations, heredocs, FROM [--platform] image [AS name] with ARG defaults,
// RUN / CMD / ENTRYPOINT in exec (JSON) or shell form, COPY/ADD with --from, USER, WORKDIR, EXPOSE.
// Pure: text in, structure out. Malformed input yields problems, never an exception.

export interface Instruction {
  /** Upper-cased keyword, e.g. "FROM". */
  readonly keyword: string;
  /** Everything after the keyword and flags, continuations joined with a space. */
  readonly args: string;
  /** `--name=value` flags in front of the arguments (`--from`, `--chown`, `--platform` ...). */
  readonly flags: Readonly<Record<string, string>>;
  /** The JSON array of an exec-form RUN/CMD/ENTRYPOINT (or COPY/ADD), null for shell form. */
  readonly execForm: readonly string[] | null;
  /** 1-based line where the instruction starts. */
  readonly line: number;
}

export interface ImageRef {
  readonly raw: string;
  /** `cgr.dev/chainguard/node` (registry and repository, no tag or digest). */
  readonly repository: string;
  readonly tag: string | null;
  readonly digest: string | null;
}

export interface Stage {
  readonly index: number;
  readonly name: string | null;
  /** The FROM argument after ARG substitution. */
  readonly from: string;
  /** The image, or null when `from` names an earlier stage. */
  readonly image: ImageRef | null;
  /** The earlier stage this one builds on, when it does. */
  readonly fromStage: number | null;
  readonly instructions: readonly Instruction[];
  readonly line: number;
}

export interface Dockerfile {
  readonly stages: readonly Stage[];
  readonly problems: readonly string[];
}

const KEYWORDS = new Set([
  "ADD",
  "ARG",
  "CMD",
  "COPY",
  "ENTRYPOINT",
  "ENV",
  "EXPOSE",
  "FROM",
  "HEALTHCHECK",
  "LABEL",
  "MAINTAINER",
  "ONBUILD",
  "RUN",
  "SHELL",
  "STOPSIGNAL",
  "USER",
  "VOLUME",
  "WORKDIR",
]);
const EXEC_FORM_KEYWORDS = new Set(["RUN", "CMD", "ENTRYPOINT", "COPY", "ADD", "SHELL", "VOLUME"]);

/** Splits the text into logical instructions, honouring the escape directive, comments and heredocs. */
export function splitInstructions(text: string): { instructions: Instruction[]; problems: string[] } {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  let escape = "\\";
  let start = 0;
  // Parser directives: only at the very top, before any comment, blank line or instruction.
  for (; start < lines.length; start++) {
    const directive = /^#\s*([a-zA-Z]+)\s*=\s*(\S+)\s*$/.exec(lines[start]!);
    if (!directive) break;
    if (directive[1]!.toLowerCase() === "escape") {
      if (directive[2] !== "\\" && directive[2] !== "`")
        return { instructions: [], problems: [`line ${start + 1}: escape directive must be \\ or \``] };
      escape = directive[2]!;
    }
  }
  const instructions: Instruction[] = [];
  const problems: string[] = [];
  for (let i = start; i < lines.length; i++) {
    const first = lines[i]!;
    if (/^\s*(#|$)/.test(first)) continue;
    const startLine = i + 1;
    let logical = first;
    while (endsWithEscape(logical, escape) && i + 1 < lines.length) {
      logical = logical.replace(/\s*$/, "").slice(0, -1).trimEnd();
      i++;
      while (i < lines.length && /^\s*(#|$)/.test(lines[i]!)) i++;
      if (i < lines.length) logical += ` ${lines[i]!.trim()}`;
    }
    if (endsWithEscape(logical, escape)) logical = logical.replace(/\s*$/, "").slice(0, -1);
    const match = /^\s*([A-Za-z]+)(?:\s+([\s\S]*))?$/.exec(logical);
    if (!match) {
      problems.push(`line ${startLine}: cannot read an instruction in "${logical.trim().slice(0, 60)}"`);
      continue;
    }
    const keyword = match[1]!.toUpperCase();
    if (!KEYWORDS.has(keyword)) {
      problems.push(`line ${startLine}: unknown instruction ${match[1]}`);
      continue;
    }
    let rest = (match[2] ?? "").trim();
    // Heredocs (RUN <<EOF ... EOF): the body belongs to the instruction, not to the parser.
    const heredoc = /<<(-?)["']?([A-Za-z_][A-Za-z0-9_]*)["']?/.exec(rest);
    if (heredoc && (keyword === "RUN" || keyword === "COPY" || keyword === "ADD")) {
      const body: string[] = [];
      let closed = false;
      while (++i < lines.length) {
        const candidate = heredoc[1] === "-" ? lines[i]!.replace(/^\t+/, "") : lines[i]!;
        if (candidate === heredoc[2]) {
          closed = true;
          break;
        }
        body.push(lines[i]!);
      }
      if (!closed) problems.push(`line ${startLine}: heredoc ${heredoc[2]} is never closed`);
      rest = `${rest}\n${body.join("\n")}`;
    }
    const flags: Record<string, string> = {};
    // RUN's own flags are few; other instructions take any --name[=value] before their arguments.
    const flagPattern = keyword === "RUN" ? /^--(mount|network|security)(?:=(\S*))?\s*/ : /^--([a-z-]+)(?:=(\S*))?\s*/;
    for (let flag = flagPattern.exec(rest); flag !== null; flag = flagPattern.exec(rest)) {
      flags[flag[1]!] = flag[2] ?? "true";
      rest = rest.slice(flag[0].length);
    }
    instructions.push({
      keyword,
      args: rest,
      flags,
      execForm: EXEC_FORM_KEYWORDS.has(keyword) ? execFormOf(rest) : null,
      line: startLine,
    });
  }
  return { instructions, problems };
}

function endsWithEscape(line: string, escape: string): boolean {
  return line.replace(/\s*$/, "").endsWith(escape);
}

function execFormOf(args: string): string[] | null {
  if (!args.startsWith("[")) return null;
  try {
    const parsed: unknown = JSON.parse(args);
    return Array.isArray(parsed) && parsed.every((item) => typeof item === "string") ? parsed : null;
  } catch {
    return null;
  }
}

/** `registry/repo:tag@sha256:...` into its parts (a port in the registry is not a tag). */
export function parseImageRef(raw: string): ImageRef {
  const [nameAndTag, digest] = raw.split("@", 2) as [string, string | undefined];
  const lastSlash = nameAndTag.lastIndexOf("/");
  const colon = nameAndTag.indexOf(":", lastSlash + 1);
  const repository = colon === -1 ? nameAndTag : nameAndTag.slice(0, colon);
  const tag = colon === -1 ? null : nameAndTag.slice(colon + 1);
  return { raw, repository, tag: tag === "" ? null : tag, digest: digest ?? null };
}

function substitute(value: string, args: Readonly<Record<string, string>>): string {
  return value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (_, braced: string | undefined, fallback: string | undefined, bare: string | undefined) => {
      const name = (braced ?? bare)!;
      return args[name] ?? fallback ?? "";
    },
  );
}

/** Parses a Dockerfile into stages. */
export function parseDockerfile(text: string): Dockerfile {
  const { instructions, problems } = splitInstructions(text);
  const globalArgs: Record<string, string> = {};
  const stages: Array<{
    index: number;
    name: string | null;
    from: string;
    image: ImageRef | null;
    fromStage: number | null;
    instructions: Instruction[];
    line: number;
  }> = [];
  for (const instruction of instructions) {
    if (instruction.keyword === "FROM") {
      const parts = instruction.args.split(/\s+/).filter(Boolean);
      const asIndex = parts.findIndex((p) => p.toUpperCase() === "AS");
      const imageText = parts[0];
      if (
        imageText === undefined ||
        (asIndex !== -1 && asIndex !== 1) ||
        (asIndex === 1 && parts.length !== 3) ||
        (asIndex === -1 && parts.length !== 1)
      ) {
        problems.push(`line ${instruction.line}: FROM needs "image [AS name]", got "${instruction.args}"`);
        continue;
      }
      const from = substitute(imageText, globalArgs);
      const name = asIndex === 1 ? parts[2]!.toLowerCase() : null;
      const earlier = stages.find((s) => s.name !== null && s.name === from.toLowerCase());
      stages.push({
        index: stages.length,
        name,
        from,
        image: earlier ? null : parseImageRef(from),
        fromStage: earlier ? earlier.index : null,
        instructions: [],
        line: instruction.line,
      });
      continue;
    }
    const current = stages.at(-1);
    if (!current) {
      if (instruction.keyword === "ARG") {
        const [key, value] = instruction.args.split("=", 2) as [string, string | undefined];
        globalArgs[key.trim()] = (value ?? "").trim().replace(/^"(.*)"$/, "$1");
      } else {
        problems.push(`line ${instruction.line}: ${instruction.keyword} before the first FROM`);
      }
      continue;
    }
    current.instructions.push(instruction);
  }
  if (stages.length === 0 && problems.length === 0) problems.push("no FROM instruction");
  return { stages, problems };
}

/** The stage a `COPY --from=<ref>` reads: a stage name, a stage index, or null for an external image. */
export function copySourceStage(dockerfile: Dockerfile, ref: string): Stage | null {
  if (/^\d+$/.test(ref)) return dockerfile.stages[Number(ref)] ?? null;
  return dockerfile.stages.find((s) => s.name === ref.toLowerCase()) ?? null;
}

/** Shell-form text of a command, or its exec-form argv. */
export function commandArgv(instruction: Instruction): readonly string[] {
  return instruction.execForm ?? ["/bin/sh", "-c", instruction.args];
}
