// The chart's own options, and --tz, which chart shares with levels, report and query, declared as
// entries of the option table (options.ts spreads them in, in this order).
import { z } from 'zod';
import type { OptionSpec } from './option-spec.js';
import { DEFAULTS as CHART } from '../charts/request.js';
import { timeZoneOption } from './parse.js';
import { isTimeZone, TIME_ZONE_EXAMPLE } from '../time/zones.js';

export const CHART_OPTIONS: readonly OptionSpec[] = [
  {
    flags: '--max-staleness <duration>',
    description: 'profile, oi, term, with --at: ignore a capture older than this, e.g. 30m, 2h, 1d',
    default: 'no limit',
    commands: ['chart'],
  },
  {
    flags: '--expiration <TOTAL|date>',
    description: 'profile, oi: TOTAL (all expirations) or one expiration date YYYY-MM-DD',
    default: CHART.expiration,
    commands: ['chart'],
  },
  {
    flags: '--tz <zone>',
    description: 'show times in this zone (UTC or an IANA name, e.g. America/New_York); storage stays UTC',
    default: 'UTC',
    config: z.string().refine(isTimeZone, { message: `a time zone: UTC or an IANA name, e.g. ${TIME_ZONE_EXAMPLE}` }),
    configKey: 'timeZone',
    parse: timeZoneOption,
    commands: ['levels', 'chart', 'report', 'query'],
    uses: { query: { description: 'the table shows TIMESTAMPTZ values in this zone (UTC or an IANA name); csv, json, jsonl and --out stay UTC' } },
  },
  {
    flags: '--closes-only',
    description: 'levels, walls, netgex: leave out a session whose last capture is intraday (not a close)',
    commands: ['chart', 'report'],
    uses: { report: { description: 'leave out of the charts a session whose last capture is intraday (not a close)' } },
  },
  { flags: '--net', description: 'profile: one bar of net GEX per strike instead of call and put bars', commands: ['chart'] },
  {
    flags: '--from <date>',
    description: 'levels, walls, netgex: first session YYYY-MM-DD',
    default: '--sessions back from --to',
    commands: ['chart', 'alerts'],
    uses: { alerts: { description: 'first session date YYYY-MM-DD whose captures are replayed', default: 'the first held' } },
  },
  {
    flags: '--to <date>',
    description: 'levels, walls, netgex: last session YYYY-MM-DD',
    default: 'the latest held',
    commands: ['chart', 'alerts'],
    uses: { alerts: { description: 'last session date YYYY-MM-DD whose captures are replayed' } },
  },
  { flags: '--date <date>', description: 'intraday: the session drawn, YYYY-MM-DD', default: 'the latest session held', commands: ['chart'] },
];
