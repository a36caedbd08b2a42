// A second Ctrl-C exits at once and says so on a line of its own, with what is kept: never a silent
// exit that leaves the terminal's progress line unterminated. A child process: signals need one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import { runCli } from '../helpers/cli.js';

let emulator: Emulator;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 3, expirations: 2, strikes: 6, seed: 9, symbols: ['BTC'] });
  dir = mkdtempSync(join(tmpdir(), 'gexwh-second-'));
});
afterAll(async () => {
  await emulator.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('a second SIGINT', () => {
  it('exits 130 at once with a line saying what is kept, ended by a newline', async () => {
    // Each storage GET waits 5 s: the sync is in its download phase when the signals come.
    emulator.faults.add({ where: 'storage', match: /\/files\//, times: 100, action: { kind: 'delay', ms: 5000 } });
    const args = [
      'sync',
      '--verbose',
      '--db',
      join(dir, 'gex.duckdb'),
      '--archive',
      join(dir, 'raw'),
      '--exchange',
      'deribit',
      '--symbol',
      'BTC',
      '--concurrency',
      '1',
    ];
    const result = await runCli(args, {
      env: { GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.pro },
      onSpawn(child) {
        // The first once the downloads began; the second once the first was answered ("stopping").
        let seen = '';
        let sent = 0;
        child.stderr?.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          if (sent === 0 && /^download/m.test(seen)) {
            sent = 1;
            child.kill('SIGINT');
          } else if (sent === 1 && /stopping/.test(seen)) {
            sent = 2;
            child.kill('SIGINT');
          }
        });
      },
    });
    emulator.faults.clear();
    expect(result.code).toBe(130);
    expect(result.stderr).toMatch(
      /\nsecond SIGINT: stopped at once; every file paid so far is archived or listed in the archive's journal, and the next gexwh sync or gexwh load takes it up for 0 credits\n$/,
    );
  }, 60_000);
});
