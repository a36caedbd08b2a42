// `gexwh chart <kind>`: one picture of the warehouse, SVG or PNG, drawn from the same views users query.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { NoWarehouseError, UsageError } from '../../core/errors.js';
import {
  DEFAULTS,
  formatOf,
  parseAt,
  parseDate,
  parseExpiration,
  parseKind,
  parseLook,
  parseRange,
  parseSessionRange,
  parseStaleness,
} from '../../charts/request.js';
import { CHART_KINDS, type ChartKind, type Look } from '../../charts/types.js';
import { contextOf } from '../context.js';
import { withConfig } from '../option-use.js';
import { formatBytes } from '../summary.js';

interface ChartFlags {
  exchange?: string[];
  symbol?: string[];
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
  closesOnly?: boolean;
  date?: string;
  tz?: string;
}

export function registerChart(program: Command): void {
  program
    .command('chart')
    .description(`draw one chart of the warehouse to SVG or PNG: ${CHART_KINDS.join(', ')}`)
    .argument(
      '<kind>',
      "profile (GEX by strike at a moment, cumulative net GEX), oi (open interest by strike), levels (spot, flip, walls per session), walls (largest GEX strikes per session), netgex (net GEX and spot per session), term (captured term structure), intraday (spot, flip, walls over one session's captures)",
    )
    .action(async (kindText: string, given: ChartFlags, command: Command) => {
      const ctx = contextOf(command);
      // The one selection: flags, else the config file's exchange and symbol (one each), else the symbol's venue held.
      const flags = withConfig('chart', given, ctx.settings.config);
      const kind = parseKind(kindText);
      const out = flags.out as string;
      const format = formatOf(out);
      const look = { ...parseLook(flags), timeZone: withConfig('chart', flags, ctx.settings.config).tz ?? 'UTC' };
      const request = chartRequestOf(kind, flags, look);
      // A chart reads a warehouse; it must not leave an empty one behind a mistyped --db.
      if (!existsSync(resolve(ctx.settings.db))) throw new NoWarehouseError(ctx.settings.db, 'chart');
      const [{ buildChart, encodeChart }, { writeWhole }, { openReader }, { chartVenue }] = await Promise.all([
        import('../../charts/index.js'),
        import('../../charts/write.js'),
        import('../../warehouse/index.js'),
        import('../chart-pair.js'),
      ]);
      const warehouse = await openReader(ctx.settings.db);
      let bytes: Buffer;
      let caption: string;
      try {
        if (request.pair.exchange === '') request.pair.exchange = await chartVenue(warehouse.connection, request.pair.symbol);
        const chart = await buildChart(warehouse.connection, request);
        caption = chart.caption;
        bytes = await encodeChart(chart.option, look, format);
      } finally {
        warehouse.close();
      }
      writeWhole(out, bytes);
      ctx.out.result(
        { kind, out, format, bytes: bytes.length, width: look.width, height: look.height, shows: caption },
        () => `${kind} chart of ${request.pair.exchange} ${request.pair.symbol} (${caption}) → ${out} (${formatBytes(bytes.length)})`,
      );
    });
}

/** The chart's request from its flags: each value parsed, and the options that do not go together refused. */
function chartRequestOf(kind: ChartKind, flags: ChartFlags, look: Look) {
  const date = parseDate(flags.date, '--date');
  if (date !== undefined && kind !== 'intraday') throw new UsageError(`--date is for chart intraday (the session drawn); ${kind} takes --at or --from/--to`);
  const at = parseAt(flags.at);
  const maxStalenessSeconds = parseStaleness(flags.maxStaleness);
  if (maxStalenessSeconds !== undefined && at === undefined) throw new UsageError('--max-staleness needs --at (the latest capture is drawn whatever its age)');
  return {
    kind,
    pair: { exchange: flags.exchange === undefined ? '' : oneOf(flags.exchange, '--exchange', 'venue'), symbol: oneOf(flags.symbol, '--symbol', 'symbol') },
    moment: { ...(at ? { at } : {}), ...(maxStalenessSeconds === undefined ? {} : { maxStalenessSeconds }) },
    expiration: parseExpiration(flags.expiration),
    rangePct: parseRange(flags.range),
    net: flags.net === true,
    sessions: {
      ...parseSessionRange(flags.from, flags.to),
      sessions: flags.sessions ?? DEFAULTS.sessions,
      closesOnly: flags.closesOnly === true,
    },
    ...(date === undefined ? {} : { date }),
    look,
  };
}

/** A chart draws one pair: its --exchange and --symbol take the shared list parser (or the config's list), and one name each. */
function oneOf(list: string[] | undefined, option: string, what: string): string {
  if (list === undefined || list.length !== 1) {
    const got = list?.length ? `"${list.join(', ')}"` : 'none (neither the flag nor the config file names one)';
    throw new UsageError(`${option}: a chart draws one pair; give one ${what}, got ${got}`);
  }
  return list[0]!;
}
