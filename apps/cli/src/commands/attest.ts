import { Command, Option } from "clipanion";
import { EvalError } from "@eval/errors";
import { checkStateDir, DEFAULT_STATE_DIR, stateLayout } from "@eval/state-layout";
import { ATTESTATION_LINE_SCHEMA_VERSION } from "@eval/models";
import { EvalgateCommand } from "../base-command.ts";
import { loadSettings } from "../load-settings.ts";
import { ExitCode } from "../exit-codes.ts";
import { signingKeyOption, stateDirOption, trustTiersOption } from "../options.ts";

export class AttestCommand extends EvalgateCommand {
  static override paths = [["attest"]];
  static override usage = Command.Usage({
    category: "Audit",
    description: "Write a run's signed in-toto attestation (DSSE envelope), or check one against the chain",
    details: `
      With a run id and --write, verifies the chain and the run's record (its figures recomputed from its per-case
      data), then writes an in-toto Statement v1 in a DSSE envelope: the subject is the run's report (SHA-256 and
      BLAKE3 of the canonical JSON its record's content hash covers), the predicate (urn:evalgate:predicate:run:v1)
      the figures a verdict reads, each case's outcome and content digest, and the record's place in the chain
      and signer. It is signed with --signing-key or EVALGATE_SIGNING_KEY (required), so attestation tooling can
      check it. With --verify <file>, checks such an envelope: a signature by a key declared in the trust-tier
      file's signers, and a subject and predicate equal to what the chain's record gives today (exit 5
      otherwise). Prints one JSON line.
    `,
    examples: [
      ["Attest a run in CI", "evalgate attest <run-id> --write run.intoto.json"],
      ["Check an attestation against the chain", "evalgate attest --verify run.intoto.json"],
    ],
  });

  runId = Option.String({ required: false, name: "run-id" });
  write = Option.String("--write", { description: "Where to write the envelope" });
  verify = Option.String("--verify", { description: "An envelope to check instead of writing one" });
  out = stateDirOption();
  signingKey = signingKeyOption();
  trustTiers = trustTiersOption(
    "The trust-tier file whose signers an envelope must be signed by (default docs/trust-tiers.yaml)",
  );

  protected async run(): Promise<number> {
    const attesting = this.verify === undefined && this.runId !== undefined && this.write !== undefined;
    const verifying = this.verify !== undefined && this.runId === undefined && this.write === undefined;
    if (!attesting && !verifying) {
      throw new EvalError(
        "EVAL_USAGE",
        "give a run id and --write <file> to attest a run, or --verify <file> alone to check an attestation",
      );
    }
    const settings = await loadSettings({
      flags: { state_dir: this.out, trust_tiers: this.trustTiers },
      env: this.context.env,
      cwd: this.context.cwd,
    });
    const { resolve } = await import("node:path");
    const stateDir = resolve(this.context.cwd, settings.path("state_dir", DEFAULT_STATE_DIR));
    const runsDir = stateLayout(checkStateDir(stateDir, { write: false })).runs;
    const promotion = await import("@eval/promotion");
    const path = resolve(this.context.cwd, this.verify ?? this.write!);
    if (this.verify !== undefined) {
      const config = await promotion.loadTierConfig(settings.path("trust_tiers", "docs/trust-tiers.yaml"));
      const checked = await promotion.verifyAttestationFile({ path, config, runsDir });
      this.emit(line(path, true, checked.statement, checked.keyId, checked.signer));
      return ExitCode.ok;
    }
    const key = await (await import("../signing-key.ts")).commandSigningKey(this.signingKey, this.context, stateDir);
    if (key === null)
      throw new EvalError(
        "EVAL_USAGE",
        "an attestation is signed: give --signing-key <file> or set EVALGATE_SIGNING_KEY",
        { hint: "`evalgate key generate --out <file>` makes a key" },
      );
    const { envelope, statement } = await promotion.attestRun({ runsDir, runId: this.runId!, key });
    await promotion.writeAttestation(path, envelope);
    this.emit(line(path, false, statement, key.keyId, null));
    return ExitCode.ok;
  }
}

function line(
  path: string,
  verified: boolean,
  statement: {
    readonly subject: readonly { readonly digest: { readonly sha256: string } }[];
    readonly predicate: {
      readonly run_id: string;
      readonly task_class: string;
      readonly figures: { readonly lower_bound_95: number };
    };
  },
  keyId: string,
  signer: string | null,
) {
  const { predicate } = statement;
  return {
    type: "attestation",
    schema_version: ATTESTATION_LINE_SCHEMA_VERSION,
    path,
    verified,
    run_id: predicate.run_id,
    task_class: predicate.task_class,
    subject_sha256: statement.subject[0]!.digest.sha256,
    key_id: keyId,
    signer,
    lower_bound_95: predicate.figures.lower_bound_95,
  };
}
