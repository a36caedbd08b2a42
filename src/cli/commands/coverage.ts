// `gexwh coverage`: the remote history coverage per (exchange, symbol) (free).
import type { Command } from 'commander';
import { contextOf } from '../context.js';
import { formatTable } from '../output.js';

export function registerCoverage(program: Command): void {
  program
    .command('coverage')
    .description('remote history coverage per (exchange, symbol) (free)')
    .action(async (_flags: object, command: Command) => {
      const ctx = contextOf(command);
      const { createClient } = await import('../api-client.js');
      const client = createClient(ctx);
      try {
        const { data, rejected } = await client.coverage();
        // Rows off the spec are left out of the table, never silently: sync skips them the same way.
        for (const row of rejected) ctx.out.warn(`coverage row ${row.exchange ?? '?'}/${row.symbol ?? '?'} left out: ${row.reason}`);
        ctx.out.result(data, () =>
          formatTable(data as unknown as Record<string, unknown>[], [
            'exchange',
            'symbol',
            'first_ts',
            'last_ts',
            'sessions',
            'files_first_date',
            'files_last_date',
          ]),
        );
      } finally {
        await client.close();
      }
    });
}
