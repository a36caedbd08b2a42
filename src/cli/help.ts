// What every command's --help shows beyond its options (whose notes, defaults included, come from
// the option table, options.ts): one example per command.
import type { Command } from 'commander';

/**
 * One example per command, as a user types it after `npm install gexwh`, and what it buys: file
 * credits and quota requests are what users pay for, so every example says what it spends.
 */
export const EXAMPLES: Record<string, { run: string; buys: string }> = {
  sync: {
    run: 'npx gexwh sync --symbol BTC,SPY --max-credits 50',
    buys: 'buys at most 50 daily files (1 credit each): BTC on combined, SPY on tradfi (one venue per symbol unless --exchange names others)',
  },
  plan: {
    run: 'npx gexwh plan --exchange deribit --symbol BTC --since 2026-01-01',
    buys: 'buys nothing: the deribit BTC files from 2026-01-01 a sync would buy, and their credits (manifest pages cost quota requests)',
  },
  status: { run: 'npx gexwh status --json', buys: 'buys nothing: /me and the coverage are free' },
  me: { run: 'npx gexwh me', buys: 'buys nothing: /me is free' },
  coverage: { run: 'npx gexwh coverage --json', buys: 'buys nothing: the coverage is free' },
  api: { run: 'npx gexwh api /history/timestamps/deribit/BTC -q date=2026-03-10', buys: 'costs 1 quota request, no file credit' },
  query: { run: 'npx gexwh query "SELECT * FROM levels_close ORDER BY session_date DESC LIMIT 5"', buys: 'buys nothing: reads the local warehouse' },
  export: { run: 'npx gexwh export --out exports/ --table levels --since 2026-01-01', buys: 'buys nothing: writes Parquet from the local warehouse' },
  rebuild: { run: 'npx gexwh rebuild --db data/gex.duckdb --archive data/raw', buys: 'buys nothing: no network, the archive alone' },
  verify: { run: 'npx gexwh verify --repair', buys: 'buys nothing: no network, re-hashes and reloads from the archive' },
  load: { run: 'npx gexwh load', buys: 'buys nothing: loads files already paid for, no network' },
  capture: {
    run: 'npx gexwh capture --symbol BTC,SPY',
    buys: 'costs 2 quota requests per symbol (BTC on all, SPY on tradfi), no file credit; 0 when the 15-minute slot is already held',
  },
  doctor: { run: 'npx gexwh doctor --json', buys: 'buys nothing: /me is free' },
  emulate: { run: 'npx gexwh emulate --days 60 --port 8787', buys: 'buys nothing: a local emulator with demo keys' },
  demo: { run: 'npx gexwh demo', buys: 'buys nothing: syncs from an in-process emulator' },
  levels: { run: 'npx gexwh levels --symbol BTC,SPY', buys: 'buys nothing: reads the local warehouse' },
  alerts: {
    run: 'npx gexwh alerts --from 2026-03-01 --to 2026-03-13 --symbol BTC --alert-rules flip_cross',
    buys: 'buys nothing: replays the rules over the local warehouse',
  },
  chart: { run: 'npx gexwh chart profile --exchange deribit --symbol BTC --out profile.png', buys: 'buys nothing: draws from the local warehouse' },
  report: { run: 'npx gexwh report --out report.html', buys: 'buys nothing: one page from the local warehouse' },
};

/** Adds the example to every command of the program. */
export function completeHelp(program: Command): void {
  for (const command of program.commands) {
    const example = EXAMPLES[command.name()];
    if (example) command.addHelpText('after', `\nExample:\n  $ ${example.run}\n    ${example.buys}\n`);
  }
}
