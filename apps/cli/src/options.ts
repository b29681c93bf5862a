// The option blocks several commands share, defined once (a command with a different meaning passes
// its own description).
import { Option } from "clipanion";

/** `--out`: the state directory. */
export function stateDirOption(description = "The state directory (default .evalgate)"): string | undefined {
  return Option.String("--out", { description });
}

/** `--bench-root`: where the task classes are. */
export function benchRootOption(): string | undefined {
  return Option.String("--bench-root", { description: "The directory holding the task classes (default bench)" });
}

/** `--format`: jsonl lines (default) or a human table. */
export function formatOption(description = "jsonl (default) or human"): string | undefined {
  return Option.String("--format", { description });
}

/** `--trust-tiers`: the trust-tier file. */
export function trustTiersOption(
  description = "The trust-tier file (default docs/trust-tiers.yaml)",
): string | undefined {
  return Option.String("--trust-tiers", { description });
}

/** `--signing-key`: the Ed25519 private key (PEM file) that signs what the command writes; else EVALGATE_SIGNING_KEY. */
export function signingKeyOption(): string | undefined {
  return Option.String("--signing-key", {
    description:
      "Sign what this writes with this Ed25519 key (PEM file, outside the state directory); default $EVALGATE_SIGNING_KEY (the PEM text)",
  });
}
