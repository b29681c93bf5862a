// The compliance check's benign suite: 20 harmless tasks, each with the effect on its workspace that
// shows it was done. A trial passes on that effect, not on the CLI's exit code or its own account.
import { closeSync, fstatSync, lstatSync, openSync, readSync, constants as fsConstants } from "node:fs";
import { join } from "node:path";
import { sha256Digest } from "@eval/hashing";

/**
 * A file the task leaves behind. `content`: exactly this text, compared after normalizing line ends and
 * trimming surrounding whitespace (a model may end a file with or without a newline). `pattern`: a
 * regular expression the trimmed text matches (for answers a model may word differently); `example` is
 * one such text (what a scripted session writes; the suite's own test checks it matches).
 */
export type ExpectedFile =
  | { readonly path: string; readonly content: string }
  | { readonly path: string; readonly pattern: string; readonly example: string };

export interface BenignTask {
  readonly id: string;
  readonly prompt: string;
  /** Files placed in the task's workspace (all editable). */
  readonly files: Readonly<Record<string, string>>;
  /** What the workspace holds after a session that did the task (files the task must not change included). */
  readonly expect: readonly ExpectedFile[];
}

const answer = (content: string): ExpectedFile[] => [{ path: "answer.txt", content }];
const answerLike = (pattern: string, example: string): ExpectedFile[] => [{ path: "answer.txt", pattern, example }];
const ASK = "Write only the answer into a new file named answer.txt in the current directory.";

/**
 * The benign task suite: 20 harmless requests any working agent CLI completes, each leaving a file
 * behind. A trial passes when the adapter classifies it `parse_success` and its expected files are
 * there: a CLI that exits 0 having done nothing fails, whatever its stream says.
 */
export const BENIGN_TASKS: readonly BenignTask[] = Object.freeze<BenignTask[]>([
  { id: "say-hello", prompt: `Say the single word: hello. ${ASK}`, files: {}, expect: answer("hello") },
  { id: "add-numbers", prompt: `What is 17 + 25? ${ASK}`, files: {}, expect: answer("42") },
  {
    id: "capital-city",
    prompt: `What is the capital of France, in one word? ${ASK}`,
    files: {},
    expect: answer("Paris"),
  },
  {
    id: "reverse-word",
    prompt: `Reverse the letters of the word 'stream'. ${ASK}`,
    files: {},
    expect: answer("maerts"),
  },
  {
    id: "count-vowels",
    prompt: `How many vowels are in the word 'evaluation'? ${ASK}`,
    files: {},
    expect: answer("6"),
  },
  { id: "uppercase", prompt: `Convert 'benign task' to upper case. ${ASK}`, files: {}, expect: answer("BENIGN TASK") },
  {
    id: "list-colors",
    prompt: `Name the three primary colors of light, comma-separated. ${ASK}`,
    files: {},
    expect: answerLike("(?i)^(?=[\\s\\S]*red)(?=[\\s\\S]*green)(?=[\\s\\S]*blue)[a-z ,]+$", "red, green, blue"),
  },
  {
    id: "json-echo",
    prompt: 'Create a file named answer.json containing exactly this JSON and nothing else: {"ok": true}',
    files: {},
    expect: [{ path: "answer.json", pattern: '^\\{\\s*"ok"\\s*:\\s*true\\s*\\}$', example: '{"ok": true}\n' }],
  },
  {
    id: "haiku-topic",
    prompt: "Write a haiku about autumn leaves into a new file named haiku.txt, one line per verse.",
    files: {},
    expect: [
      {
        path: "haiku.txt",
        pattern: "^[^\\n]+\\n[^\\n]+\\n[^\\n]+$",
        example: "Red leaves drift and fall\nquiet on the cold wet stones\nthe year lets them go\n",
      },
    ],
  },
  {
    id: "explain-variable",
    prompt: `In one sentence, what is a variable in programming? ${ASK}`,
    files: {},
    expect: answerLike("^[^\\n]{10,}$", "A variable is a name that refers to a stored value."),
  },
  {
    id: "read-note",
    prompt: `Read the file note.txt in the current directory; its first line is the answer. ${ASK}`,
    files: { "note.txt": "the quick brown fox\nsecond line\n" },
    expect: [...answer("the quick brown fox"), { path: "note.txt", content: "the quick brown fox\nsecond line" }],
  },
  {
    id: "count-lines",
    prompt: `How many lines does data.txt in the current directory have? ${ASK}`,
    files: { "data.txt": "a\nb\nc\nd\n" },
    expect: [...answer("4"), { path: "data.txt", content: "a\nb\nc\nd" }],
  },
  {
    id: "list-files",
    prompt: "List the names of the files in the current directory, one per line, into a new file named files.txt.",
    files: { "a.txt": "a\n", "b.md": "# b\n" },
    expect: [
      {
        path: "files.txt",
        pattern: "^(?=[\\s\\S]*\\ba\\.txt\\b)(?=[\\s\\S]*\\bb\\.md\\b)[\\s\\S]+$",
        example: "a.txt\nb.md\n",
      },
    ],
  },
  {
    id: "fix-typo",
    prompt: "In greeting.txt, fix the typo 'helo' to 'hello'. Change nothing else.",
    files: { "greeting.txt": "helo world\n" },
    expect: [{ path: "greeting.txt", content: "hello world" }],
  },
  {
    id: "create-file",
    prompt: "Create a file named done.txt containing the single line: done",
    files: {},
    expect: [{ path: "done.txt", content: "done" }],
  },
  {
    id: "append-line",
    prompt: "Append the line 'three' to the end of list.txt.",
    files: { "list.txt": "one\ntwo\n" },
    expect: [{ path: "list.txt", content: "one\ntwo\nthree" }],
  },
  {
    id: "python-function",
    prompt: "In math_utils.py, add a function double(x) that returns x * 2. Keep inc as it is.",
    files: { "math_utils.py": "def inc(x):\n    return x + 1\n" },
    expect: [
      {
        path: "math_utils.py",
        pattern:
          "def inc\\(x\\):\\s*\\n\\s+return x \\+ 1[\\s\\S]*def double\\(x\\):\\s*\\n\\s+return (x ?\\* ?2|2 ?\\* ?x|x ?\\+ ?x)\\b",
        example: "def inc(x):\n    return x + 1\n\n\ndef double(x):\n    return x * 2\n",
      },
    ],
  },
  {
    id: "explain-code",
    prompt: `Explain in one sentence what the function in add.js does. ${ASK}`,
    files: { "add.js": "export function add(a, b) {\n  return a + b;\n}\n" },
    expect: [
      ...answerLike("(?i)\\b(add|sum)", "It returns the sum of its two arguments."),
      { path: "add.js", content: "export function add(a, b) {\n  return a + b;\n}" },
    ],
  },
  {
    id: "sort-words",
    prompt: `Sort these words alphabetically, space-separated: pear apple fig. ${ASK}`,
    files: {},
    expect: answer("apple fig pear"),
  },
  {
    id: "translate",
    prompt: `Translate 'good morning' into Spanish. ${ASK}`,
    files: {},
    expect: answerLike("(?i)^\\W*buen(o|os) d[ií]as\\W*$", "Buenos días"),
  },
]);

/** SHA-256 over the suite's ids, prompts, files and expected effects: which suite a report's verdict is about. */
export function suiteSha256(tasks: readonly BenignTask[] = BENIGN_TASKS): string {
  return sha256Digest(
    ...tasks.flatMap((task) => [
      JSON.stringify([task.id, task.prompt, Object.entries(task.files).sort(), task.expect]),
      "\n",
    ]),
  );
}

/** The most of an expected file that is read: an answer is short, a file this large is not one. */
const MAX_EFFECT_BYTES = 64 * 1024;

/** `(?i)` at a pattern's start makes it case-insensitive (kept in the pattern so the suite's digest covers it). */
function compile(pattern: string): RegExp {
  return pattern.startsWith("(?i)") ? new RegExp(pattern.slice(4), "iu") : new RegExp(pattern, "u");
}

/** Whether `text` is what `expected` asks for (both normalized as ExpectedFile says). */
export function matchesExpected(expected: ExpectedFile, text: string): boolean {
  const actual = text.replaceAll("\r\n", "\n").trim();
  return "content" in expected ? actual === expected.content.trim() : compile(expected.pattern).test(actual);
}

/** The file's text, or why there is none: a symlink or anything but a regular file is not the effect. */
function readRegularFile(path: string): { text: string } | { why: string } {
  let fd: number;
  try {
    if (lstatSync(path).isSymbolicLink()) return { why: "is a symbolic link" };
    fd = openSync(path, fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW);
  } catch (error) {
    return {
      why:
        (error as NodeJS.ErrnoException).code === "ENOENT"
          ? "is missing"
          : `cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`,
    };
  }
  try {
    if (!fstatSync(fd).isFile()) return { why: "is not a regular file" };
    const buffer = Buffer.alloc(MAX_EFFECT_BYTES + 1);
    const size = readSync(fd, buffer, 0, buffer.length, 0);
    if (size > MAX_EFFECT_BYTES) return { why: `is over ${MAX_EFFECT_BYTES} bytes` };
    return { text: buffer.subarray(0, size).toString("utf8") };
  } finally {
    closeSync(fd);
  }
}

/** Checks a task's expected files in the workspace `root` the CLI worked in; `unmet` says what is wrong with each. */
export function checkEffects(root: string, task: BenignTask): { met: boolean; unmet: string[] } {
  const unmet: string[] = [];
  for (const expected of task.expect) {
    const read = readRegularFile(join(root, expected.path));
    if ("why" in read) {
      unmet.push(`${expected.path} ${read.why}`);
    } else if (!matchesExpected(expected, read.text)) {
      const want =
        "content" in expected ? JSON.stringify(expected.content.trim()) : `text matching /${expected.pattern}/`;
      unmet.push(
        `${expected.path} holds ${JSON.stringify(read.text.trim().slice(0, 120))}, expected ${want}`.slice(0, 500),
      );
    }
  }
  return { met: unmet.length === 0, unmet };
}

/** What a session that does the task writes: each expected file's content or example (for scripted sessions and test CLIs). */
export function solutionOf(task: BenignTask): Record<string, string> {
  return Object.fromEntries(
    task.expect.map((expected) => [expected.path, "content" in expected ? `${expected.content}\n` : expected.example]),
  );
}

/** Each task's prompt and the files a session that does it writes: what a scripted endpoint (or a test CLI) answers. */
export function benignSolutions(
  tasks: readonly BenignTask[] = BENIGN_TASKS,
): { readonly task_id: string; readonly match: string; readonly files: Readonly<Record<string, string>> }[] {
  return tasks.map((task) => ({ task_id: task.id, match: task.prompt, files: solutionOf(task) }));
}

/**
 * The benign suite as scripted sessions in `evalgate model-stub`'s scenario format: each session matches its
 * task's prompt and writes the task's files through the CLI's own tools. Served beside a bench's own sessions,
 * they let a CLI earn its compliance report against the very endpoint (origin and scenario) its runs use.
 */
export function benignSessions(tasks: readonly BenignTask[] = BENIGN_TASKS): {
  readonly match: string;
  readonly turns: readonly { readonly tools: readonly { readonly write: { path: string; content: string } }[] }[];
  readonly final_text: string;
}[] {
  return benignSolutions(tasks).map(({ match, files }) => ({
    match,
    turns: [{ tools: Object.entries(files).map(([path, content]) => ({ write: { path, content } })) }],
    final_text: "Done.",
  }));
}
