// status prints its run times as people read them (`2026-03-10 23:45:00Z`), like every other time it
// shows, never the raw ISO form with its `T` and milliseconds; JSON keeps the ISO form. And its counts
// as a sentence would: `1 request`, `2 requests`, `1 credit`, never `1 requests`.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { finishRun, openWarehouse, startRun } from '../../src/warehouse/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { workspaceIn } from '../helpers/workspace.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gexwh-status-times-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type RunEnd = Parameters<typeof finishRun>[2];

/** A sync then a capture recorded in a new warehouse, and what `status` prints of them. */
async function statusAfter(sync: { startedAt: string; end: RunEnd }, capture: { startedAt: string; end: RunEnd }): Promise<string> {
  const ws = workspaceIn(dir);
  mkdirSync(ws.root, { recursive: true });
  const warehouse = await openWarehouse(ws.db);
  try {
    for (const [command, run] of [
      ['sync', sync],
      ['capture', capture],
    ] as const) {
      const id = await startRun(warehouse.connection, { command, options: {}, startedAt: new Date(run.startedAt) });
      await finishRun(warehouse.connection, id, run.end);
    }
  } finally {
    warehouse.close();
  }
  const status = await runCliInProcess(['status', ...ws.local], { cwd: ws.root });
  expect(status.code, status.stderr).toBe(0);
  return status.stdout;
}

it('the last run and last sync lines print a readable UTC time', async () => {
  const stdout = await statusAfter(
    { startedAt: '2026-03-10T23:45:00Z', end: { outcome: 'ok', filesLoaded: 3, creditsSpent: 3, finishedAt: new Date('2026-03-10T23:46:00Z') } },
    { startedAt: '2026-03-11T00:15:00.250Z', end: { outcome: 'ok', rowsLoaded: 4 } },
  );
  expect(stdout).toContain('last run: capture ok at 2026-03-11 00:15:00.250Z;');
  expect(stdout).toContain('last sync: sync ok at 2026-03-10 23:45:00Z;');
  expect(stdout).not.toMatch(/\dT\d\d:\d\d/);
});

it('the last run and last sync lines put each noun in the number its count takes', async () => {
  const stdout = await statusAfter(
    {
      startedAt: '2026-03-10T23:45:00Z',
      end: { outcome: 'ok', filesLoaded: 0, creditsSpent: 1, requestsSpent: 1, finishedAt: new Date('2026-03-10T23:46:00Z') },
    },
    { startedAt: '2026-03-11T00:15:00Z', end: { outcome: 'ok', rowsLoaded: 1, requestsSpent: 2 } },
  );
  expect(stdout).toContain('last run: capture ok at 2026-03-11 00:15:00Z; 1 live row added, 2 requests\n');
  expect(stdout).toContain('last sync: sync ok at 2026-03-10 23:45:00Z; 0 loaded, 0 failed, 0 deferred; 1 credit, 1 request\n');
});
