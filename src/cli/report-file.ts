// The report written to a file, for `gexwh report` and `gexwh sync --report`: read through the
// sandboxed reader, built, and written whole (temp + rename).
import type { ReportRequest } from '../charts/report-data.js';
import type { Look } from '../charts/types.js';
import type { CommandContext } from './context.js';

export interface WrittenReport {
  out: string;
  bytes: number;
  pairs: number;
  charts: number;
}

export async function writeReport(ctx: CommandContext, out: string, request: ReportRequest, look: Look): Promise<WrittenReport> {
  const [{ buildReport }, { writeWhole }, { openReader }, { createTaskProgress }, { readOnRecord, creditsOnRecord, filesWaiting }] = await Promise.all([
    import('../charts/index.js'),
    import('../charts/write.js'),
    import('../warehouse/index.js'),
    import('./progress.js'),
    import('../journal/on-record.js'),
  ]);
  // As status does: the journal's waiting files and a stopped run's log count, so right after an abort nothing paid is missing.
  const record = await readOnRecord(ctx.settings.archive);
  const notInRuns = creditsOnRecord({ allRuns: 0, sinceMidnightUtc: 0 }, record);
  const onRecord = { filesWaiting: filesWaiting(record), creditsNotInRuns: (notInRuns.allRuns ?? 0) + notInRuns.inJournal };
  const warehouse = await openReader(ctx.settings.db);
  const progress = createTaskProgress(ctx, 'report');
  let report: Awaited<ReturnType<typeof buildReport>>;
  try {
    report = await buildReport(warehouse.connection, { ...request, onRecord }, look, progress.onProgress);
  } finally {
    progress.done();
    warehouse.close();
  }
  writeWhole(out, report.html);
  return { out, bytes: Buffer.byteLength(report.html), pairs: report.pairs, charts: report.charts };
}
