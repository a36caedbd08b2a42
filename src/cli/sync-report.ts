// `sync --report FILE`: the report written once the sync has loaded what it could. The sync's data is
// committed by then, so a report that cannot be written is said (outcome "failed", the reason on
// stderr) and never changes the sync's own outcome or exit code.
import { UsageError, errorMessage } from '../core/errors.js';
import { DEFAULTS, parseLook } from '../charts/request.js';
import type { CommandContext } from './context.js';
import { withConfig } from './option-use.js';
import type { WrittenReport } from './report-file.js';
import { countOf, formatBytes } from './summary.js';

export type SyncReport = (WrittenReport & { outcome: 'written' }) | { out: string; outcome: 'failed'; error: string };

/** The report's file must be .html: checked before the sync spends anything. */
export function checkReportFile(out: string | undefined): void {
  if (out !== undefined && !/\.html?$/i.test(out)) throw new UsageError(`--report ${out}: the report is HTML; name the file .html or .htm`);
}

/** Writes the report of every pair held, as `gexwh report` does with its defaults and the config's timeZone; none asked, none written. */
export async function reportAfterSync(ctx: CommandContext, out: string | undefined): Promise<SyncReport | undefined> {
  if (out === undefined) return undefined;
  try {
    const { writeReport } = await import('./report-file.js');
    const noFlags: { tz?: string } = {};
    const timeZone = withConfig('report', noFlags, ctx.settings.config).tz ?? 'UTC';
    const written = await writeReport(ctx, out, { sessions: DEFAULTS.sessions, rangePct: DEFAULTS.rangePct }, { ...parseLook({}), timeZone });
    return { ...written, outcome: 'written' };
  } catch (error) {
    const reason = errorMessage(error);
    ctx.out.warn(`sync --report: the report was not written to ${out}: ${reason} (the sync's data is loaded; gexwh report --out ${out} tries again)`);
    return { out, outcome: 'failed', error: reason };
  }
}

/** The summary's line about the report. */
export function reportLine(report: SyncReport): string {
  return report.outcome === 'written'
    ? `report of ${countOf(report.pairs, 'pair')} → ${report.out} (${formatBytes(report.bytes)})`
    : `report NOT written to ${report.out}: ${report.error}`;
}
