// The warehouse's public surface: what sync, cli and verify/rebuild call.
export { openWarehouse, parseLockHolderPid, IN_MEMORY, type Warehouse, type OpenOptions } from './open.js';
export { migrate, appliedVersions, latestVersion, listMigrations, type Migration, type MigrateOptions } from './migrations.js';
export { acquireSyncLock, lockPathFor, isProcessAlive, type SyncLock, type LockInfo, type AcquireOptions } from './lock.js';
export { loadFiles, describeFile, type LoadInput, type LoadOptions, type LoadReport, type FailedLoad } from './loader.js';
export {
  recordFileStatus, loadedFiles, listLedger, fileKey,
  FILE_STATUSES, type FileStatus, type LedgerFile, type LedgerRow, type FileKeyParts,
} from './ledger.js';
export {
  upsertManifest, manifestNewestDate, listManifest, upsertCoverage, listCoverage,
  type ManifestRow, type StoredManifestRow, type CoverageRow,
} from './manifest.js';
export { startRun, finishRun, lastRun, redactSecrets, type RunStart, type RunCounts, type RunOutcome, type RunRow } from './runs.js';
export { FILE_KINDS, EXCHANGES, LEVELS_FIELDS, isFileKind, isExchange, type FileKind, type Exchange } from './layouts.js';
export { insertApiLevels, type HistoryLevelsRow } from './levels-api.js';
export { rowCountMismatches, type RowCountMismatch } from './integrity.js';
