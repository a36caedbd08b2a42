// The planning scenario's child (its peak RSS is the measure), on a tiny synthetic manifest: each mode
// runs against today's schema and plans what it set up. It writes the ledger with SQL of its own,
// which a new ledger column once broke, and `npm run bench` stopped there. A child process, as the
// bench runs it: the script reads its mode from argv and exits.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { removeDir, tempDir } from '../../bench/fixture.js';

const CHILD = fileURLToPath(new URL('../../dist/bench/plan-child.js', import.meta.url));
const dir = tempDir('gexwh-plan-child-');
afterAll(() => removeDir(dir));

function child(mode: string, db: string): Record<string, number> {
  const out = execFileSync(process.execPath, [CHILD, mode, db], { env: { ...process.env, PLAN_YEARS: '1', PLAN_SYMBOLS: '2' }, encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, number>;
}

it('upsert, mark-loaded and plan: every synthetic row stored, then all loaded, so the plan buys nothing', () => {
  const db = join(dir, 'plan.duckdb');
  expect(child('upsert', db).rows).toBe(2 * 365 * 3);
  child('mark-loaded', db);
  const plan = child('plan', db);
  expect(plan.alreadyLoaded).toBe(2 * 365 * 3);
  expect(plan.rows).toBe(2 * 365 * 3);
});
