// `gexwh export`: the data and live tables as hive-partitioned Parquet (or CSV), incrementally, to a folder or s3://.
import type { Command } from 'commander';
import { contextOf } from '../context.js';
import { checkExportFlags, type ExportFlags } from '../export-flags.js';
import { formatTable, snakeKeys } from '../output.js';
import { formatCount } from '../summary.js';

export function registerExport(program: Command): void {
  program
    .command('export')
    .description('write the data and live tables as hive-partitioned Parquet (or CSV), incrementally, with views.sql and the runs')
    .action(async (flags: ExportFlags, command: Command) => {
      const ctx = contextOf(command);
      // Every given value is checked (an empty --since too), before any file is touched.
      const checked = checkExportFlags(flags);
      const [{ exportWarehouse }, { createTaskProgress }] = await Promise.all([import('../../export/export.js'), import('../progress.js')]);
      const progress = createTaskProgress(ctx, 'export');
      const result = await exportWarehouse({ dbPath: ctx.settings.db, ...checked, onProgress: progress.onProgress }).finally(() => progress.done());
      for (const warning of result.warnings) ctx.out.warn(warning);
      ctx.out.result(result, () =>
        [
          // The same names as the JSON keys, as every other table of the CLI.
          formatTable(snakeKeys(result.tables) as Record<string, unknown>[]),
          `export to ${result.outDir} (${result.format}): ${result.partitionsWritten} partition(s) written, ${result.partitionsSkipped} unchanged, ${result.partitionsRemoved} removed, ${formatCount(result.rowsWritten)} rows written; views.sql and _gexwh_export.json beside them.`,
        ].join('\n'),
      );
    });
}
