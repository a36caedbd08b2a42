// `gexwh levels`: where each pair stands now (or at --at): the capture (a newer live snapshot of
// `gexwh capture` included, typed live), spot, flip and the distance to
// it, regime, net GEX, the API's walls and the nearest walls within --range, the 1d and 7d changes
// and the 0DTE share of gross GEX. Read through the same sandboxed reader as chart, report and query.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { NoWarehouseError } from '../../core/errors.js';
import { parseAt, parseRange } from '../../charts/request.js';
import { contextOf } from '../context.js';
import { withConfig } from '../option-use.js';

interface LevelsFlags {
  exchange?: string[];
  symbol?: string[];
  at?: string;
  range?: string;
  tz?: string;
}

export function registerLevels(program: Command): void {
  program
    .command('levels')
    .description(
      'one line per pair: the latest capture (or the last at or before --at; a newer live snapshot of gexwh capture, typed live), spot, flip and % to it, regime, net GEX, the API walls and the nearest walls, 1d/7d changes, 0DTE share',
    )
    .action(async (flags: LevelsFlags, command: Command) => {
      const ctx = contextOf(command);
      const zone = withConfig('levels', flags, ctx.settings.config).tz ?? 'UTC';
      const at = parseAt(flags.at);
      const request = {
        ...(flags.exchange ? { exchanges: flags.exchange } : {}),
        ...(flags.symbol ? { symbols: flags.symbol } : {}),
        ...(at ? { at } : {}),
        rangePct: parseRange(flags.range),
      };
      // A read must not leave an empty warehouse behind a mistyped --db.
      if (!existsSync(resolve(ctx.settings.db))) throw new NoWarehouseError(ctx.settings.db, 'levels');
      const [{ readDeskLevels }, { openReader }, { levelsColumns, levelsRow }, { formatInstant, formatTable }] = await Promise.all([
        import('../../desk/levels.js'),
        import('../../warehouse/index.js'),
        import('../levels-table.js'),
        import('../output.js'),
      ]);
      const warehouse = await openReader(ctx.settings.db);
      let lines: Awaited<ReturnType<typeof readDeskLevels>>;
      try {
        lines = await readDeskLevels(warehouse.connection, request);
      } finally {
        warehouse.close();
      }
      const asked = at ? ` at or before ${formatInstant(at)}` : '';
      ctx.out.result({ at: at?.toISOString() ?? null, range_pct: request.rangePct, time_zone: zone, pairs: lines }, () =>
        lines.length === 0
          ? `no capture${asked} of the pairs asked`
          : formatTable(
              lines.map((line) => levelsRow(line, zone)),
              levelsColumns(request.rangePct),
            ),
      );
    });
}
