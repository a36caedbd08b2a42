// The warehouse's public surface: what sync, cli and verify/rebuild call.
export { openWarehouse, openReader, parseLockHolderPid, IN_MEMORY, type Warehouse, type OpenOptions, type SandboxOptions } from './open.js';
export { openWriter, type WriterOptions } from './open-writer.js';
export { migrate, appliedVersions, latestVersion, listMigrations, type Migration, type MigrateOptions } from './migrations.js';
export { acquireSyncLock, lockPathFor, isProcessAlive, type SyncLock, type LockInfo, type AcquireOptions } from './lock.js';
export { loadFiles, describeFile, type LoadInput, type LoadOptions, type LoadReport, type FailedLoad } from './loader.js';
export {
  recordFileStatus,
  recordArchiveMove,
  loadedPendingCopies,
  loadedFiles,
  listLedger,
  recordNotArchived,
  forgetArchivePath,
  type LedgerFile,
  type LedgerRow,
} from './ledger.js';
export {
  upsertManifest,
  readListingState,
  readListingStates,
  recordListing,
  storeListings,
  listManifest,
  upsertCoverage,
  listCoverage,
  manifestRowsOf,
  type ListingState,
  type Listed,
} from './manifest.js';
export { startRun, finishRun, lastRun, redactSecrets, type RunStart, type RunCounts, type RunOutcome, type RunRow } from './runs.js';
export {
  loadArchived,
  expectVersion,
  type ArchivedCandidate,
  type ArchivedLoadReport,
  type FoundBytes,
  type NotLoaded,
  type Verdict,
  type LoadFacts,
} from './archived-load.js';
export { LEVELS_FIELDS } from './layouts.js';
export { SCHEMA_CONTRACTS, type SchemaContract } from './schema-evolution.js';
export { insertApiLevels, type HistoryLevelsRow } from './levels-api.js';
export { rowCountMismatches, type RowCountMismatch } from './row-count-mismatches.js';
// Analysis surface: query, rebuild, verify (the CLI's query|rebuild|verify commands).
export { runQuery, runQueryOn, withQuery, copyQueryToParquet, type QueryResult, type QueryColumn, type QueryRows, type QueryOptions } from './query.js';
export { rebuildWarehouse, rebuildOn, type RebuildOptions } from './rebuild.js';
export type { RebuildResult, RebuildProblem } from './rebuild-result.js';
export { verifyWarehouse, verifyAndRepairOn, type VerifyOptions, type VerifyReport, type VerifyProblem, type VerifyProblemKind } from './verify.js';
export { readPlanState, type PlanState, type PlanStateFilter, type PendingLedgerRow } from './planner-input.js';
