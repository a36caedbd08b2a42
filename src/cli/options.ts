// Options declared once: each entry gives the flags, what the option means, its default as the help
// and the docs say it, the environment variable and config-file key that may hold it, its value
// parser, and the commands that take it (with their own words where the option means more there).
// Commander's registration, each command's --help, the config file's schema, the config fallback of
// each command and the option tables of the docs (checked by test/cli/options.test.ts) all read
// this table: adding an option is one entry.
import { z } from 'zod';
import type { OptionSpec } from './option-spec.js';
import { ALERT_OPTIONS } from './alert-options.js';
import { GLOBAL } from './global-options.js';
import { CHART_OPTIONS } from './chart-options.js';
import { DEFAULTS as CHART } from '../charts/request.js';
import { DEFAULT_WAIT_LOCK_SECONDS } from '../journal/wait-lock.js';
import { choiceOption, collectOption, integerOption, keyPrefixOption, listOption, secondsOption } from './parse.js';

export type { CommandOption, OptionSpec, OptionUse } from './option-spec.js';
export { API_TIMEOUT_LIMIT, API_TIMEOUT_SECONDS } from './global-options.js';

const listOfStrings = z.union([z.string(), z.array(z.string())]).transform((v) => (Array.isArray(v) ? v : [v]));
const count = z.int().nonnegative();
const SYNC = ['sync', 'plan'] as const;
/** A week: longer is surely a typo. */
const SECONDS_LIMIT = 604_800;
/** A day: the longest wait for a warehouse or a lock. */
const waitLock = integerOption(0, 86_400);

/** The loader's schema contracts (warehouse/schema-evolution.ts), spelled here so --help needs no warehouse code. */
const SCHEMA_CONTRACT_WORDS = ['evolve', 'freeze'] as const;

/** Rows the query table shows on a terminal unless --max-rows says otherwise. */
export const TERMINAL_MAX_ROWS = 1000;
/** The emulator's market when `gexwh emulate` is not told otherwise. */
export const EMULATE_DEFAULTS = { seed: 42, days: 30, expirations: 12, strikes: 120 } as const;
export const DEMO_DAYS = 5;

/** The options several commands share: one parser and one config rule each, the words by command. */
const SHARED: readonly OptionSpec[] = [
  {
    flags: '--exchange <list>',
    description:
      'history venues: bybit, deribit, okx, derive, combined, tradfi, or all-venues for every venue; each venue costs its own credits (repeatable, comma list)',
    default: 'config, else one venue per symbol as the API resolves all: combined for a crypto coin, tradfi for a TradFi ticker',
    config: listOfStrings,
    configCommands: [...SYNC, 'chart', 'report'],
    parse: listOption,
    commands: [...SYNC, 'status', 'export', 'capture', 'levels', 'chart', 'report', 'alerts'],
    uses: {
      alerts: { description: 'only these venues (repeatable, comma list)', default: 'every pair held' },
      status: { description: 'only these history venues (repeatable, comma list)', default: 'every pair held or in the selection (--all: every remote pair)' },
      levels: { description: 'only these venues (repeatable, comma list)', default: 'every pair with levels' },
      export: { description: 'history venues (repeatable, comma list)', default: 'every exchange' },
      capture: {
        description: 'current-data venues: bybit, deribit, okx, derive, binance, all, tradfi or a + subset (repeatable, comma list)',
        default: 'all for crypto, tradfi for TradFi',
      },
      chart: {
        flags: '--exchange <venue>',
        description: 'history venue, one, e.g. deribit, tradfi',
        default: "config (one venue), else the symbol's one venue held (combined for a crypto coin, tradfi for a TradFi ticker, else its only one)",
      },
      report: { description: 'only these venues (repeatable, comma list)', default: 'config, else every pair with levels' },
    },
  },
  {
    flags: '--symbol <list>',
    description: 'symbols, e.g. BTC,SPY (repeatable, comma list)',
    default: "config, else every symbol of your plan's markets",
    config: listOfStrings,
    configCommands: [...SYNC, 'capture', 'chart', 'report'],
    parse: listOption,
    commands: [...SYNC, 'status', 'export', 'capture', 'levels', 'chart', 'report', 'alerts'],
    uses: {
      alerts: { description: 'only these symbols (repeatable, comma list)', default: 'every pair held' },
      status: { description: 'only these symbols (repeatable, comma list)', default: 'every pair held or in the selection (--all: every remote pair)' },
      levels: { description: 'only these symbols (repeatable, comma list)', default: 'every pair with levels' },
      export: { description: 'symbols (repeatable, comma list)', default: 'every symbol' },
      capture: { default: 'none; required here or in the config file' },
      chart: { flags: '--symbol <symbol>', description: 'symbol, one, e.g. BTC, SPY', default: 'config (one symbol); required in one of them' },
      report: { description: 'only these symbols (repeatable, comma list)', default: 'config, else every pair with levels' },
    },
  },
  {
    flags: '--since <date>',
    description: 'first session date, YYYY-MM-DD (inclusive)',
    default: 'none',
    config: z.string(),
    configCommands: SYNC,
    commands: [...SYNC, 'export'],
  },
  {
    flags: '--until <date>',
    description: 'last session date, YYYY-MM-DD (inclusive)',
    default: 'none',
    config: z.string(),
    configCommands: SYNC,
    commands: [...SYNC, 'export'],
  },
  { flags: '--max-requests <n>', description: 'spend at most N quota requests in this run', default: 'none', config: count, commands: [...SYNC, 'capture'] },
  {
    flags: '--wait-lock <seconds>',
    description: 'wait up to N seconds for another process holding the warehouse',
    parse: waitLock,
    commands: [...SYNC, 'capture', 'load', 'rebuild', 'verify'],
    uses: {
      sync: {
        description: 'wait up to N seconds for the warehouse to load paid files when another process holds it, and for another running sync',
        default: `${DEFAULT_WAIT_LOCK_SECONDS} for the load, 0 for another sync`,
      },
      plan: {
        description: 'wait up to N seconds for the warehouse to load paid files when another process holds it, and for another running sync',
        default: `${DEFAULT_WAIT_LOCK_SECONDS} for the load, 0 for another sync`,
      },
      capture: { description: 'wait up to N seconds for another process holding the warehouse; the snapshots are journaled first', default: '60' },
      load: { description: 'wait up to N seconds for another process to let the warehouse go', default: String(DEFAULT_WAIT_LOCK_SECONDS) },
      rebuild: {
        description: 'wait up to N seconds for another process holding the warehouse, or for a running sync',
        default: `${DEFAULT_WAIT_LOCK_SECONDS} for a holder, 0 for a running sync`,
      },
      verify: { description: 'with --repair: wait up to N seconds for a running sync', default: '0' },
    },
  },
  {
    flags: '--report <file.html>',
    description: 'after the run, write the report (as gexwh report --out) to this file; a failure to write it is reported and never fails the sync',
    default: 'no report',
    commands: ['sync'],
  },
  {
    flags: '--dry-run',
    description: 'plan only: spend no credit (same as gexwh plan)',
    commands: ['sync', 'capture'],
    uses: { capture: { description: 'show the targets and their request cost; spend nothing' } },
  },
  {
    flags: '--out <path>',
    description: 'where the result goes',
    commands: ['query', 'export', 'chart', 'report', 'plan'],
    uses: {
      query: {
        flags: '--out <file>',
        description: 'write the result to FILE.csv, .json, .jsonl or .parquet (temp file, then rename) instead of printing it',
        default: 'print',
      },
      export: {
        flags: '--out <dir>',
        description: 'output folder, or s3://bucket/prefix (credentials from the AWS chain: env, profile, instance role)',
        required: true,
      },
      chart: { flags: '--out <file>', description: 'output file; .svg or .png says the format', required: true },
      report: { flags: '--out <file>', description: 'the HTML file to write (.html)', required: true },
      plan: { flags: '--out <file>', description: 'also write the plan as a reviewable JSON file that gexwh sync --plan carries out', default: 'none' },
    },
  },
  {
    flags: '--plan <file>',
    description: 'carry out a plan file written by gexwh plan --out: buy only its files; refused (exit 2) if the manifest or the archive moved since',
    default: 'none',
    commands: ['sync'],
  },
  {
    flags: '--format <format>',
    description: 'output format',
    commands: ['query', 'export'],
    uses: {
      query: { description: 'table, csv, json or jsonl', default: 'table (json with --json)' },
      export: { description: 'parquet or csv', default: 'parquet' },
    },
  },
  {
    flags: '--force',
    description: 'do it anyway',
    commands: ['query', 'rebuild', 'capture', 'export'],
    uses: {
      query: { description: 'with --out: replace an existing file' },
      export: { description: "write into a --out folder that holds files and is not a gexwh export (its files named like the export's are replaced)" },
      rebuild: {
        description: "replace a --db that is not a warehouse of gexwh (a text file, another program's database): it is kept aside as <db>.replaced-<UTC time>",
      },
      capture: { description: 'capture even when the market is closed or the 15-minute slot is already held (which costs requests for no new rows)' },
    },
  },
  {
    flags: '--days <n>',
    description: 'days of emulated history before now',
    parse: integerOption(1, 3650),
    commands: ['emulate', 'demo'],
    uses: { emulate: { default: String(EMULATE_DEFAULTS.days) }, demo: { default: String(DEMO_DAYS), parse: integerOption(1, 60) } },
  },
  {
    flags: '--now <iso>',
    description: 'the emulated clock at start, an ISO 8601 instant (it then ticks in real time)',
    default: 'the wall clock',
    commands: ['emulate', 'demo'],
    uses: { demo: { description: 'the emulated clock, an ISO 8601 instant, for a reproducible demo' } },
  },
  {
    flags: '--sessions <n>',
    description: `levels, walls, netgex: sessions to draw when --from is not given`,
    default: String(CHART.sessions),
    parse: integerOption(1, 10_000),
    commands: ['chart', 'report'],
    uses: { report: { description: 'sessions per pair: the window of the charts and of the profile slider', parse: integerOption(1, 366) } },
  },
  {
    flags: '--range <pct>',
    description: "profile, oi: strikes within this percent of spot (and the profile's nearest walls); levels: the nearest walls' range",
    default: `${CHART.rangePct}%`,
    commands: ['levels', 'chart', 'report'],
    uses: {
      report: { description: "profile strikes within this percent of spot, and the nearest walls' range" },
      levels: { description: 'nearest walls: strikes within this percent of spot' },
    },
  },
  { flags: '--width <px>', description: 'image width in pixels', default: String(CHART.width), commands: ['chart', 'report'] },
  { flags: '--height <px>', description: 'image height in pixels', default: String(CHART.height), commands: ['chart', 'report'] },
  { flags: '--theme <theme>', description: 'light or dark', default: CHART.theme, commands: ['chart', 'report'] },
];

/** The options of one command each. */
const OWN: readonly OptionSpec[] = [
  {
    flags: '--files <list>',
    description: 'file kinds: levels, strikes_total, strikes_by_expiry',
    default: 'all three',
    config: listOfStrings,
    parse: listOption,
    commands: SYNC,
  },
  { flags: '--max-credits <n>', description: 'spend at most N file credits in this run', default: 'none', config: count, commands: SYNC },
  { flags: '--reserve-credits <n>', description: 'leave N file credits of the day unspent', default: '0', config: count, commands: SYNC },
  { flags: '--concurrency <n>', description: 'parallel downloads, 1 to 32', default: '4', config: z.int().min(1).max(32), commands: SYNC },
  { flags: '--order <order>', description: 'newest or oldest sessions first', default: 'newest', config: z.enum(['newest', 'oldest']), commands: SYNC },
  {
    flags: '--fill-levels',
    description: 'fill levels of sessions without a levels file from /history/levels (request quota)',
    config: z.boolean(),
    commands: SYNC,
  },
  { flags: '--full-rescan', description: 're-list whole manifests to catch rebuilt files', commands: SYNC },

  { flags: '-q, --query <key=value...>', description: 'query parameters', default: 'none', commands: ['api'] },

  {
    flags: '--max-rows <n>',
    description: 'table: print at most N rows and say how many were left out; 0: all',
    default: `${TERMINAL_MAX_ROWS} on a terminal, else all`,
    parse: integerOption(0),
    commands: ['query'],
  },
  {
    flags: '--read-dir <folder>',
    description: 'also let the SQL read files under this folder, e.g. an export (repeatable; never writes)',
    default: 'none: only the warehouse',
    parse: collectOption,
    commands: ['query'],
  },
  {
    flags: '--timeout <seconds>',
    description: 'cancel the statement after this many seconds (exit 124); 0: no limit',
    default: 'none',
    config: z.number().nonnegative().max(SECONDS_LIMIT),
    configKey: 'queryTimeout',
    parse: secondsOption(SECONDS_LIMIT),
    commands: ['query'],
  },

  {
    flags: '--table <list>',
    description: 'levels, strikes_total, strikes_by_expiry, live_levels, term_structure, live_strikes',
    default: 'all',
    parse: listOption,
    commands: ['export'],
  },
  { flags: '--full', description: 'rewrite every selected partition, not only new or changed sessions', commands: ['export'] },
  {
    flags: '--s3-endpoint <url>',
    description: 'an S3-compatible endpoint for an s3:// --out (MinIO, R2, Ceph), e.g. http://localhost:9000',
    default: 'AWS',
    commands: ['export'],
  },
  {
    flags: '--s3-force-path-style',
    description: 'address the bucket in the URL path (http://host/bucket/key), as most S3-compatible stores need',
    commands: ['export'],
  },

  { flags: '--repair', description: 'reload files whose archive copy is intact', commands: ['verify'] },

  {
    flags: '--all',
    description: 'every pair of the remote coverage, not only those held or in the selection (the pairs sync buys)',
    commands: ['status'],
  },

  { flags: '--by-strike', description: 'also capture /gex/by-strike-enhanced for every expiration (one request each)', commands: ['capture'] },
  {
    flags: '--keep-days <n>',
    description: 'delete journaled snapshots older than N days once loaded',
    default: 'keep them, so rebuild can recreate the live tables',
    parse: integerOption(1, 100_000),
    commands: ['capture'],
  },

  {
    flags: '--at <instant>',
    description: 'profile, oi, term: the last capture at or before this ISO 8601 instant, never after',
    default: 'the latest capture',
    commands: ['levels', 'chart'],
    uses: { levels: { description: 'each pair as of its last capture at or before this ISO 8601 instant, never after' } },
  },
  ...CHART_OPTIONS,

  { flags: '--port <n>', description: 'API port', default: 'any free port', parse: integerOption(0, 65535), commands: ['emulate'] },
  {
    flags: '--storage-port <n>',
    description: 'storage (presigned link) port',
    default: 'any free port',
    parse: integerOption(0, 65535),
    commands: ['emulate'],
  },
  { flags: '--seed <n>', description: 'seed of the synthetic market', default: String(EMULATE_DEFAULTS.seed), parse: integerOption(0), commands: ['emulate'] },
  { flags: '--symbols <list>', description: 'symbols to serve, comma list', default: 'BTC,ETH,SOL,SPY,QQQ', parse: listOption, commands: ['emulate'] },
  {
    flags: '--expirations <n>',
    description: 'expirations per chain',
    default: String(EMULATE_DEFAULTS.expirations),
    parse: integerOption(1, 60),
    commands: ['emulate'],
  },
  { flags: '--strikes <n>', description: 'strikes per chain', default: String(EMULATE_DEFAULTS.strikes), parse: integerOption(3, 1000), commands: ['emulate'] },
  {
    flags: '--layout <name>',
    description:
      "the daily files' columns: design, lean (the grain and a few fields, two unknown columns), shuffled (design, reordered), wide (design + unknown columns)",
    default: 'design',
    parse: choiceOption(['design', 'lean', 'shuffled', 'wide']),
    commands: ['emulate'],
  },
  {
    flags: '--schema-version <n>',
    description: 'the schema_version manifests and files say',
    default: '1',
    parse: integerOption(1, 1000),
    commands: ['emulate'],
  },
  {
    flags: '--schema-contract <contract>',
    description:
      'a file with a new column or schema_version: evolve (load it, the column added) or freeze (archive it and hold it for gexwh load --accept-layout)',
    default: 'evolve',
    config: z.enum(SCHEMA_CONTRACT_WORDS),
    parse: choiceOption(SCHEMA_CONTRACT_WORDS),
    commands: ['sync', 'load'],
  },
  {
    flags: '--accept-layout',
    description: 'load the files held by schemaContract freeze (a new column or schema_version) and accept their layouts',
    commands: ['load'],
  },
  {
    flags: '--trust-journal',
    description:
      "with no API key configured, load the journal's files anyway: their manifest rows are stored unchecked and marked unconfirmed (gexwh verify names them) until a run with a key checks them",
    commands: ['load'],
  },
  {
    flags: '--key-prefix <prefix>',
    description: 'prefix of the demo keys (1-32 URL-safe characters)',
    default: 'gex_',
    parse: keyPrefixOption,
    commands: ['emulate'],
  },
  { flags: '--charge-failed-requests', description: 'a 4xx answer of a quota-counted endpoint costs a request too', commands: ['emulate'] },
  {
    flags: '--manifest-page-rows <n>',
    description: 'rows per /history/files page (the spec says at most 400, never that a shorter page is the last)',
    default: '400',
    parse: integerOption(1, 400),
    commands: ['emulate'],
  },
  {
    flags: '--rate-limit-headers <set>',
    description: 'request-quota headers: all, or named (only X-RateLimit-Limit and X-RateLimit-Reset, the two the spec names)',
    default: 'all',
    parse: choiceOption(['all', 'named']),
    commands: ['emulate'],
  },
];

export const OPTIONS: readonly OptionSpec[] = [...GLOBAL, ...SHARED, ...OWN, ...ALERT_OPTIONS];
