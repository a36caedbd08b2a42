// The shapes a sync exchanges with its callers: what it needs from the API, its options, the events
// it reports while it runs. The run itself is src/sync/run.ts.
import type { SchemaContract } from '../warehouse/index.js';
import type { Market } from '../time/sessions.js';
import type { CoverageListing } from './coverage.js';
import type { Downloader } from './fetch.js';
import type { HistoryLevelsFetcher } from './fill-levels.js';
import type { ManifestPageFetcher } from './manifest.js';
import type { SelectionLabels, SyncSelection } from './selection.js';
import type { PlannedFile } from '../core/rows.js';
import type { QuotaStop } from '../api/quota.js';
import type { PlanDocument } from './plan-file.js';

/** What the sync needs from the API (src/sync/api-port.ts adapts the client to it). */
export interface SyncApi {
  /** unknownMarkets: names /me listed that this version does not know; left out of markets. */
  me(): Promise<{ markets: Market[]; unknownMarkets?: string[]; creditsLimit: number; creditsRemaining: number | null; creditsReset?: string }>;
  /** The usable coverage rows, and those set aside with their reason. */
  coverage(): Promise<CoverageListing>;
  manifestPage: ManifestPageFetcher;
  download: Downloader;
  quotaStopOf: (error: unknown) => QuotaStop | undefined;
  /** Quota-counted requests this client has made so far. */
  requestsSpent: () => number;
  /** /history/levels pages, for --fill-levels. */
  historyLevels?: HistoryLevelsFetcher;
}

export interface SyncOptions {
  command: 'sync' | 'plan';
  dbPath: string;
  archiveRoot: string;
  selection: SyncSelection;
  dryRun: boolean;
  fullRescan: boolean;
  /** Fill levels of sessions without a levels file from /history/levels. */
  fillLevels: boolean;
  waitLockSeconds?: number;
  /** `freeze`: a file with a new column or schema_version is archived and held in the journal (default `evolve`). */
  schemaContract?: SchemaContract;
  /** How the user gave the selection's values (flag or config file key), for messages; absent: the flags. */
  labels?: SelectionLabels;
  /** Effective options, stored in sync.runs (no secrets). */
  recordedOptions: Record<string, unknown>;
  /**
   * `sync --plan FILE`: carry out this plan file's plan (and buy nothing outside it), or refuse when
   * the manifest or the archive moved since it was written. The selection is the file's.
   */
  followPlan?: { document: PlanDocument; path: string };
}

export interface SyncEvents {
  phase?(name: 'coverage' | 'manifests' | 'plan' | 'download' | 'load' | 'fill' | 'capture', detail?: string): void;
  file?: (event: { file: PlannedFile; outcome: 'verified' | 'failed' | 'deferred'; bytes: number }) => void;
  /**
   * Manifest rows (files) listed so far, against about how many the listing windows hold (the
   * listing returns no totals: an estimate from the coverage's session counts, which may be passed).
   */
  manifestFilesListed?: (listed: number, estimate: number) => void;
  /** Files of this run's load done (loaded, skipped or failed) out of all it loads. */
  loadDone?(done: number, total: number): void;
  /** Capture targets done (captured, failed or cut short) out of all the run captures. */
  targetsDone?(done: number, total: number): void;
  warn?(message: string): void;
  /** The plan as a plan file (asked for by plan --out): told once the planner has decided. */
  planned?(document: PlanDocument): void;
  /** A stop signal arrived: what the run does now (said at once, before it is done). */
  stopping?(message: string): void;
}
