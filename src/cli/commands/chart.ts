// `gexwh chart <kind>`: one picture of the warehouse, SVG or PNG, drawn from the same views users query.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from '../../core/errors.js';
import { DEFAULTS, formatOf, parseAt, parseDate, parseExpiration, parseKind, parseLook, parseRange, parseStaleness } from '../../charts/request.js';
import { CHART_KINDS } from '../../charts/types.js';
import { contextOf } from '../context.js';
import { integerOption } from '../parse.js';

interface ChartFlags {
  exchange?: string;
  symbol?: string;
  out?: string;
  at?: string;
  maxStaleness?: string;
  expiration?: string;
  range?: string;
  net?: boolean;
  from?: string;
  to?: string;
  sessions?: number;
  width?: string;
  height?: string;
  theme?: string;
}

export function registerChart(program: Command): void {
  program
    .command('chart')
    .description(`draw one chart of the warehouse to SVG or PNG: ${CHART_KINDS.join(', ')}`)
    .argument(
      '<kind>',
      'profile (GEX by strike at a moment, cumulative net GEX), oi (open interest by strike), levels (spot, flip, walls per session), walls (largest GEX strikes per session), netgex (net GEX and spot per session), term (captured term structure)',
    )
    .requiredOption('--exchange <venue>', 'history venue, e.g. deribit, tradfi')
    .requiredOption('--symbol <symbol>', 'symbol, e.g. BTC, SPY')
    .requiredOption('--out <file>', 'output file; .svg or .png says the format')
    .option('--at <instant>', 'profile, oi, term: the last capture at or before this ISO 8601 instant, never after (default: the latest capture)')
    .option('--max-staleness <duration>', 'profile, oi, term, with --at: ignore a capture older than this, e.g. 30m, 2h, 1d (default: no limit)')
    .option('--expiration <TOTAL|date>', 'profile, oi: TOTAL (all expirations) or one expiration date YYYY-MM-DD (default TOTAL)')
    .option('--range <pct>', `profile, oi: strikes within this percent of spot (default ${DEFAULTS.rangePct}%)`)
    .option('--net', 'profile: one bar of net GEX per strike instead of call and put bars')
    .option('--from <date>', 'levels, walls, netgex: first session YYYY-MM-DD (default: --sessions back from --to)')
    .option('--to <date>', 'levels, walls, netgex: last session YYYY-MM-DD (default: the latest held)')
    .option('--sessions <n>', `levels, walls, netgex: sessions to draw when --from is not given (default ${DEFAULTS.sessions})`, integerOption(1, 10000))
    .option('--width <px>', `image width in pixels (default ${DEFAULTS.width})`)
    .option('--height <px>', `image height in pixels (default ${DEFAULTS.height})`)
    .option('--theme <theme>', `light or dark (default ${DEFAULTS.theme})`)
    .action(async (kindText: string, flags: ChartFlags, command: Command) => {
      const ctx = contextOf(command);
      const kind = parseKind(kindText);
      const out = flags.out as string;
      const format = formatOf(out);
      const look = parseLook(flags);
      const at = parseAt(flags.at);
      const maxStalenessSeconds = parseStaleness(flags.maxStaleness);
      if (maxStalenessSeconds !== undefined && at === undefined) throw new UsageError('--max-staleness needs --at (the latest capture is drawn whatever its age)');
      const request = {
        kind,
        pair: { exchange: flags.exchange as string, symbol: flags.symbol as string },
        moment: { ...(at ? { at } : {}), ...(maxStalenessSeconds === undefined ? {} : { maxStalenessSeconds }) },
        expiration: parseExpiration(flags.expiration),
        rangePct: parseRange(flags.range),
        net: flags.net === true,
        sessions: { ...optional('from', parseDate(flags.from, '--from')), ...optional('to', parseDate(flags.to, '--to')), sessions: flags.sessions ?? DEFAULTS.sessions },
        look,
      };
      // A chart reads a warehouse; it must not leave an empty one behind a mistyped --db.
      if (!existsSync(resolve(ctx.settings.db))) throw new UsageError(`chart: no warehouse at ${ctx.settings.db} (run gexwh sync first, or pass --db)`, { db: ctx.settings.db });
      const [{ buildChart, encodeChart }, { writeWhole }, { openReader }] = await Promise.all([import('../../charts/index.js'), import('../../charts/write.js'), import('../../warehouse/index.js')]);
      const warehouse = await openReader(ctx.settings.db);
      let bytes: Buffer;
      let caption: string;
      try {
        const chart = await buildChart(warehouse.connection, request);
        caption = chart.caption;
        bytes = encodeChart(chart.option, look, format);
      } finally {
        warehouse.close();
      }
      writeWhole(out, bytes);
      ctx.out.result({ kind, out, format, bytes: bytes.length, width: look.width, height: look.height, shows: caption }, () => `${kind} chart of ${request.pair.exchange} ${request.pair.symbol} (${caption}) → ${out} (${bytes.length} bytes)`);
    });
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}
