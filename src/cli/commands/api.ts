// `gexwh api PATH`: one authenticated GET, its JSON printed.
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.js';
import { contextOf } from '../context.js';
import { escapeJson } from '../terminal.js';

export function registerApi(program: Command): void {
  program
    .command('api')
    .description('one authenticated GET against the API, prints the JSON (e.g. gexwh api /levels/deribit/BTC -q compare=1d)')
    .argument('<path>', 'API path, with or without /api/v1')
    .action(async (path: string, flags: { query?: string[] }, command: Command) => {
      const ctx = contextOf(command);
      const query: Record<string, string> = {};
      for (const pair of flags.query ?? []) {
        const at = pair.indexOf('=');
        if (at <= 0) throw new UsageError(`--query: expected key=value, got "${pair}"`);
        query[pair.slice(0, at)] = pair.slice(at + 1);
      }
      const { createClient } = await import('../api-client.js');
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
