// The signing key a command signs with: `--signing-key <file>` or EVALGATE_SIGNING_KEY (the PEM text, a CI
// secret). Read once, before anything runs, then removed from the environment so no SUT, rubric or agent this
// process starts inherits it.
import type { SigningKey } from "@eval/audit-chain";
import type { EvalgateContext } from "./context.ts";

export const SIGNING_KEY_ENV = "EVALGATE_SIGNING_KEY";

export async function commandSigningKey(
  flag: string | undefined,
  context: EvalgateContext,
  stateDir: string,
): Promise<SigningKey | null> {
  const [{ loadSigningKey }, { resolve }] = await Promise.all([import("@eval/audit-chain"), import("node:path")]);
  const pem = context.env[SIGNING_KEY_ENV];
  const key = await loadSigningKey({
    ...(flag === undefined ? {} : { path: resolve(context.cwd, flag) }),
    pem,
    stateDir: resolve(context.cwd, stateDir),
  });
  delete context.env[SIGNING_KEY_ENV];
  delete process.env[SIGNING_KEY_ENV];
  return key;
}
