// A link the API answered as the process died was charged but never read: the next sync compares
// `/me`'s credits left then and now (same quota window) with what the stopped run's log wrote down, and
// records the difference as charged, not received (links lost), so the records hold what the API counted.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readJournal } from '../../src/journal/journal.js';
import { openSpendLog } from '../../src/journal/spend-log.js';
import { adoptStoppedRun, reconciled, type StoppedLog } from '../../src/journal/stopped-runs.js';
import { openPackageOf, unregisterOpenPackage } from '../../src/journal/open-package.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'gexwh-reconcile-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const reset = '2026-03-12T00:00:00Z';
const startedAt = new Date('2026-03-11T00:30:00Z');

describe('a stopped run reconciled from /me', () => {
  it('after kill -9 the API charged 46 and the log said 44: the run records 44 spent and 2 charged, not received', async () => {
    const log = openSpendLog(root, { command: 'sync', options: {}, startedAt, quotaAtStart: { remaining: 100, reset } });
    for (let i = 0; i < 44; i++) await log.credit(1);
    // The process dies here: the package stays open (and this process no longer runs it).
    unregisterOpenPackage(root, openPackageOf(root)!);
    const adopted = await adoptStoppedRun(root, { remaining: 54, reset });
    expect(adopted.credits).toBe(44);
    const [run] = (await readJournal(root)).runs;
    expect(run).toMatchObject({ creditsSpent: 44, linksLost: 2 });
    expect(run?.error).toContain('2 credit(s) charged by the API, not received');
  });

  it('counts the links the log already wrote down as lost once: only the rest of the fall is newly lost', () => {
    const log = {
      version: 1,
      run: { creditsSpent: 44, linksLost: 2, error: null },
      files: [],
      quotaAtStart: { remaining: 100, reset },
    } as unknown as StoppedLog;
    // 100 - 53 = 47 charged: 44 spent and 2 lost on record, so 1 more lost, 3 in all.
    expect(reconciled(log, { remaining: 53, reset }).run).toMatchObject({ creditsSpent: 44, linksLost: 3 });
    // 46 charged is exactly what the log holds: nothing changes.
    expect(reconciled(log, { remaining: 54, reset })).toBe(log);
  });

  it('changes nothing when /me cannot tell: another quota window, unlimited credits, or nothing unread', () => {
    const log = {
      version: 1,
      run: { creditsSpent: 44, error: null },
      files: [],
      quotaAtStart: { remaining: 100, reset },
    } as unknown as StoppedLog;
    expect(reconciled(log, { remaining: 54, reset: '2026-03-13T00:00:00Z' })).toBe(log);
    expect(reconciled(log, { remaining: null, reset })).toBe(log);
    expect(reconciled(log, { remaining: 56, reset })).toBe(log);
    expect(reconciled(log, undefined)).toBe(log);
    expect(reconciled(log, { remaining: 53, reset }).run).toMatchObject({ creditsSpent: 44, linksLost: 3 });
  });
});
