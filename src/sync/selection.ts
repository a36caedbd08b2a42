// Parsing and validation of the user's sync selection (flags or config values). Pure: every problem
// is a UsageError naming the option and what is allowed, so the CLI exits 2 with a useful message.

import { UsageError } from '../core/errors.js';
import { SYMBOL_PATTERN, SYMBOL_RULE } from '../core/names.js';
import { closestNames } from '../core/known-names.js';
import { dateProblem } from '../time/dates.js';
import { FILE_KINDS, type FileKind } from '../core/file-kinds.js';
import { type Exchange, EXCHANGES } from '../core/pairs.js';
import { type ListInput, splitList } from '../core/lists.js';

export { EXCHANGES as HISTORY_EXCHANGES, FILE_KINDS, SYMBOL_PATTERN, type Exchange, type FileKind };

export const ORDERS = ['newest', 'oldest'] as const;
export type Order = (typeof ORDERS)[number];

export const DEFAULT_CONCURRENCY = 4;
export const MAX_CONCURRENCY = 32;

/** A count as it arrives: a flag's text or a config number. */
export type CountInput = string | number | undefined;

function allowedText(allowed: readonly string[]): string {
  return allowed.join(', ');
}

function requireNonEmpty(option: string, items: string[], allowed: string): void {
  if (items.length === 0) throw new UsageError(`${option}: empty list; allowed: ${allowed}`);
}

/** History venues, case-insensitive. Absent → undefined (every venue the caller's default covers). */
export function parseExchanges(input: ListInput, option = '--exchange'): Exchange[] | undefined {
  if (input === undefined) return undefined;
  const items = splitList(input).map((item) => item.toLowerCase());
  requireNonEmpty(option, items, allowedText(EXCHANGES));
  for (const item of items) {
    if (!(EXCHANGES as readonly string[]).includes(item)) {
      const close = closestNames(item, EXCHANGES);
      const hint = item === 'all' ? ' (omit the option to select every venue)' : close.length > 0 ? `; did you mean ${close.join(', ')}?` : '';
      throw new UsageError(`${option}: unknown history venue "${item}"; allowed: ${allowedText(EXCHANGES)}${hint}`);
    }
  }
  return [...new Set(items)] as Exchange[];
}

/** The word that buys every venue of a symbol: each venue's files cost their own credits. */
export const ALL_VENUES = 'all-venues';

/**
 * Which venues a sync buys: absent → each symbol's one default venue (as the API resolves `all`),
 * `all-venues` → every venue, else the named ones. Case-insensitive.
 */
export function parseSyncVenues(input: ListInput, option = '--exchange'): Pick<SyncSelection, 'exchanges' | 'allVenues'> {
  if (input === undefined) return {};
  const items = splitList(input).map((item) => item.toLowerCase());
  if (!items.includes(ALL_VENUES)) return { exchanges: parseSyncExchanges(items, option) };
  if (items.length > 1) throw new UsageError(`${option}: ${ALL_VENUES} buys every venue and takes no other name; got ${items.join(', ')}`);
  return { allVenues: true };
}

function parseSyncExchanges(items: string[], option: string): Exchange[] {
  requireNonEmpty(option, items, `${allowedText(EXCHANGES)} or ${ALL_VENUES}`);
  for (const item of items) {
    if (!(EXCHANGES as readonly string[]).includes(item)) {
      const close = closestNames(item, [...EXCHANGES, ALL_VENUES]);
      const hint =
        item === 'all'
          ? ` (without --exchange each symbol takes the venue the API's "all" gives: combined for a crypto coin, tradfi for a TradFi ticker; ${ALL_VENUES} buys every venue)`
          : close.length > 0
            ? `; did you mean ${close.join(', ')}?`
            : '';
      throw new UsageError(`${option}: unknown history venue "${item}"; allowed: ${allowedText(EXCHANGES)} or ${ALL_VENUES}${hint}`);
    }
  }
  return items as Exchange[];
}

/** Symbols, upper-cased. Absent → undefined (every symbol). */
export function parseSymbols(input: ListInput, option = '--symbol'): string[] | undefined {
  if (input === undefined) return undefined;
  const items = splitList(input).map((item) => item.toUpperCase());
  const allowed = `symbols of ${SYMBOL_RULE}`;
  requireNonEmpty(option, items, allowed);
  for (const item of items) {
    if (!SYMBOL_PATTERN.test(item)) {
      throw new UsageError(`${option}: bad symbol ${JSON.stringify(item)}; allowed: ${allowed}`);
    }
  }
  return [...new Set(items)];
}

/** File kinds, case-insensitive. Absent → all three. */
export function parseFiles(input: ListInput, option = '--files'): FileKind[] {
  if (input === undefined) return [...FILE_KINDS];
  const items = splitList(input).map((item) => item.toLowerCase());
  requireNonEmpty(option, items, allowedText(FILE_KINDS));
  for (const item of items) {
    if (!(FILE_KINDS as readonly string[]).includes(item)) {
      throw new UsageError(`${option}: unknown file kind ${JSON.stringify(item)}; allowed: ${allowedText(FILE_KINDS)}`);
    }
  }
  // Canonical order, so plans and messages do not depend on how the user typed the list.
  return FILE_KINDS.filter((kind) => items.includes(kind));
}

/** A real date `YYYY-MM-DD` in the years the API accepts. */
export function parseDate(input: string | undefined, option: string): string | undefined {
  if (input === undefined) return undefined;
  const value = input.trim();
  const problem = dateProblem(value, true);
  if (problem !== undefined) throw new UsageError(`${option}: ${problem}`);
  return value;
}

export interface DateRange {
  since?: string;
  until?: string;
}

/** `--since` and `--until`, both inclusive; since must not be after until. */
export function parseDateRange(since: string | undefined, until: string | undefined, labels: SelectionLabels = {}): DateRange {
  const range: DateRange = {};
  const sinceLabel = labels.since ?? '--since';
  const untilLabel = labels.until ?? '--until';
  const from = parseDate(since, sinceLabel);
  const to = parseDate(until, untilLabel);
  if (from !== undefined) range.since = from;
  if (to !== undefined) range.until = to;
  if (from !== undefined && to !== undefined && from > to) {
    throw new UsageError(`${sinceLabel} ${from} is after ${untilLabel} ${to}; since must be on or before until`);
  }
  return range;
}

export function parseOrder(input: string | undefined, option = '--order'): Order {
  if (input === undefined) return 'newest';
  const value = input.trim().toLowerCase();
  if (!(ORDERS as readonly string[]).includes(value)) {
    throw new UsageError(`${option}: unknown order ${JSON.stringify(input)}; allowed: ${allowedText(ORDERS)}`);
  }
  return value as Order;
}

/** A non-negative integer (flags give text: digits only, no sign, exponent or fraction). */
export function parseCount(input: CountInput, option: string): number | undefined {
  if (input === undefined) return undefined;
  const text = typeof input === 'number' ? String(input) : input.trim();
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value)) {
    throw new UsageError(`${option}: bad count ${JSON.stringify(String(input))}; expected a whole number 0 or more`);
  }
  return value;
}

export function parseConcurrency(input: CountInput, option = '--concurrency'): number {
  const value = parseCount(input, option);
  if (value === undefined) return DEFAULT_CONCURRENCY;
  if (value < 1 || value > MAX_CONCURRENCY) {
    throw new UsageError(`${option}: ${value} is out of range; allowed: 1 to ${MAX_CONCURRENCY}`);
  }
  return value;
}

/** The raw selection of a sync or plan run, after flag > env > config precedence was applied. */
export interface RawSyncSelection {
  exchange?: ListInput;
  symbol?: ListInput;
  files?: ListInput;
  since?: string;
  until?: string;
  order?: string;
  maxCredits?: CountInput;
  reserveCredits?: CountInput;
  maxRequests?: CountInput;
  concurrency?: CountInput;
}

export interface SyncSelection {
  /** undefined: each symbol's default venue (combined for a crypto coin, tradfi for a TradFi ticker), or every venue with allVenues. */
  exchanges?: Exchange[];
  /** `--exchange all-venues`: every venue of each symbol, each costing its own credits. */
  allVenues?: true;
  /** undefined: every symbol of the coverage. */
  symbols?: string[];
  files: FileKind[];
  since?: string;
  until?: string;
  order: Order;
  maxCredits?: number;
  /** Credits left unspent for the user's own use; 0 by default. */
  reserveCredits: number;
  maxRequests?: number;
  concurrency: number;
}

/**
 * How the user gave each value, by key (`--since`, or `"since" in config file PATH`): messages name
 * what to edit. A key without a label is named by its flag.
 */
export type SelectionLabels = Partial<Record<keyof RawSyncSelection, string>>;

/** Validates a whole selection; the first problem found is thrown as a UsageError naming where the value came from. */
export function parseSyncSelection(raw: RawSyncSelection, labels: SelectionLabels = {}): SyncSelection {
  const selection: SyncSelection = {
    files: parseFiles(raw.files, labels.files),
    order: parseOrder(raw.order, labels.order),
    reserveCredits: parseCount(raw.reserveCredits, labels.reserveCredits ?? '--reserve-credits') ?? 0,
    concurrency: parseConcurrency(raw.concurrency, labels.concurrency),
    ...parseDateRange(raw.since, raw.until, labels),
  };
  const venues = parseSyncVenues(raw.exchange, labels.exchange);
  const symbols = parseSymbols(raw.symbol, labels.symbol);
  const maxCredits = parseCount(raw.maxCredits, labels.maxCredits ?? '--max-credits');
  const maxRequests = parseCount(raw.maxRequests, labels.maxRequests ?? '--max-requests');
  Object.assign(selection, venues);
  if (symbols !== undefined) selection.symbols = symbols;
  if (maxCredits !== undefined) selection.maxCredits = maxCredits;
  if (maxRequests !== undefined) selection.maxRequests = maxRequests;
  return selection;
}
