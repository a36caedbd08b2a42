// `gexwh me`, `gexwh coverage` and `gexwh api PATH`: the remote side as tables or JSON.
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.js';
import { createClient } from '../api-client.js';
import { contextOf } from '../context.js';
import { formatTable } from '../output.js';
import { escapeJson } from '../terminal.js';

export function registerRemote(program: Command): void {
  program
    .command('me')
    .description('your plan, markets and quotas (free: costs no request)')
    .action(async (_flags: object, command: Command) => {
      const ctx = contextOf(command);
      const client = createClient(ctx);
      try {
        const { data } = await client.me();
        const quota = (name: string, q: { limit: number; used: number | null; remaining: number | null; reset: string }) => ({
          bucket: name,
          limit: q.limit === 0 ? 'unlimited' : q.limit,
          used: q.used,
          remaining: q.remaining,
          reset: q.reset,
        });
        ctx.out.result(data, () =>
          [
            `tier: ${data.tier}   markets: ${data.markets.join(', ')}   api_access: ${data.api_access}`,
            formatTable([quota('requests', data.quota.requests), quota('history_files', data.quota.history_files)]),
          ].join('\n'),
        );
      } finally {
        await client.close();
      }
    });

  program
    .command('coverage')
    .description('remote history coverage per (exchange, symbol) (free)')
    .action(async (_flags: object, command: Command) => {
      const ctx = contextOf(command);
      const client = createClient(ctx);
      try {
        const { data, rejected } = await client.coverage();
        // Rows off the spec are left out of the table, never silently: sync skips them the same way.
        for (const row of rejected) ctx.out.warn(`coverage row ${row.exchange ?? '?'}/${row.symbol ?? '?'} left out: ${row.reason}`);
        ctx.out.result(data, () => formatTable(data as unknown as Record<string, unknown>[], ['exchange', 'symbol', 'first_ts', 'last_ts', 'sessions', 'files_first_date', 'files_last_date']));
      } finally {
        await client.close();
      }
    });

  program
    .command('api')
    .description('one authenticated GET against the API, prints the JSON (e.g. gexwh api /levels/deribit/BTC -q compare=1d)')
    .argument('<path>', 'API path, with or without /api/v1')
    .option('-q, --query <key=value...>', 'query parameters')
    .action(async (path: string, flags: { query?: string[] }, command: Command) => {
      const ctx = contextOf(command);
      const query: Record<string, string> = {};
      for (const pair of flags.query ?? []) {
        const at = pair.indexOf('=');
        if (at <= 0) throw new UsageError(`--query: expected key=value, got "${pair}"`);
        query[pair.slice(0, at)] = pair.slice(at + 1);
      }
      const client = createClient(ctx);
      try {
        const response = await client.get(path, query);
        // The body is the client's, already redacted of the key; escaped like every server text shown.
        process.stdout.write(`${escapeJson(JSON.stringify(response.body, null, 2))}\n`);
      } finally {
        await client.close();
      }
    });
}
