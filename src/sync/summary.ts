// The last stage of a sync, pure: its run record and the summary the CLI prints, made from the values
// the stages handed on (the plan, what was fetched, what was loaded).
import type { RunCounts, RunOutcome } from '../warehouse/index.js';
import type { SkippedCoverageRow } from './coverage.js';
import type { Plan } from './download-plan.js';
import { venueSpread, type NotBought, type VenueSpread } from './venue-rule.js';
import type { FetchReport } from './fetch.js';
import type { FillLevelsReport } from './fill-levels.js';
import type { PlannedFile, VerifiedFile } from '../core/rows.js';
import type { QuotaStop } from '../api/quota.js';
import type { Limit } from '../core/credit-meter.js';

export interface SyncSummary {
  command: 'sync' | 'plan';
  outcome: RunOutcome;
  dryRun: boolean;
  plan: {
    toDownload: number;
    toReload: number;
    deferred: number;
    alreadyLoaded: number;
    creditsAvailable: Limit;
    limitedBy: string;
    pairs: Plan['pairs'];
    files: PlannedFile[];
  };
  manifestsListed: number;
  filesLoaded: number;
  filesFailed: { exchange: string; symbol: string; sessionDate: string; file: string; status: string; error: string }[];
  filesDeferred: number;
  rowsLoaded: number;
  creditsSpent: number;
  /** File link requests whose answer was lost: each may have cost a credit on top of creditsSpent. */
  linksLost: number;
  requestsSpent: number;
  bytesDownloaded: number;
  creditsRemaining: number | null;
  creditsReset?: string;
  quotaStop?: QuotaStop;
  /** --fill-levels: sessions, windows, requests (pages) and rows inserted. */
  levelsFilled?: FillLevelsReport;
  /** The local write error (disk full, read-only archive) that stopped the downloads. */
  archiveWriteError?: string;
  /** What deferred files, first the run's own stops, then the plan's budget; absent when none was deferred. */
  deferredBy?: DeferralCause[];
  /** How many files each cause of deferredBy deferred. */
  deferredCounts?: Partial<Record<DeferralCause, number>>;
  /** A stop signal cut the run short; paid files not loaded wait in the journal for the next run. */
  interrupted?: boolean;
  /** Files an earlier run paid for but could not load (the warehouse was held), loaded by this run for 0 credits. */
  loadedFromJournal?: number;
  /** Paid files this run did not load (stopped or held): they wait in the journal, 0 credits to load. */
  filesWaiting?: number;
  warnings: string[];
  /** Coverage rows (or pairs whose manifest could not be read) set aside this run; each is also a warning. */
  skippedPairs: SkippedCoverageRow[];
  /** Symbols whose files this run pays for on several venues, with the credits per venue. */
  venueSpread: VenueSpread[];
  /** Symbols with no venue named that have several venues and no default one: not bought, with the flags that buy them. */
  notBought: NotBought[];
}

/** What the load stage did: files loaded (this run's and the journal's), failed, and left waiting. */
export interface LoadReport {
  loaded: number;
  rows: number;
  failed: { file: PlannedFile; error: string }[];
  /** Files a stop signal kept from loading (they wait in the journal). */
  notLoaded: VerifiedFile[];
  /** Loaded from the journal (earlier runs' paid files), included in loaded and rows. */
  fromJournal: number;
}

export const NOTHING_LOADED: LoadReport = { loaded: 0, rows: 0, failed: [], notLoaded: [], fromJournal: 0 };

export function emptyFetch(): FetchReport {
  return { verified: [], failed: [], deferred: [], creditsSpent: 0, linksLost: 0, bytesDownloaded: 0, interrupted: false };
}

/** The run's facts, as the stages left them. */
export interface RunFacts {
  command: 'sync' | 'plan';
  dryRun: boolean;
  plan: Plan;
  manifestsListed: number;
  fetched: FetchReport;
  loaded: LoadReport;
  requestsSpent: number;
  me: { creditsRemaining: number | null; creditsReset?: string };
  quotaStop: QuotaStop | undefined;
  warnings: string[];
  skipped: SkippedCoverageRow[];
  outcome: RunOutcome;
  levelsFilled?: FillLevelsReport;
}

function failedFiles(facts: RunFacts): SyncSummary['filesFailed'] {
  return [
    ...facts.fetched.failed.map((f) => ({
      exchange: f.exchange,
      symbol: f.symbol,
      sessionDate: f.sessionDate,
      file: f.file,
      status: 'failed_verify',
      error: f.error,
    })),
    ...facts.loaded.failed.map(({ file, error }) => ({
      exchange: file.exchange,
      symbol: file.symbol,
      sessionDate: file.sessionDate,
      file: file.file,
      status: 'failed_load',
      error,
    })),
  ];
}

function planPart(facts: RunFacts): SyncSummary['plan'] {
  const { plan } = facts;
  return {
    toDownload: plan.toDownload.length,
    toReload: plan.toReload.length,
    deferred: plan.deferred.length,
    alreadyLoaded: plan.alreadyLoaded,
    creditsAvailable: plan.budget.available,
    limitedBy: plan.budget.limitedBy,
    pairs: plan.pairs,
    files: facts.dryRun ? [...plan.toDownload, ...plan.toReload] : [],
  };
}

/** Why files wait for a later run: the run's own stops (a full archive, a signal, a 429), or the plan's bound. */
export type DeferralCause = 'archive-write' | 'interrupted' | 'rate-limit' | 'max-credits' | 'reserve-credits' | 'quota';

export function deferralCauses(facts: Pick<RunFacts, 'fetched' | 'outcome' | 'quotaStop' | 'plan'>): DeferralCause[] {
  const causes: DeferralCause[] = [];
  if (facts.fetched.deferred.length > 0) {
    if (facts.fetched.localWriteError) causes.push('archive-write');
    else if (facts.outcome === 'interrupted') causes.push('interrupted');
    else if (facts.quotaStop) causes.push('rate-limit');
  }
  const overBudget = (facts.fetched.overBudget ?? 0) > 0;
  if (facts.plan.deferred.length > 0 || overBudget) causes.push(...boundsThatDeferred(facts.plan.budget, overBudget));
  return causes;
}

/** The files each cause deferred: the run's own stop for the files it did not fetch, each budget bound for its share of the plan's. */
function deferralCounts(facts: Pick<RunFacts, 'fetched' | 'outcome' | 'quotaStop' | 'plan'>): Partial<Record<DeferralCause, number>> {
  const counts: Partial<Record<DeferralCause, number>> = {};
  const [stop] = deferralCauses({ ...facts, plan: { ...facts.plan, deferred: [] } });
  if (stop !== undefined) counts[stop] = facts.fetched.deferred.length;
  const split = facts.plan.budget.deferredBy ?? {};
  const splitTotal = Object.values(split).reduce((sum, n) => sum + n, 0);
  if (splitTotal === facts.plan.deferred.length)
    for (const [bound, n] of Object.entries(split)) counts[bound as DeferralCause] = (counts[bound as DeferralCause] ?? 0) + n;
  else if (facts.plan.budget.limitedBy !== 'unlimited')
    counts[facts.plan.budget.limitedBy] = (counts[facts.plan.budget.limitedBy] ?? 0) + facts.plan.deferred.length;
  return counts;
}

/** Optional fields, present only when they say something. */
function extras(facts: RunFacts): Partial<SyncSummary> {
  const { fetched, loaded, quotaStop, me } = facts;
  const reset = quotaStop?.resetAt ?? me.creditsReset;
  return {
    ...(reset ? { creditsReset: reset } : {}),
    ...(facts.plan.deferred.length + fetched.deferred.length > 0 ? { deferredBy: deferralCauses(facts), deferredCounts: deferralCounts(facts) } : {}),
    ...(quotaStop ? { quotaStop } : {}),
    ...(fetched.localWriteError ? { archiveWriteError: fetched.localWriteError } : {}),
    ...(facts.outcome === 'interrupted' ? { interrupted: true } : {}),
    ...(loaded.fromJournal > 0 ? { loadedFromJournal: loaded.fromJournal } : {}),
    ...(loaded.notLoaded.length > 0 ? { filesWaiting: loaded.notLoaded.length } : {}),
    ...(facts.levelsFilled ? { levelsFilled: facts.levelsFilled } : {}),
  };
}

export function summarize(facts: RunFacts): SyncSummary {
  const { fetched, loaded, me } = facts;
  return {
    command: facts.command,
    outcome: facts.outcome,
    dryRun: facts.dryRun,
    plan: planPart(facts),
    manifestsListed: facts.manifestsListed,
    filesLoaded: loaded.loaded,
    filesFailed: failedFiles(facts),
    filesDeferred: facts.plan.deferred.length + fetched.deferred.length,
    rowsLoaded: loaded.rows,
    creditsSpent: fetched.creditsSpent,
    linksLost: fetched.linksLost,
    requestsSpent: facts.requestsSpent,
    bytesDownloaded: fetched.bytesDownloaded,
    creditsRemaining: me.creditsRemaining === null ? null : Math.max(0, me.creditsRemaining - fetched.creditsSpent),
    ...extras(facts),
    warnings: facts.warnings,
    skippedPairs: facts.skipped,
    venueSpread: venueSpread(facts.plan.pairs),
    notBought: facts.plan.notBought,
  };
}

/** The run record (sync.runs) of a summary. */
export function runCounts(summary: SyncSummary): RunCounts {
  return {
    outcome: summary.outcome,
    creditsSpent: summary.creditsSpent,
    linksLost: summary.linksLost,
    requestsSpent: summary.requestsSpent,
    filesPlanned: summary.plan.toDownload + summary.plan.toReload,
    filesLoaded: summary.filesLoaded,
    filesFailed: summary.filesFailed.length,
    filesDeferred: summary.filesDeferred,
    rowsLoaded: summary.rowsLoaded,
    bytesDownloaded: summary.bytesDownloaded,
  };
}

/** Each bound that deferred files of the plan, the quota first (it is what the next reset lifts); a renewal over the budget blames the bound that set it. */
function boundsThatDeferred(budget: RunFacts['plan']['budget'], overBudget: boolean): DeferralCause[] {
  const split = budget.deferredBy ?? {};
  const bounds: DeferralCause[] = (['quota', 'reserve-credits', 'max-credits'] as const).filter((b) => (split[b] ?? 0) > 0);
  const bound = budget.limitedBy;
  if (bound !== 'unlimited' && (bounds.length === 0 || (overBudget && !bounds.includes(bound)))) bounds.push(bound);
  return bounds;
}
