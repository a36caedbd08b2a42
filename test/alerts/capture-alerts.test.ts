// Alerts after `gexwh capture`, through the CLI (in process) against the emulator and a real local
// receiver on port 0: each run evaluates its new live snapshot (live_levels) against the one before,
// the first run of a pair fires nothing, and what the runs sent is what `gexwh alerts` replays over
// the live snapshots of that session.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEmulator, type Emulator } from '../../emulator/index.js';
import type { AlertsReport } from '../../src/alerts/after-run.js';
import type { AlertEvent } from '../../src/alerts/rules.js';
import { openWarehouse } from '../../src/warehouse/index.js';
import { runCliInProcess } from '../helpers/cli.js';

let emulator: Emulator;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ now: '2026-03-11T14:07:00Z', days: 2, expirations: 3, strikes: 12, seed: 11, symbols: ['BTC'] });
  dir = mkdtempSync(join(tmpdir(), 'gexwh-capture-alerts-'));
});

afterAll(async () => {
  await emulator?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function stageOtherSide(db: string): Promise<void> {
  const wh = await openWarehouse(db);
  try {
    await wh.connection.run(`UPDATE live_levels SET spot = CASE WHEN spot >= flip THEN flip - 1 ELSE flip + 1 END, regime = 'staged'`);
  } finally {
    wh.close();
  }
}

it('each capture alerts on its new snapshot only, and the runs together sent what the replay lists', async () => {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/alerts`;
  const db = join(dir, 'gex.duckdb');
  try {
    const reports: AlertsReport[] = [];
    for (let slot = 0; slot < 3; slot += 1) {
      const { code, stdout } = await runCliInProcess(
        [
          'capture',
          '--base-url',
          emulator.baseUrl,
          '--db',
          db,
          '--archive',
          join(dir, 'raw'),
          '--symbol',
          'BTC',
          '--exchange',
          'deribit',
          '--alert-url',
          url,
          '--json',
        ],
        { env: { GEX_API_KEY: emulator.keys.pro } },
      );
      expect(code).toBe(0);
      reports.push((JSON.parse(stdout) as { alerts: AlertsReport }).alerts);
      emulator.clock.advance(15 * 60_000);
      // A quarter of an hour rarely crosses anything: the first snapshot is made to stand on the other
      // side of its flip, in another regime, so the next one crosses back.
      if (slot === 0) await stageOtherSide(db);
    }
    // The first run met a pair the warehouse did not hold: nothing to compare with.
    expect(reports.map((r) => r.captures_evaluated)).toEqual([0, 1, 1]);
    expect(reports[1]!.events.map((e) => e.rule)).toEqual(expect.arrayContaining(['regime_change', 'flip_cross']));
    expect(reports.every((r) => r.source === 'live_levels')).toBe(true);
    const sent = reports.flatMap((r) => r.events);
    const { stdout } = await runCliInProcess(['alerts', '--db', db, '--json']);
    const replay = (JSON.parse(stdout) as { events: AlertEvent[] }).events;
    expect(replay.every((e) => e.source === 'live_levels' && e.capture_type === 'live')).toBe(true);
    expect(sent).toEqual(replay);
    expect(bodies.map((b) => JSON.parse(b) as AlertEvent)).toEqual(replay);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}, 120_000);
