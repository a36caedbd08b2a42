// Options declared once: each entry gives the flags, what the option means, its default as the help
// and the docs say it, the environment variable and config-file key that may hold it, its value
// parser, and the commands that take it. Commander's registration, each command's --help, the config
// file's schema and the option tables of docs/reference.md (checked by test/cli/options.test.ts) all
// read this table: adding an option is one entry.
import { Option, type Command } from 'commander';
import { z } from 'zod';
import { integerOption, listOption, secondsOption } from './parse.js';

export interface OptionSpec {
  /** Commander's flags, e.g. `--db <path>`. */
  flags: string;
  description: string;
  /** The default in words, as --help and docs/reference.md show it; absent for a switch that is off. */
  default?: string;
  /** The environment variable read when the flag is absent. */
  env?: string;
  /** The config file may hold it under its camelCase name, validated by this schema. */
  config?: z.ZodType;
  /** The config file's key when the flag's own name would be too vague there (`--timeout` → queryTimeout). */
  configKey?: string;
  /** Commander's value parser: rejects a bad value naming what is allowed. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Commander's own parser type: each parser returns its own value type
  parse?: (value: string, previous: any) => any;
  /** The commands that take it; 'global' for the options of every command. */
  commands: 'global' | readonly string[];
}

const listOfStrings = z.union([z.string(), z.array(z.string())]).transform((v) => (Array.isArray(v) ? v : [v]));
const count = z.int().nonnegative();
const SYNC = ['sync', 'plan'] as const;
/** A week: longer is surely a typo. */
const SECONDS_LIMIT = 604_800;

export const OPTIONS: readonly OptionSpec[] = [
  { flags: '--db <path>', description: 'DuckDB warehouse file', default: 'data/gex.duckdb', env: 'GEXWH_DB', config: z.string().min(1), commands: 'global' },
  { flags: '--archive <dir>', description: 'raw archive folder', default: 'data/raw', env: 'GEXWH_ARCHIVE', config: z.string().min(1), commands: 'global' },
  { flags: '--base-url <url>', description: 'API root that holds /api/v1', default: '(none)', env: 'GEX_BASE_URL', config: z.string().min(1), commands: 'global' },
  // No `env`: GEX_API_KEY holds the key itself, not a path, so the help says so in words.
  { flags: '--api-key-file <path>', description: 'file holding the API key (else the key itself from env GEX_API_KEY)', default: '(none)', commands: 'global' },
  { flags: '--config <path>', description: 'config file; its relative paths resolve in its folder', default: 'gexwh.config.json in the working folder or the nearest parent', commands: 'global' },
  { flags: '--json', description: 'machine-readable result on stdout (errors too), logs on stderr', commands: 'global' },
  { flags: '--quiet', description: 'no progress or info lines', commands: 'global' },
  { flags: '--verbose', description: 'more detail, stacks of unexpected errors', commands: 'global' },

  {
    flags: '--exchange <list>',
    description: 'history venues: bybit, deribit, okx, derive, combined, tradfi, or all-venues for every venue; each venue costs its own credits (repeatable, comma list)',
    default: "config, else one venue per symbol as the API resolves all: combined for a crypto coin, tradfi for a TradFi ticker",
    config: listOfStrings,
    parse: listOption,
    commands: SYNC,
  },
  { flags: '--symbol <list>', description: 'symbols, e.g. BTC,SPY (repeatable, comma list)', default: "config, else every symbol of your plan's markets", config: listOfStrings, parse: listOption, commands: SYNC },
  { flags: '--files <list>', description: 'file kinds: levels, strikes_total, strikes_by_expiry', default: 'all three', config: listOfStrings, parse: listOption, commands: SYNC },
  { flags: '--since <date>', description: 'first session date, YYYY-MM-DD (inclusive)', default: 'none', config: z.string(), commands: SYNC },
  { flags: '--until <date>', description: 'last session date, YYYY-MM-DD (inclusive)', default: 'none', config: z.string(), commands: SYNC },
  { flags: '--max-credits <n>', description: 'spend at most N file credits in this run', default: 'none', config: count, commands: SYNC },
  { flags: '--reserve-credits <n>', description: "leave N file credits of the day unspent", default: '0', config: count, commands: SYNC },
  { flags: '--max-requests <n>', description: 'spend at most N quota requests in this run', default: 'none', config: count, commands: SYNC },
  { flags: '--concurrency <n>', description: 'parallel downloads, 1 to 32', default: '4', config: z.int().min(1).max(32), commands: SYNC },
  { flags: '--order <order>', description: 'newest or oldest sessions first', default: 'newest', config: z.enum(['newest', 'oldest']), commands: SYNC },
  { flags: '--fill-levels', description: 'fill levels of sessions without a levels file from /history/levels (request quota)', config: z.boolean(), commands: SYNC },
  { flags: '--full-rescan', description: 're-list whole manifests to catch rebuilt files', commands: SYNC },
  {
    flags: '--wait-lock <seconds>',
    description: 'wait up to N seconds for the warehouse to load paid files when another process holds it, and for another running sync',
    default: '300 for the load, 0 for another sync',
    parse: integerOption(0, 86_400),
    commands: SYNC,
  },
  { flags: '--dry-run', description: 'plan only: spend no credit (same as gexwh plan)', commands: ['sync'] },
  {
    flags: '--timeout <seconds>',
    description: 'cancel the statement after this many seconds (exit 124); 0: no limit',
    default: 'none',
    config: z.number().nonnegative().max(SECONDS_LIMIT),
    configKey: 'queryTimeout',
    parse: secondsOption(SECONDS_LIMIT),
    commands: ['query'],
  },
];

/** `--max-credits <n>` → `maxCredits`: the name commander gives the value, and the config file's key. */
export function keyOf(spec: OptionSpec): string {
  return new Option(spec.flags).attributeName();
}

/** The config file's key of an option: its camelCase name unless the table names another. */
export function configKeyOf(spec: OptionSpec): string {
  return spec.configKey ?? keyOf(spec);
}

export function longFlagOf(spec: OptionSpec): string {
  return spec.flags.split(/[ ,]+/).find((part) => part.startsWith('--'))!;
}

/** The options of the config file, by key, with their schemas. */
export function configShape(): Record<string, z.ZodOptional<z.ZodType>> {
  return Object.fromEntries(OPTIONS.filter((spec) => spec.config).map((spec) => [configKeyOf(spec), spec.config!.optional()]));
}

/** The help line's note: the default, the environment variable and the config key, as they apply. */
export function noteOf(spec: OptionSpec): string {
  const parts = [
    ...(spec.env ? [`env ${spec.env}`] : []),
    ...(spec.default ? [`default: ${spec.default}`] : []),
    ...(spec.config ? [`config: ${configKeyOf(spec)}`] : []),
  ];
  return parts.length > 0 ? ` [${parts.join('; ')}]` : '';
}

function optionOf(spec: OptionSpec): Option {
  const option = new Option(spec.flags, spec.description + noteOf(spec));
  if (spec.parse) option.argParser(spec.parse);
  return option;
}

/** Adds the table's options of this command ('global': the program's own) to it. */
export function addTableOptions(command: Command, name: string): Command {
  for (const spec of OPTIONS) {
    const takes = spec.commands === 'global' ? name === 'global' : spec.commands.includes(name);
    if (takes) command.addOption(optionOf(spec));
  }
  return command;
}

/** The spec of a command's option, by its long flag (`--concurrency`), if the table holds it. */
export function specOf(command: string, longFlag: string): OptionSpec | undefined {
  return OPTIONS.find((spec) => spec.commands !== 'global' && spec.commands.includes(command) && longFlagOf(spec) === longFlag);
}
