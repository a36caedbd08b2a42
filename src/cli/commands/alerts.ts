// `gexwh alerts`: the alert rules replayed over the warehouse's history: the events they would have
// fired for the captures of --from..--to, each the same JSON a run sends to --alert-url, so a rule is
// tried on the past before it wakes anyone. Read through the sandboxed reader, as query and levels.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { NoWarehouseError, UsageError } from '../../core/errors.js';
import { parseRules } from '../../alerts/rules.js';
import type { ReplayRequest } from '../../alerts/replay.js';
import { dateProblem } from '../../time/dates.js';
import { contextOf } from '../context.js';
import { withConfig } from '../option-use.js';

interface AlertsFlags {
  exchange?: string[];
  symbol?: string[];
  from?: string;
  to?: string;
  alertRules?: string[];
}

function sessionDate(value: string | undefined, option: string): string | undefined {
  if (value === undefined) return undefined;
  const problem = dateProblem(value);
  if (problem !== undefined) throw new UsageError(`${option}: ${problem}`);
  return value;
}

function replayRequest(flags: AlertsFlags): ReplayRequest {
  const from = sessionDate(flags.from, '--from');
  const to = sessionDate(flags.to, '--to');
  if (from !== undefined && to !== undefined && from > to)
    throw new UsageError(`--from ${from} is after --to ${to}: --from is the first session replayed; swap them`);
  return {
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
    ...(flags.exchange ? { exchanges: flags.exchange } : {}),
    ...(flags.symbol ? { symbols: flags.symbol } : {}),
    rules: parseRules(flags.alertRules),
  };
}

export function registerAlerts(program: Command): void {
  program
    .command('alerts')
    .description('replay the alert rules over the held history: the events they would have fired from --from to --to, as --alert-url receives them')
    .action(async (given: AlertsFlags, command: Command) => {
      const ctx = contextOf(command);
      const request = replayRequest(withConfig('alerts', given, ctx.settings.config));
      const { from, to } = request;
      // A read must not leave an empty warehouse behind a mistyped --db.
      if (!existsSync(resolve(ctx.settings.db))) throw new NoWarehouseError(ctx.settings.db, 'alerts');
      const [{ replayEvents }, { openReader }, { formatTable }] = await Promise.all([
        import('../../alerts/replay.js'),
        import('../../warehouse/index.js'),
        import('../output.js'),
      ]);
      const warehouse = await openReader(ctx.settings.db);
      let events: Awaited<ReturnType<typeof replayEvents>>;
      try {
        events = await replayEvents(warehouse.connection, request);
      } finally {
        warehouse.close();
      }
      const window = `${from ?? 'the first session'} to ${to ?? 'the last session'}`;
      ctx.out.result({ from: from ?? null, to: to ?? null, rules: request.rules, events }, () =>
        events.length === 0
          ? `no alert would have fired from ${window} (rules: ${request.rules.join(', ')})`
          : [
              `${events.length} alert(s) would have fired from ${window} (rules: ${request.rules.join(', ')}):`,
              formatTable(events.map((e) => ({ rule: e.rule, alert: e.message }))),
            ].join('\n'),
      );
    });
}
