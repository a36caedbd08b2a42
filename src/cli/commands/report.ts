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
import { countOf, formatBytes } from '../summary.js';

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
  tz?: string;
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
      if (!/\.html?$/i.test(flags.out)) throw new UsageError(`--out ${flags.out}: the report is HTML; name the file .html or .htm`);
      const look = { ...parseLook(flags), timeZone: withConfig('report', flags, ctx.settings.config).tz ?? 'UTC' };
      const request = {
        ...(flags.exchange ? { exchanges: flags.exchange } : {}),
        ...(flags.symbol ? { symbols: flags.symbol } : {}),
        sessions: flags.sessions ?? DEFAULTS.sessions,
        rangePct: parseRange(flags.range),
        closesOnly: flags.closesOnly === true,
      };
      if (!existsSync(resolve(ctx.settings.db))) throw new NoWarehouseError(ctx.settings.db, 'report');
      const { writeReport } = await import('../report-file.js');
      const written = await writeReport(ctx, flags.out, request, look);
      ctx.out.result(
        written,
        () => `report of ${countOf(written.pairs, 'pair')}, ${countOf(written.charts, 'chart')} → ${written.out} (${formatBytes(written.bytes)})`,
      );
    });
}
