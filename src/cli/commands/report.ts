// `gexwh report --out report.html`: one self-contained HTML page of the warehouse (coverage, runs,
// contents, and per pair the latest levels, the profile with a slider through the closes, levels,
// walls, net GEX, and the term structure where captured).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { NoWarehouseError, UsageError } from '../../core/errors.js';
import { DEFAULTS, parseLook, parseRange } from '../../charts/request.js';
import { contextOf } from '../context.js';
import { withConfig } from '../option-use.js';

interface ReportFlags {
  out: string;
  exchange?: string[];
  symbol?: string[];
  sessions?: number;
  range?: string;
  width?: string;
  height?: string;
  theme?: string;
  closesOnly?: boolean;
}

export function registerReport(program: Command): void {
  program
    .command('report')
    .description(
      'write one self-contained HTML page: coverage, gaps, last runs, contents, and per pair the latest levels, the profile, levels, walls and net GEX charts, and the term structure where captured',
    )
    .action(async (given: ReportFlags, command: Command) => {
      const ctx = contextOf(command);
      // The one selection: flags, else the config file's exchange and symbol, else every pair with levels.
      const flags = withConfig('report', given, ctx.settings.config);
      if (!/\.html?$/i.test(flags.out)) throw new UsageError(`--out ${flags.out}: the report is HTML; name the file .html`);
      const look = parseLook(flags);
      const request = {
        ...(flags.exchange ? { exchanges: flags.exchange } : {}),
        ...(flags.symbol ? { symbols: flags.symbol } : {}),
        sessions: flags.sessions ?? DEFAULTS.sessions,
        rangePct: parseRange(flags.range),
        closesOnly: flags.closesOnly === true,
      };
      if (!existsSync(resolve(ctx.settings.db))) throw new NoWarehouseError(ctx.settings.db, 'report');
      const [{ buildReport }, { writeWhole }, { openReader }, { createTaskProgress }, { readOnRecord, creditsOnRecord, filesWaiting }] = await Promise.all([
        import('../../charts/index.js'),
        import('../../charts/write.js'),
        import('../../warehouse/index.js'),
        import('../progress.js'),
        import('../../journal/on-record.js'),
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
      writeWhole(flags.out, report.html);
      const bytes = Buffer.byteLength(report.html);
      ctx.out.result(
        { out: flags.out, bytes, pairs: report.pairs, charts: report.charts },
        () => `report of ${report.pairs} pair(s), ${report.charts} charts → ${flags.out} (${bytes} bytes)`,
      );
    });
}
