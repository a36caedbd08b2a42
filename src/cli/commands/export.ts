// `gexwh export`: the data tables as hive-partitioned Parquet (or CSV), incrementally.
import type { Command } from 'commander';
import { exportWarehouse } from '../../warehouse/index.js';
import { contextOf } from '../context.js';
import { checkExportFlags, type ExportFlags } from '../export-flags.js';
import { formatTable } from '../output.js';
import { listOption } from '../parse.js';

export function registerExport(program: Command): void {
  program
    .command('export')
    .description('write the data tables as hive-partitioned Parquet (or CSV), incrementally')
    .requiredOption('--out <dir>', 'output folder')
    .option('--format <format>', 'parquet or csv (default parquet)')
    .option('--table <list>', 'levels, strikes_total, strikes_by_expiry (default all three)', listOption)
    .option('--since <date>', 'first session date, YYYY-MM-DD')
    .option('--until <date>', 'last session date, YYYY-MM-DD')
    .option('--exchange <list>', 'history venues (repeatable, comma list)', listOption)
    .option('--symbol <list>', 'symbols (repeatable, comma list)', listOption)
    .option('--full', 'rewrite every selected partition, not only new or changed sessions')
    .action(async (flags: ExportFlags, command: Command) => {
      const ctx = contextOf(command);
      // Every given value is checked (an empty --since too), before any file is touched.
      const result = await exportWarehouse({ dbPath: ctx.settings.db, ...checkExportFlags(flags) });
      ctx.out.result(result, () =>
        [
          formatTable(result.tables as unknown as Record<string, unknown>[]),
          `export to ${result.outDir} (${result.format}): ${result.partitionsWritten} partition(s) written, ${result.partitionsSkipped} unchanged, ${result.partitionsRemoved} removed, ${result.rowsWritten} rows written.`,
        ].join('\n'),
      );
    });
}
