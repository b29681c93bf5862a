import { Command, Option } from "clipanion";
import { EvalgateCommand } from "../base-command.ts";
import { ExitCode } from "../exit-codes.ts";

export class KeyGenerateCommand extends EvalgateCommand {
  static override paths = [["key", "generate"]];
  static override usage = Command.Usage({
    category: "Audit",
    description: "Create an Ed25519 signing key for records, bundles and anchors; print its public key to declare",
    details: `
      Writes a new private key (PKCS#8 PEM, mode 0600; an existing file is never overwritten) and prints one
      JSON line with its key_id and public_key. Keep the private key outside the state directory (a CI secret:
      put the file's text in EVALGATE_SIGNING_KEY, or pass --signing-key <file>), and declare the public key
      under \`signers:\` in docs/trust-tiers.yaml (a reviewed change) so verdicts count what it signs.
    `,
    examples: [["Create the CI key", "evalgate key generate --write ../evalgate-signing-key.pem"]],
  });

  write = Option.String("--write", {
    required: true,
    description: "Where to write the private key (a new file, outside the state directory)",
  });

  protected async run(): Promise<number> {
    const [{ writeNewSigningKey }, { resolve }] = await Promise.all([import("@eval/audit-chain"), import("node:path")]);
    const path = resolve(this.context.cwd, this.write);
    const { publicKey, keyId } = await writeNewSigningKey(path);
    this.emit({ type: "signing_key", path, key_id: keyId, public_key: publicKey });
    return ExitCode.ok;
  }
}
