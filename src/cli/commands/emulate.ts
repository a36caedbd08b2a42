// `gexwh emulate`: the local API emulator on loopback, until Ctrl-C.
import type { Command } from 'commander';
import { contextOf } from '../context.js';
import { integerOption, listOption, parseInstant } from '../parse.js';

interface EmulateFlags {
  port?: number;
  storagePort?: number;
  seed?: number;
  days?: number;
  now?: string;
  symbols?: string[];
  expirations?: number;
  strikes?: number;
}

export function registerEmulate(program: Command): void {
  program
    .command('emulate')
    .description('start the local GEX API emulator on loopback and print its URLs and demo keys')
    .option('--port <n>', 'API port (default: any free port)', integerOption(0, 65535))
    .option('--storage-port <n>', 'storage (presigned link) port (default: any free port)', integerOption(0, 65535))
    .option('--seed <n>', 'seed of the synthetic market (default 42)', integerOption(0))
    .option('--days <n>', 'days of history before now (default 30)', integerOption(1, 3650))
    .option('--now <iso>', 'start the emulator clock at this instant (it then ticks in real time)')
    .option('--symbols <list>', 'symbols to serve, comma list (default BTC,ETH,SOL,SPY,QQQ)', listOption)
    .option('--expirations <n>', 'expirations per chain (default 12)', integerOption(1, 60))
    .option('--strikes <n>', 'strikes per chain (default 120)', integerOption(3, 1000))
    .action(async (flags: EmulateFlags, command: Command) => {
      const { out, signal } = contextOf(command);
      const now = flags.now === undefined ? undefined : parseInstant(flags.now, '--now');
      // Loaded here, not at the top: every other command would pay for its ~40 modules at start.
      const { startEmulator, defaultBuildWorkers } = await import('../../../emulator/index.js');
      const emulator = await startEmulator({
        port: flags.port ?? 0,
        storagePort: flags.storagePort ?? 0,
        seed: flags.seed ?? 42,
        days: flags.days ?? 30,
        ...(now ? { now, realtimeClock: true } : {}),
        ...(flags.symbols ? { symbols: flags.symbols.map((s) => s.toUpperCase()) } : {}),
        expirations: flags.expirations ?? 12,
        strikes: flags.strikes ?? 120,
        buildWorkers: defaultBuildWorkers(),
      });
      const info = { base_url: emulator.baseUrl, storage_url: emulator.storageUrl, keys: emulator.keys };
      out.result(info, () =>
        [
          `GEX API emulator listening (Ctrl-C to stop)`,
          `  base URL:    ${emulator.baseUrl}   (export GEX_BASE_URL=${emulator.baseUrl})`,
          `  storage URL: ${emulator.storageUrl}`,
          `  keys (emulator only, not secrets):`,
          ...Object.entries(emulator.keys).map(([plan, key]) => `    ${plan.padEnd(10)} ${key}`),
        ].join('\n'),
      );
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      await emulator.close();
    });
}
