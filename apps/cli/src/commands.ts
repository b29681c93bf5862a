import type { CommandClass } from "clipanion";
import type { EvalgateContext } from "./context.ts";
import { AdaptersComplianceCheckCommand } from "./commands/adapters-compliance-check.ts";
import { AdaptersDoctorCommand } from "./commands/adapters-doctor.ts";
import { AdaptersListCommand } from "./commands/adapters-list.ts";
import { BenchListCommand } from "./commands/bench-list.ts";
import { BenchShowCommand } from "./commands/bench-show.ts";
import { BenchSignCommand } from "./commands/bench-sign.ts";
import { CacheGcCommand } from "./commands/cache-gc.ts";
import { CompareCommand } from "./commands/compare.ts";
import { GcCommand } from "./commands/gc.ts";
import { CacheStatsCommand } from "./commands/cache-stats.ts";
import { FenceCommand } from "./commands/fence.ts";
import { MergeCommand } from "./commands/merge.ts";
import { PlanCommand } from "./commands/plan.ts";
import { PromoteVerdictCommand } from "./commands/promote-verdict.ts";
import { ReportCommand } from "./commands/report.ts";
import { RunCommand } from "./commands/run.ts";
import { ShowCommand } from "./commands/show.ts";
import { SchemasCommand } from "./commands/schemas.ts";
import { TranscriptImportCommand } from "./commands/transcript-import.ts";
import { VerifyCommand } from "./commands/verify.ts";
import { RunsCommand } from "./commands/runs.ts";

/**
 * Every command, one file each under commands/. Command modules import their libraries lazily inside
 * `run()`, so `evalgate --help` loads only clipanion and these classes.
 */
export const COMMANDS: ReadonlyArray<CommandClass<EvalgateContext>> = [RunCommand, PlanCommand, MergeCommand, CacheStatsCommand, CacheGcCommand, GcCommand, SchemasCommand, TranscriptImportCommand, FenceCommand, BenchListCommand, BenchShowCommand, BenchSignCommand, AdaptersListCommand, AdaptersDoctorCommand, AdaptersComplianceCheckCommand, VerifyCommand, RunsCommand, PromoteVerdictCommand, CompareCommand, ReportCommand, ShowCommand];
