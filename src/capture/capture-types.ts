// The shapes a capture exchanges with its caller: its options, the events it reports, and the
// summary of what each target did. The run itself is capture.ts.
import type { QuotaStop } from '../api/quota.js';
import type { LiveTable } from '../warehouse/live.js';
import type { CaptureTarget } from './capture-targets.js';

export interface CaptureOptions {
  dbPath: string;
  /** The archive folder: snapshots are journaled under `_live/` before they are loaded. */
  archiveRoot: string;
  /** After a load, delete loaded snapshots older than this many days (default: keep them all). */
  keepDays?: number;
  symbols: readonly string[];
  /** Current-data venues; undefined: all for crypto, tradfi for TradFi. */
  exchanges?: readonly string[];
  byStrike: boolean;
  force: boolean;
  dryRun: boolean;
  maxRequests?: number;
  signal: AbortSignal;
  /** Wait this long for a sync holding the warehouse (default 60 s). */
  waitSeconds?: number;
  warn?(message: string): void;
  /** Progress: the capture phase and its targets done. */
  events?: CaptureEvents;
}

/** Progress events of a capture: its phase, and how many targets are done. */
export interface CaptureEvents {
  phase?(name: 'capture', detail?: string): void;
  targetsDone?(done: number, total: number): void;
}

export type TargetStatus = 'planned' | 'captured' | 'skipped' | 'failed' | 'not_reached';

export interface TargetReport extends CaptureTarget {
  status: TargetStatus;
  reason?: string;
  /** Resolved venue (meta.exchange_resolved) and snapshot time, once /levels answered. */
  resolved?: string;
  asOf?: string;
  marketOpen?: boolean;
  /** Upper bound before spending: levels + term-oi + by-strike per expiration. */
  plannedRequests: number;
  /** Requests sent for this target. */
  requests: number;
  expirations?: string[];
}

export interface CaptureSummary {
  dryRun: boolean;
  serverTime: string;
  targets: TargetReport[];
  plannedRequests: number;
  requestsSpent: number;
  /** Rows newly inserted per table (a repeated as_of adds none). */
  rowsInserted: Record<LiveTable, number>;
  /** Snapshots this run wrote to the live journal. */
  snapshotsJournaled: number;
  /** Journaled snapshots loaded into the warehouse by this run (earlier held-out ones included). */
  snapshotsLoaded: number;
  stoppedBy?: 'max_requests' | 'quota';
  quotaStop?: QuotaStop;
  warnings: string[];
}
