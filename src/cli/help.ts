// What every command's --help shows beyond commander's list: one example per command, and the
// default of each option outside the option table (options.ts) that did not say it.
import type { Command, Option } from 'commander';
import { specOf } from './options.js';

/**
 * Defaults of the options registered outside the option table (options.ts writes the note of its
 * own entries): `command --flag` first, then `--flag`.
 */
const DEFAULTS: Record<string, string> = {
  'export --exchange': 'every exchange',
  'export --symbol': 'every symbol',
  '--since': 'the oldest session',
  '--until': 'the newest session',
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

function takesValue(option: Option): boolean {
  return option.required || option.optional;
}

/** The default of an option outside the table that its description does not already say. */
function defaultNote(command: Command, option: Option): string {
  const flag = option.long ?? option.short ?? '';
  if (specOf(command.name(), flag) || !takesValue(option) || /default/i.test(option.description)) return '';
  const known = DEFAULTS[`${command.name()} ${flag}`] ?? DEFAULTS[flag];
  return known ? ` [default: ${known}]` : '';
}

/** Adds the defaults and the example to every command of the program. */
export function completeHelp(program: Command): void {
  for (const command of program.commands) {
    for (const option of command.options as Option[]) option.description += defaultNote(command, option);
    const example = EXAMPLES[command.name()];
    if (example) command.addHelpText('after', `\nExample:\n  $ ${example}\n`);
  }
}
