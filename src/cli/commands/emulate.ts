// `gexwh emulate`: the local API emulator on loopback, until Ctrl-C.
import type { Command } from 'commander';
import { definedOnly } from '../../core/defined.js';
import { contextOf } from '../context.js';
import { EMULATE_DEFAULTS } from '../options.js';
import { parseInstant } from '../parse.js';

interface EmulateFlags {
  port?: number;
  storagePort?: number;
  seed?: number;
  days?: number;
  now?: string;
  symbols?: string[];
  expirations?: number;
  strikes?: number;
  layout?: 'design' | 'lean' | 'shuffled' | 'wide';
  schemaVersion?: number;
  keyPrefix?: string;
  chargeFailedRequests?: boolean;
  manifestPageRows?: number;
  rateLimitHeaders?: 'all' | 'named';
}

export function registerEmulate(program: Command): void {
  program
    .command('emulate')
    .description('start the local GEX API emulator on loopback and print its URLs and demo keys')
    .action(async (flags: EmulateFlags, command: Command) => {
      const { out, signal } = contextOf(command);
      const now = flags.now === undefined ? undefined : parseInstant(flags.now, '--now');
      // Loaded here, not at the top: every other command would pay for its ~40 modules at start.
      const { startEmulator, defaultBuildWorkers, describeAccount } = await import('../../../emulator/index.js');
      const emulator = await startEmulator({
        port: flags.port ?? 0,
        storagePort: flags.storagePort ?? 0,
        seed: flags.seed ?? EMULATE_DEFAULTS.seed,
        days: flags.days ?? EMULATE_DEFAULTS.days,
        ...(now ? { now, realtimeClock: true } : {}),
        ...(flags.symbols ? { symbols: flags.symbols.map((s) => s.toUpperCase()) } : {}),
        expirations: flags.expirations ?? EMULATE_DEFAULTS.expirations,
        strikes: flags.strikes ?? EMULATE_DEFAULTS.strikes,
        buildWorkers: defaultBuildWorkers(),
        // Where the emulator disagrees with gexwh's own reading of the spec on purpose: the files'
        // layout and schema_version, the keys' prefix, whether a 4xx costs a request, the manifest's
        // page size, which rate-limit headers are sent.
        ...definedOnly({
          layout: flags.layout,
          schemaVersion: flags.schemaVersion,
          keyPrefix: flags.keyPrefix,
          manifestPageRows: flags.manifestPageRows,
          rateLimitHeaders: flags.rateLimitHeaders,
        }),
        ...(flags.chargeFailedRequests === true ? { chargeFailedRequests: true } : {}),
      });
      const info = { base_url: emulator.baseUrl, storage_url: emulator.storageUrl, keys: emulator.keys };
      out.result(info, () =>
        [
          `GEX API emulator listening (Ctrl-C to stop)`,
          `  base URL:    ${emulator.baseUrl}   (export GEX_BASE_URL=${emulator.baseUrl})`,
          `  storage URL: ${emulator.storageUrl}`,
          `  keys (emulator only, not secrets; only keys with API access can sync):`,
          ...Object.entries(emulator.keys).map(([plan, key]) => `    ${plan.padEnd(10)} ${key}   ${describeAccount(plan as keyof typeof emulator.keys)}`),
        ].join('\n'),
      );
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      await emulator.close();
    });
}
