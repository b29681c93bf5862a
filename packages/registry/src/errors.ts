import { dirname } from "node:path";
import { EvalError } from "@eval/errors";
import { installHint } from "./package-manager.ts";

/** No registration.ts under the bench root registers the requested name (exit 3). */
export class TaskClassNotFound extends EvalError {
  constructor(name: string, available: readonly string[], benchRoot: string | null) {
    super(
      "EVAL_TASK_CLASS_NOT_FOUND",
      `no task class named "${name}" is registered${benchRoot === null ? "" : ` under ${benchRoot}`} (available: ${available.length > 0 ? available.join(", ") : "none"})`,
      { details: { name, available: [...available], bench_root: benchRoot } },
    );
  }
}

/** Two registrations claim one name: both origins are named. */
export class TaskClassAlreadyRegistered extends EvalError {
  constructor(name: string, existingOrigin: string, incomingOrigin: string) {
    super(
      "EVAL_TASK_CLASS_ALREADY_REGISTERED",
      `task class "${name}" is registered twice: by ${existingOrigin} and by ${incomingOrigin}`,
      {
        details: { name, origins: [existingOrigin, incomingOrigin] },
      },
    );
  }
}

/** The bench root, or a registered class's bench/<name> directory, does not exist (exit 4). */
export class BenchDirMissing extends EvalError {
  constructor(path: string, why: string) {
    super("EVAL_BENCH_DIR_MISSING", `${why}: ${path} does not exist`, { details: { path } });
  }
}

/** A required sibling file of a registration is missing. */
export class TaskClassIncomplete extends EvalError {
  constructor(name: string, missingPath: string) {
    super("EVAL_TASK_CLASS_INCOMPLETE", `task class "${name}" is missing ${missingPath}`, {
      details: { name, path: missingPath },
    });
  }
}

/**
 * registration.ts, breakdown-keys.ts or failure_modes.yaml breaks the contract. The hint names the file
 * at fault; when a bench file cannot import a package (a task class created since the last install),
 * the command that installs it, in the project's package manager.
 */
export class TaskClassInvalid extends EvalError {
  constructor(path: string, reason: string) {
    super("EVAL_TASK_CLASS_INVALID", `${path}: ${reason}`, {
      details: { path },
      hint: taskClassInvalidHint(path, reason),
    });
  }
}

function taskClassInvalidHint(path: string, reason: string): string {
  const missingPackage = /Cannot find (?:package|module) '([^']+)'/.exec(reason)?.[1];
  if (missingPackage !== undefined && !missingPackage.startsWith(".") && !missingPackage.startsWith("/")) {
    return `${installHint(dirname(path), missingPackage)}; docs/bench-authoring.md`;
  }
  const file = path.split(/[\\/]/).at(-1) ?? path;
  return `fix ${file} as described; docs/bench-authoring.md lists the contract`;
}

/** A case file is missing or malformed: names the file, the field and the reason. */
export class CaseLoadFailed extends EvalError {
  constructor(path: string, field: string | null, reason: string) {
    super("EVAL_CASE_LOAD_FAILED", `${path}${field === null ? "" : `: ${field}`}: ${reason}`, {
      details: { path, field },
    });
  }
}

/** A symlink, device, or anything else that is not a regular file or directory inside a case. */
export class CaseUnsafePath extends EvalError {
  constructor(path: string, reason: string) {
    super("EVAL_CASE_UNSAFE_PATH", `${path}: ${reason}`, { details: { path } });
  }
}

/** Two case.toml files claim one case_id. */
export class CaseIdCollision extends EvalError {
  constructor(caseId: string, paths: readonly string[]) {
    super("EVAL_CASE_ID_COLLISION", `case_id "${caseId}" is claimed by ${paths.join(" and ")}`, {
      details: { case_id: caseId, paths: [...paths] },
    });
  }
}

/** Cases whose files besides case.toml and canary pin are identical: one case copied (same exit as an id collision). */
export class CaseContentCollision extends EvalError {
  constructor(caseIds: readonly string[], caseDigest: string) {
    super(
      "EVAL_CASE_ID_COLLISION",
      `cases ${caseIds.join(" and ")} have identical files and canary pin besides case.toml: one case copied, which the bound would count twice`,
      {
        details: { case_ids: [...caseIds], case_digest: caseDigest },
        hint: "make the cases differ (their input or expected files) or give each its own cassette_canary_pin, then regenerate cases/digests.yaml",
      },
    );
  }
}

/** A case's files differ from what cases/digests.yaml recorded (exit 6). */
export class CaseDigestMismatch extends EvalError {
  constructor(caseId: string, casePath: string, reason: string, files: readonly string[]) {
    super("EVAL_CASE_DIGEST_MISMATCH", `case ${caseId} (${casePath}): ${reason}`, {
      details: { case_id: caseId, path: casePath, files: [...files] },
    });
  }
}

/** A bench breaks a fence rule that no loader error covers (too few cases, too few held-out cases). */
export class FenceAssertionFailed extends EvalError {
  constructor(path: string, reason: string) {
    super("EVAL_FENCE_FAILED", `${path}: ${reason}`, { details: { path } });
  }
}
