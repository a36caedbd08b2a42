// The sync plan, a pure function of local state: manifest rows with no `loaded` ledger
// row of the same sha256, filtered by the selection, ordered by session date, cut to the credit
// budget. No I/O here, so every rule is unit-tested and `gexwh plan` shows exactly what sync does:
// the caller checks the archive first (filesToCheck) and passes what it holds; nothing after the
// planner changes the plan.

import { isIsoDate } from '../time/dates.js';
import { marketOf, type Market } from '../time/sessions.js';
import { FILE_KINDS, type FileKind, type Order } from './selection.js';
import { fileKey, fileVersionKey, type Pair, pairKey } from '../core/pairs.js';
import { defaultVenuePairs, type NotBought } from './venue-rule.js';
import type { LedgerEntry, StoredManifestRow, PlannedFile } from '../core/rows.js';
import { CreditMeter, lowestLimit, UNLIMITED, type Limit } from '../core/credit-meter.js';

export interface PlanSelection {
  /** History venues; undefined = every venue of the coverage (or the default ones, below). */
  exchanges?: readonly string[];
  /** With no exchanges named: only each symbol's default venue (what a sync without --exchange buys). */
  defaultVenuesOnly?: boolean;
  /** Upper-case symbols; undefined = every symbol of the coverage. */
  symbols?: readonly string[];
  files: readonly FileKind[];
  /** Inclusive session-date bounds. */
  since?: string;
  until?: string;
  /** The markets of the key's plan (from /me); undefined = no filter. */
  markets?: readonly Market[];
}

export interface PlanBudget {
  /** history_files remaining from /me or the headers; null when the quota service did not say. */
  creditsRemaining: number | null;
  /** history_files limit; 0 means unlimited. */
  creditsLimit: number;
  /** Credits to leave unspent. */
  reserve: number;
  /** --max-credits: a cap of this run, whatever the quota. */
  maxCredits?: number;
}

export interface PlanInput {
  coverage: readonly Pair[];
  manifest: readonly StoredManifestRow[];
  ledger: readonly LedgerEntry[];
  /**
   * Selected manifest rows known to be loaded that the caller left out of `manifest`, per
   * `exchange|symbol` (the warehouse counts them in SQL: a long history need not cross into JS).
   */
  loadedByPair?: ReadonlyMap<string, number>;
  selection: PlanSelection;
  budget: PlanBudget;
  order: Order;
  /**
   * What the archive holds: the versions (fileVersionKey) among filesToCheck() whose archived copy has
   * the manifest's size and sha256. Such a copy costs no credit: a download candidate is loaded from
   * it, and a failed load whose copy is not intact is paid for again. Absent: the ledger is trusted
   * (a failed load's copy is intact, nothing else is archived).
   */
  archived?: ReadonlySet<string>;
}

export interface PairPlan extends Pair {
  /** Manifest rows in the selection. */
  selected: number;
  alreadyLoaded: number;
  toDownload: number;
  toReload: number;
  deferred: number;
  /** Files among toDownload + deferred that replace a loaded older version. */
  rebuilt: number;
}

/** What set the credits a run may spend: nothing, the day's quota, --reserve-credits (out of the quota), --max-credits. */
export type BudgetBound = 'unlimited' | 'quota' | 'reserve-credits' | 'max-credits';

export interface PlanBudgetReport {
  /** Credits this run may spend (UNLIMITED: no bound). */
  available: Limit;
  /** Credits the plan spends (= toDownload.length). */
  used: number;
  /** Which bound set `available`. */
  limitedBy: BudgetBound;
  /** The quota's remaining count was unknown, so the daily limit was assumed. */
  remainingUnknown: boolean;
  /** The files each bound deferred (they add up to the plan's deferred files); empty when none was. */
  deferredBy?: Partial<Record<Exclude<BudgetBound, 'unlimited'>, number>>;
}

export interface Plan {
  /** Within budget, in the order to fetch them. One credit each. */
  toDownload: PlannedFile[];
  /**
   * Versions whose archived copy is intact (paid by an earlier run: failed to load, or never
   * loaded): loaded from the archive, no credit.
   */
  toReload: PlannedFile[];
  /** Cut by the budget, same order. */
  deferred: PlannedFile[];
  alreadyLoaded: number;
  /** Manifest rows skipped because their file kind or date is not one this client knows. */
  ignoredRows: number;
  /** Failed loads whose archived copy is missing or wrong: among toDownload or deferred, paid again. */
  brokenReloads: PlannedFile[];
  budget: PlanBudgetReport;
  /** Per selected (exchange, symbol), in exchange then symbol order. */
  pairs: PairPlan[];
  /** Symbols no venue was named for that have several venues and no default one: not bought, named to the user. */
  notBought: NotBought[];
}

/** The coverage pairs the selection covers, deduplicated, sorted by exchange then symbol. */
export function selectPairs(coverage: readonly Pair[], selection: Omit<PlanSelection, 'files'>): Pair[] {
  return selectCoverage(coverage, selection).pairs;
}

/**
 * The pairs the selection covers and, with no venue named, the symbols the one-venue rule leaves out
 * (several venues, none of them a default one), each to be named to the user.
 */
export function selectCoverage(coverage: readonly Pair[], selection: Omit<PlanSelection, 'files'>): { pairs: Pair[]; notBought: NotBought[] } {
  const exchanges = selection.exchanges?.map((e) => e.toLowerCase());
  const symbols = selection.symbols?.map((s) => s.toUpperCase());
  const byKey = new Map<string, Pair>();
  for (const { exchange, symbol } of coverage) {
    if (exchanges !== undefined && !exchanges.includes(exchange.toLowerCase())) continue;
    if (symbols !== undefined && !symbols.includes(symbol.toUpperCase())) continue;
    if (selection.markets !== undefined && !selection.markets.includes(marketOf(exchange))) continue;
    byKey.set(pairKey({ exchange, symbol }), { exchange, symbol });
  }
  const chosen =
    exchanges === undefined && selection.defaultVenuesOnly === true ? defaultVenuePairs([...byKey.values()]) : { pairs: [...byKey.values()], notBought: [] };
  return { pairs: chosen.pairs.sort(comparePairs), notBought: chosen.notBought };
}

function comparePairs(a: Pair, b: Pair): number {
  return compareText(a.exchange, b.exchange) || compareText(a.symbol, b.symbol);
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Credits this run may spend: the lowest of --max-credits and the day's quota less the reserve (a limit of 0 bounds nothing). */
export function creditBudget(budget: PlanBudget): { available: Limit; limitedBy: BudgetBound; remainingUnknown: boolean } {
  const cap: Limit = budget.maxCredits ?? UNLIMITED;
  if (budget.creditsLimit === 0) return { available: cap, limitedBy: cap === UNLIMITED ? 'unlimited' : 'max-credits', remainingUnknown: false };
  // Unknown remaining (quota service down): assume the daily limit; a 429 stops the run anyway.
  const remaining = budget.creditsRemaining ?? budget.creditsLimit;
  const quota = Math.max(0, remaining - budget.reserve);
  const available = lowestLimit(quota, cap) ?? quota;
  return { available, limitedBy: boundOf(cap, quota, remaining), remainingUnknown: budget.creditsRemaining === null };
}

/**
 * Which bound deferred how many of `wanted` files (newest first in the plan's order): beyond the
 * credits remaining today, the quota; between what the reserve keeps and that, --reserve-credits;
 * below that, --max-credits. So 49 deferred of which 5 fell in the reserve are 44 quota, 5 reserve.
 */
export function deferredByBound(budget: PlanBudget, available: Limit, wanted: number): NonNullable<PlanBudgetReport['deferredBy']> {
  if (available === UNLIMITED || wanted <= available) return {};
  // With no daily limit, neither the quota nor the reserve cuts anything: only --max-credits.
  const quotaBound = budget.creditsLimit > 0;
  const remaining = quotaBound ? (budget.creditsRemaining ?? budget.creditsLimit) : wanted;
  const afterReserve = quotaBound ? Math.max(0, remaining - budget.reserve) : wanted;
  const span = (from: number, to: number) => Math.max(0, Math.min(to, wanted) - Math.max(from, available));
  const counts = {
    quota: span(remaining, wanted),
    'reserve-credits': span(afterReserve, remaining),
    'max-credits': span(available, afterReserve),
  };
  return Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));
}

/** The bound of a quota-limited run: --max-credits when it is the lowest, --reserve-credits when the reserve cut the day's quota. */
function boundOf(cap: Limit, quota: number, remaining: number): BudgetBound {
  if (cap !== UNLIMITED && cap < quota) return 'max-credits';
  return quota < remaining ? 'reserve-credits' : 'quota';
}

function indexLedger(ledger: readonly LedgerEntry[]): Map<string, LedgerEntry[]> {
  const byFile = new Map<string, LedgerEntry[]>();
  for (const entry of ledger) {
    const key = fileKey(entry);
    const list = byFile.get(key);
    if (list === undefined) byFile.set(key, [entry]);
    else list.push(entry);
  }
  return byFile;
}

export type Decision = { kind: 'loaded' } | { kind: 'download' | 'reload'; planned: PlannedFile };

/**
 * What to do with a manifest row, by the ledger status of the same sha256, first match wins. A
 * failed load was verified and archived first (a paid file is never thrown away): it needs no new
 * credit while its archived copy is recorded.
 */
export const LEDGER_RULES: readonly { when: string; applies(same: LedgerEntry | undefined): boolean; action: Decision['kind'] }[] = [
  { when: 'the same version is loaded', applies: (same) => same?.status === 'loaded', action: 'loaded' },
  {
    when: 'the same version failed to load from an archived copy',
    applies: (same) => same?.status === 'failed_load' && same.archivePath !== null,
    action: 'reload',
  },
  { when: 'anything else (never seen, failed verification, no archived copy)', applies: () => true, action: 'download' },
];

/** What to do with one manifest row given the ledger versions of its file. */
export function decide(row: StoredManifestRow, file: FileKind, versions: readonly LedgerEntry[]): Decision {
  const same = versions.find((v) => v.sha256 === row.sha256);
  const action = LEDGER_RULES.find((rule) => rule.applies(same))!.action;
  if (action === 'loaded') return { kind: 'loaded' };
  return { kind: action, planned: plannedFileOf(row, file, versions, same) };
}

function plannedFileOf(row: StoredManifestRow, file: FileKind, versions: readonly LedgerEntry[], same: LedgerEntry | undefined): PlannedFile {
  const planned: PlannedFile = {
    exchange: row.exchange,
    symbol: row.symbol,
    sessionDate: row.session_date,
    file,
    sha256: row.sha256,
    bytes: row.bytes,
    rows: row.rows,
    schemaVersion: row.schema_version,
  };
  const older = versions
    .filter((v) => v.status === 'loaded' && v.sha256 !== row.sha256)
    .map((v) => v.sha256)
    .sort()[0];
  if (older !== undefined) planned.replaces = older;
  if (same?.status === 'failed_verify' || same?.status === 'failed_load') planned.retryOf = same.status;
  return planned;
}

export type RowVerdict = 'ignored' | 'outside' | 'selected';

/**
 * Which manifest rows the plan considers, first match wins: a row this client cannot read is
 * counted as ignored; a row outside the selection is left out silently.
 */
export const ROW_RULES: readonly { when: string; applies(row: StoredManifestRow, selection: PlanSelection): boolean; verdict: RowVerdict }[] = [
  {
    when: 'a file kind or date this client does not know',
    applies: (row) => fileKindOf(row) === undefined || !isIsoDate(row.session_date),
    verdict: 'ignored',
  },
  { when: 'a file kind not selected', applies: (row, selection) => !selection.files.includes(fileKindOf(row)!), verdict: 'outside' },
  { when: 'before --since', applies: (row, selection) => selection.since !== undefined && row.session_date < selection.since, verdict: 'outside' },
  { when: 'after --until', applies: (row, selection) => selection.until !== undefined && row.session_date > selection.until, verdict: 'outside' },
  { when: 'anything else', applies: () => true, verdict: 'selected' },
];

export function classifyRow(row: StoredManifestRow, selection: PlanSelection): RowVerdict {
  return ROW_RULES.find((rule) => rule.applies(row, selection))!.verdict;
}

function fileKindOf(row: StoredManifestRow): FileKind | undefined {
  return FILE_KINDS.find((kind) => kind === row.file);
}

function planOrder(order: Order): (a: PlannedFile, b: PlannedFile) => number {
  const direction = order === 'newest' ? -1 : 1;
  return (a, b) =>
    direction * compareText(a.sessionDate, b.sessionDate) ||
    compareText(a.exchange, b.exchange) ||
    compareText(a.symbol, b.symbol) ||
    FILE_KINDS.indexOf(a.file) - FILE_KINDS.indexOf(b.file);
}

function emptyPairPlan(pair: Pair): PairPlan {
  return { ...pair, selected: 0, alreadyLoaded: 0, toDownload: 0, toReload: 0, deferred: 0, rebuilt: 0 };
}

/** The manifest rows sorted into what the plan does with them, counted per pair as they go. */
interface Sorted {
  candidates: PlannedFile[];
  reloads: PlannedFile[];
  alreadyLoaded: number;
  ignoredRows: number;
}

function countLoadedByPair(pairs: Map<string, PairPlan>, loadedByPair: ReadonlyMap<string, number>, sorted: Sorted): void {
  for (const [key, count] of loadedByPair) {
    const pair = pairs.get(key);
    if (pair === undefined) continue;
    pair.selected += count;
    pair.alreadyLoaded += count;
    sorted.alreadyLoaded += count;
  }
}

function sortRows(input: PlanInput, pairs: Map<string, PairPlan>, sorted: Sorted): void {
  const ledger = indexLedger(input.ledger);
  const seen = new Set<string>();
  for (const row of input.manifest) {
    const pair = pairs.get(pairKey(row));
    if (pair === undefined) continue;
    const verdict = classifyRow(row, input.selection);
    if (verdict === 'ignored') sorted.ignoredRows++;
    if (verdict !== 'selected') continue;
    const file = fileKindOf(row)!;
    const key = fileKey({ exchange: row.exchange, symbol: row.symbol, sessionDate: row.session_date, file });
    if (seen.has(key)) continue; // a duplicated manifest row: the first one wins
    seen.add(key);
    pair.selected++;
    const decision = decide(row, file, ledger.get(key) ?? []);
    if (decision.kind === 'loaded') {
      sorted.alreadyLoaded++;
      pair.alreadyLoaded++;
    } else {
      (decision.kind === 'reload' ? sorted.reloads : sorted.candidates).push(decision.planned);
    }
  }
}

function countPerPair(pairs: Map<string, PairPlan>, files: PlannedFile[], field: 'toDownload' | 'toReload' | 'deferred'): void {
  for (const file of files) {
    const pair = pairs.get(pairKey(file));
    if (pair === undefined) continue;
    pair[field]++;
    if (file.replaces !== undefined && field !== 'toReload') pair.rebuilt++;
  }
}

/** The versions whose archived copy the caller checks (candidates and reloads) before planning. */
export function filesToCheck(input: PlanInput): PlannedFile[] {
  const pairs = new Map(selectPairs(input.coverage, input.selection).map((p) => [pairKey(p), emptyPairPlan(p)]));
  const sorted: Sorted = { candidates: [], reloads: [], alreadyLoaded: 0, ignoredRows: 0 };
  sortRows(input, pairs, sorted);
  return [...sorted.candidates, ...sorted.reloads];
}

/**
 * Where the archive moves a file: a candidate whose copy is intact is reloaded for free, a reload
 * whose copy is not is a candidate again (a credit). Without archive facts the ledger is trusted.
 */
function applyArchive(sorted: Sorted, archived: ReadonlySet<string> | undefined): { candidates: PlannedFile[]; reloads: PlannedFile[]; broken: PlannedFile[] } {
  if (archived === undefined) return { candidates: sorted.candidates, reloads: sorted.reloads, broken: [] };
  const intact = (file: PlannedFile) => archived.has(fileVersionKey(file));
  const broken = sorted.reloads.filter((file) => !intact(file));
  return {
    candidates: [...sorted.candidates.filter((file) => !intact(file)), ...broken],
    reloads: [...sorted.reloads.filter(intact), ...sorted.candidates.filter(intact)],
    broken,
  };
}

export function planSync(input: PlanInput): Plan {
  const selected = selectCoverage(input.coverage, input.selection);
  const pairs = new Map(selected.pairs.map((p) => [pairKey(p), emptyPairPlan(p)]));
  const sorted: Sorted = { candidates: [], reloads: [], alreadyLoaded: 0, ignoredRows: 0 };
  countLoadedByPair(pairs, input.loadedByPair ?? new Map(), sorted);
  sortRows(input, pairs, sorted);
  const { candidates, reloads, broken } = applyArchive(sorted, input.archived);

  // Every number the plan prints is cut here, once: what sync downloads is exactly toDownload.
  const compare = planOrder(input.order);
  candidates.sort(compare);
  reloads.sort(compare);
  // One credit a file, taken from the run's meter in the plan's order: what does not fit is deferred.
  const budget = creditBudget(input.budget);
  const meter = new CreditMeter(budget.available);
  const toDownload = candidates.filter(() => meter.take());
  const deferred = candidates.slice(toDownload.length);
  countPerPair(pairs, toDownload, 'toDownload');
  countPerPair(pairs, reloads, 'toReload');
  countPerPair(pairs, deferred, 'deferred');

  return {
    toDownload,
    toReload: reloads,
    deferred,
    alreadyLoaded: sorted.alreadyLoaded,
    ignoredRows: sorted.ignoredRows,
    brokenReloads: broken,
    budget: {
      available: budget.available,
      used: toDownload.length,
      limitedBy: budget.limitedBy,
      remainingUnknown: budget.remainingUnknown,
      deferredBy: deferredByBound(input.budget, budget.available, toDownload.length + deferred.length),
    },
    pairs: [...pairs.values()],
    notBought: selected.notBought,
  };
}
