import { Command, Option } from "clipanion";
import { EvalError } from "@eval/errors";
import { EvalgateCommand } from "../base-command.ts";
import { loadSettings } from "../load-settings.ts";
import { ExitCode } from "../exit-codes.ts";
import { renderError } from "../render-error.ts";
import { signingKeyOption, stateDirOption } from "../options.ts";
import { isInside } from "@eval/durable-fs";
import { checkStateDir, DEFAULT_STATE_DIR, stateLayout } from "@eval/state-layout";

export class AnchorCommand extends EvalgateCommand {
  static override paths = [["anchor"]];
  static override usage = Command.Usage({
    category: "Audit",
    description: "Write the audit chain's head to an anchor file kept outside the state directory",
    details: `
      Verifies the whole chain, then writes its head (chain hash, number of records, host, time) to the file
      given with --write. Keep that file where whoever runs evalgate cannot rewrite it (a CI artifact, a
      commit): \`verify --anchor <file>\` and \`promote-verdict --anchor <file>\` then refuse a chain that does
      not extend it, so deleting the newest records (with the checkpoint and head pointer restored) is caught.
      With a signing key (--signing-key or EVALGATE_SIGNING_KEY) the anchor is signed, and a verdict whose tier
      requires signed evidence accepts only an anchor a declared signer signed; an unsigned anchor can be moved
      by anyone who can rewrite its file. Prints one JSON line; exit 5 when the chain does not verify (nothing
      is written).
    `,
    examples: [["Anchor the chain after a run", "evalgate anchor --write evalgate-anchor.json"]],
  });

  write = Option.String("--write", {
    required: true,
    description: "Where to write the anchor (outside the state directory)",
  });
  out = stateDirOption();
  signingKey = signingKeyOption();

  protected async run(): Promise<number> {
    const settings = await loadSettings({
      flags: { state_dir: this.out },
      env: this.context.env,
      cwd: this.context.cwd,
    });
    const { resolve } = await import("node:path");
    const stateDir = resolve(this.context.cwd, settings.path("state_dir", DEFAULT_STATE_DIR));
    const runsDir = stateLayout(checkStateDir(stateDir, { write: false })).runs;
    const target = resolve(this.context.cwd, this.write);
    if (isInside(stateDir, target)) {
      throw new EvalError(
        "EVAL_USAGE",
        `the anchor ${target} is inside the state directory ${stateDir}: whoever can truncate the chain can rewrite it there`,
        { hint: "write it outside, e.g. a CI artifact or a file you commit" },
      );
    }
    const { ChainTampered, chainAnchor, verifyChain, writeAnchor } = await import("@eval/audit-chain");
    const chain = await verifyChain({ runsDir });
    if (!chain.ok) {
      const rendered = renderError(new ChainTampered(chain.firstBad!, runsDir), false);
      this.context.stderr.write(rendered.text);
      return rendered.exitCode;
    }
    const signingKey = await (
      await import("../signing-key.ts")
    ).commandSigningKey(this.signingKey, this.context, stateDir);
    const anchor = await chainAnchor(runsDir, signingKey);
    if (anchor === null)
      throw new EvalError(
        "EVAL_REPORT_NOT_FOUND",
        `the audit chain in ${runsDir} is empty: there is nothing to anchor`,
        { hint: "run `evalgate run` first" },
      );
    await writeAnchor(target, anchor);
    this.emit({ type: "anchor", path: target, ...anchor });
    return ExitCode.ok;
  }
}
