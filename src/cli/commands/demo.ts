// `gexwh demo`: one command for a new user. Starts the emulator in-process, syncs a few crypto and
// TradFi pairs into data/demo.duckdb, prints what landed, and stops. No key or network needed.
import type { Command } from 'commander';
import { parseSyncSelection } from '../../sync/selection.js';
import { contextOf } from '../context.js';
import { DEMO_DAYS } from '../options.js';
import { parseInstant } from '../parse.js';
import { formatTable } from '../output.js';

const DEMO_DB = 'data/demo.duckdb';
const DEMO_ARCHIVE = 'data/demo-raw';
const DEMO_PAIRS = { exchange: ['deribit', 'tradfi'], symbol: ['BTC', 'SPY'] };

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description(`start the emulator, sync a few symbols into ${DEMO_DB}, print a short report`)
    .action(async (flags: { days?: number; now?: string }, command: Command) => {
      const ctx = contextOf(command);
      const db = command.optsWithGlobals<{ db?: string }>().db ?? DEMO_DB;
      const archive = command.optsWithGlobals<{ archive?: string }>().archive ?? DEMO_ARCHIVE;
      const now = flags.now === undefined ? undefined : parseInstant(flags.now, '--now');
      // Loaded here, not at the top: every other command would pay for its ~40 modules at start.
      const [{ createApiClient }, { syncApiFrom }, { runSync }, { demoReport }, { formatSummary }] = await Promise.all([
        import('../../api/index.js'),
        import('../../sync/api-port.js'),
        import('../../sync/run.js'),
        import('../../warehouse/demo-report.js'),
        import('../summary.js'),
      ]);
      const { startEmulator } = await import('../../../emulator/index.js');
      const emulator = await startEmulator({ days: flags.days ?? DEMO_DAYS, expirations: 6, strikes: 40, symbols: ['BTC', 'SPY'], ...(now ? { now } : {}) });
      const client = createApiClient({ baseUrl: emulator.baseUrl, apiKey: emulator.keys.pro, signal: ctx.signal });
      try {
        ctx.out.info(`emulator on ${emulator.baseUrl}; syncing deribit/BTC and tradfi/SPY into ${db} …`);
        const selection = parseSyncSelection(DEMO_PAIRS);
        const summary = await runSync(
          {
            command: 'sync',
            dbPath: db,
            archiveRoot: archive,
            selection,
            dryRun: false,
            fullRescan: false,
            fillLevels: false,
            recordedOptions: { demo: true, ...selection },
          },
          syncApiFrom(client),
          ctx.signal,
        );
        const report = await demoReport(db);
        ctx.out.result({ summary, ...report }, () =>
          [
            formatSummary(summary),
            '',
            'rows per table:',
            formatTable(report.tables),
            '',
            'the last TOTAL levels of each pair:',
            formatTable(report.levels),
            '',
            "a point-in-time join of trades to the levels known at each trade's time (pit_levels):",
            formatTable(report.pointInTime),
            '',
            `next: npx gexwh query --db ${db} "SELECT * FROM levels LIMIT 5"   (see README: recipes)`,
          ].join('\n'),
        );
      } finally {
        await client.close();
        await emulator.close();
      }
    });
}
