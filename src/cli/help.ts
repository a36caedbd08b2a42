// What every command's --help shows beyond commander's list: the default of each option that takes a
// value and did not say it, the config-file key of options the config file may hold, and one
// example. Kept here, in one table, so a new command or option gets its help in one place.
import type { Command, Option } from 'commander';
import { ConfigFileSchema } from './settings.js';

/** Defaults not written in an option's own description: `command --flag` first, then `--flag`. */
const DEFAULTS: Record<string, string> = {
  'sync --exchange': "the config's exchange, else every coverage row in the plan's markets",
  'plan --exchange': "the config's exchange, else every coverage row in the plan's markets",
  'sync --symbol': "the config's symbol, else every symbol of the coverage",
  'plan --symbol': "the config's symbol, else every symbol of the coverage",
  'export --exchange': 'every exchange',
  'export --symbol': 'every symbol',
  '--since': 'the oldest session',
  '--until': 'the newest session',
  '--max-credits': 'no cap beyond the day\'s credits',
  '--max-requests': 'no cap beyond the day\'s quota',
  '--query': 'none',
  '--now': 'the real clock',
};

/** One example per command, as a user types it after `npm install gexwh`. */
export const EXAMPLES: Record<string, string> = {
  sync: 'npx gexwh sync --symbol BTC,SPY --max-credits 50',
  plan: 'npx gexwh plan --exchange deribit --symbol BTC --since 2026-01-01',
  status: 'npx gexwh status --json',
  me: 'npx gexwh me',
  coverage: 'npx gexwh coverage --json',
  api: 'npx gexwh api /history/timestamps/deribit/BTC -q date=2026-03-10',
  query: 'npx gexwh query "SELECT * FROM levels_close ORDER BY session_date DESC LIMIT 5"',
  export: 'npx gexwh export --out exports/ --table levels --since 2026-01-01',
  rebuild: 'npx gexwh rebuild --db data/gex.duckdb --archive data/raw',
  verify: 'npx gexwh verify --repair',
  load: 'npx gexwh load',
  capture: 'npx gexwh capture --symbol BTC,SPY',
  doctor: 'npx gexwh doctor --json',
  emulate: 'npx gexwh emulate --days 60 --port 8787',
  demo: 'npx gexwh demo',
  chart: 'npx gexwh chart profile --exchange deribit --symbol BTC --out profile.png',
  report: 'npx gexwh report --out report.html',
};

const CONFIG_KEYS = new Set(Object.keys(ConfigFileSchema.shape));

function takesValue(option: Option): boolean {
  return option.required || option.optional;
}

/** Adds the defaults, config keys and the example to every command of the program. */
export function completeHelp(program: Command): void {
  for (const command of program.commands) {
    for (const option of command.options as Option[]) {
      const extra: string[] = [];
      const flag = option.long ?? option.short ?? '';
      const known = DEFAULTS[`${command.name()} ${flag}`] ?? DEFAULTS[flag];
      if (takesValue(option) && !/default/i.test(option.description) && known) extra.push(`default: ${known}`);
      const key = option.attributeName();
      if (CONFIG_KEYS.has(key) && ['sync', 'plan'].includes(command.name())) extra.push(`config: ${key}`);
      if (extra.length > 0) option.description = `${option.description} [${extra.join('; ')}]`;
    }
    const example = EXAMPLES[command.name()];
    if (example) command.addHelpText('after', `\nExample:\n  $ ${example}\n`);
  }
}
