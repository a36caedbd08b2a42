// The one-paragraph account of a sync or plan run (the same facts as --json).
import type { SyncSummary } from '../sync/run.js';
import { describeNotBought, describeSpread } from '../sync/venue-rule.js';
import { formatBytes } from '../core/sizes.js';
import { formatInstant, formatTable } from './output.js';

export { formatBytes };

// Thousands separators by hand: the first toLocaleString of a process loads ICU's number formats,
// a visible share of a no-op sync.
export function formatCount(value: number): string {
  return Number.isInteger(value) ? String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',') : value.toLocaleString('en-US');
}
const n = formatCount;

/** `1 request`, `2 requests`, `1,024 credits`: a count with its noun in the number it takes. */
export function countOf(value: number, noun: string, plural = `${noun}s`): string {
  return `${formatCount(value)} ${value === 1 ? noun : plural}`;
}

export function formatSummary(s: SyncSummary): string {
  const lines: string[] = [];
  if (s.dryRun) {
    lines.push(planTable(s));
    lines.push('');
    lines.push(
      `plan: ${n(s.plan.toDownload)} file(s) to download (${n(s.plan.toDownload)} credit(s)), ${n(s.plan.toReload)} to load from the archive (free), ` +
        `${n(s.plan.deferred)} deferred${planDeferralNote(s)}, ${n(s.plan.alreadyLoaded)} already loaded; ` +
        `credits available: ${s.plan.creditsAvailable === null ? 'unlimited' : n(s.plan.creditsAvailable)} (bound: ${s.plan.limitedBy}); ` +
        `manifest listing cost ${n(s.requestsSpent)} request(s)${resetNote(s)}.`,
    );
  } else {
    const failed = s.filesFailed.length;
    lines.push(
      `sync ${s.outcome}: ${n(s.filesLoaded)} file(s) loaded (${n(s.rowsLoaded)} rows, ${formatBytes(s.bytesDownloaded)} downloaded), ` +
        `${n(failed)} failed, ${n(s.filesDeferred)} deferred${s.filesDeferred > 0 ? deferralNote(s) : ''}; ` +
        `spent ${n(s.creditsSpent)} credit(s)${s.linksLost > 0 ? ` (and up to ${n(s.linksLost)} more: link answer(s) lost after the server may have charged them)` : ''} and ${n(s.requestsSpent)} request(s); ` +
        `credits left: ${s.creditsRemaining === null ? 'unlimited or unknown' : n(s.creditsRemaining)}.`,
    );
    for (const f of s.filesFailed) lines.push(`  ${f.status}: ${f.exchange}/${f.symbol} ${f.sessionDate} ${f.file}: ${f.error}`);
  }
  lines.push(...venueNotes(s));
  if (s.levelsFilled) {
    const f = s.levelsFilled;
    lines.push(
      `  levels fill: ${n(f.rows)} row(s) from ${n(f.requests)} request(s) over ${n(f.sessions)} session(s)` +
        (f.stoppedBy ? `; stopped early (${f.stoppedBy.replace('_', ' ')}), the next run continues` : ''),
    );
  }
  for (const warning of s.warnings) lines.push(`  note: ${warning}`);
  return lines.join('\n');
}

/** The symbols the venue rule left out, and those paid for on several venues. */
function venueNotes(s: SyncSummary): string[] {
  return [...s.notBought.map((item) => `  note: ${describeNotBought(item)}`), ...s.venueSpread.map((spread) => `  note: ${describeSpread(spread)}`)];
}

/** A plan's deferred files: by cause, else by the bound that set the credits available. */
function planDeferralNote(s: SyncSummary): string {
  if (s.plan.deferred === 0) return '';
  return deferralNote(s) || ` ${boundNote(s.plan.limitedBy, s)}`;
}

/** What deferred the files, each cause said with what the user can do about it. */
function deferralNote(s: SyncSummary): string {
  const causes = s.deferredBy ?? [];
  if (causes.length === 0) return '';
  if (causes.length === 1) return ` ${boundNote(causes[0]!, s)}`;
  // Several causes: each with its own count ("44 until the credits reset ...; 5 by --reserve-credits ...").
  return `: ${causes.map((cause) => `${n(s.deferredCounts?.[cause] ?? 0)} ${boundNote(cause, s)}`).join('; ')}`;
}

const CAUSE_NOTES: Record<string, (s: SyncSummary) => string> = {
  'archive-write': () => 'to the next run (the archive could not be written)',
  interrupted: () => 'to the next run (interrupted)',
  'rate-limit': (s) => `until the credits reset${resetAt(s)} (the API answered 429: today's file credits are used up)`,
  'max-credits': (s) => `by --max-credits (${n(s.plan.creditsAvailable ?? 0)} credit(s) this run); the next run goes on`,
  'reserve-credits': (s) => `by --reserve-credits (the credits it keeps stay unspent until the reset${resetAt(s)})`,
  quota: (s) => `until the credits reset${resetAt(s)} (today's file credits are used up)`,
};

function boundNote(cause: string, s: SyncSummary): string {
  return CAUSE_NOTES[cause]?.(s) ?? 'by the budget';
}

function resetAt(s: SyncSummary): string {
  return s.creditsReset ? ` at ${formatInstant(s.creditsReset)}` : '';
}

function resetNote(s: SyncSummary): string {
  return s.creditsReset ? ` (reset at ${formatInstant(s.creditsReset)})` : '';
}

function planTable(s: SyncSummary): string {
  const rows = s.plan.pairs.map((p) => ({
    exchange: p.exchange,
    symbol: p.symbol,
    selected: p.selected,
    loaded: p.alreadyLoaded,
    download: p.toDownload,
    reload: p.toReload,
    deferred: p.deferred,
    rebuilt: p.rebuilt,
  }));
  return formatTable(rows);
}
