// `gexwh me`: the key's plan, markets and quotas (free).
import type { Command } from 'commander';
import { contextOf } from '../context.js';
import { formatInstant, formatTable } from '../output.js';

export function registerMe(program: Command): void {
  program
    .command('me')
    .description('your plan, markets and quotas (free: costs no request)')
    .action(async (_flags: object, command: Command) => {
      const ctx = contextOf(command);
      const { createClient } = await import('../api-client.js');
      const client = createClient(ctx);
      try {
        const { data } = await client.me();
        const quota = (name: string, q: { limit: number; used: number | null; remaining: number | null; reset: string }) => ({
          bucket: name,
          limit: q.limit === 0 ? 'unlimited' : q.limit,
          used: q.used,
          remaining: q.remaining,
          reset: formatInstant(q.reset),
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
}
