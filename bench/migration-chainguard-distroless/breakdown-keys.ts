/** What the migration rubric measures per case; each value is 0 or 1. */
export const BREAKDOWN_KEYS = [
  /** The final stage runs on cgr.dev/chainguard/* or gcr.io/distroless/*. */
  "hardened_base",
  /** Every external image is pinned by digest or an explicit, non-latest tag. */
  "images_pinned",
  /** Compilation happens in a builder stage whose output the final stage copies. */
  "builder_stage",
  /** The final stage has no package-manager or shell-form commands. */
  "final_stage_minimal",
  /** The final stage runs as a non-root user. */
  "non_root",
  /** ENTRYPOINT/CMD of the final stage are in exec (JSON) form. */
  "exec_form_command",
  /** Every port the service exposed is still exposed. */
  "ports_preserved",
  /** The service's artifacts reach the final stage and its command still runs them. */
  "artifacts_preserved",
  /** A command that needs a shell at runtime runs on an image that has one. */
  "runtime_shell_ok",
  /** Only the files a migration needs changed. */
  "scope_clean",
] as const;
