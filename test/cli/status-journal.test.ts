// What `gexwh status` says of the journal's leftovers, offline: a file a killed sync paid for whose
// bytes never reached the archive ("paid, bytes not archived"), and a name a load set aside unread
// (kept, named until a person removes it). Text and JSON, in-process.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWarehouse } from '../../src/warehouse/index.js';
import { openSpendLog } from '../../src/journal/spend-log.js';
import { openPackageOf, unregisterOpenPackage } from '../../src/journal/open-package.js';
import { packagesFolder } from '../../src/journal/layout.js';
import { runCliInProcess } from '../helpers/cli.js';

let dir: string;
let local: string[];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gexwh-status-journal-'));
  local = ['--db', join(dir, 'gex.duckdb'), '--archive', join(dir, 'raw')];
  (await openWarehouse(join(dir, 'gex.duckdb'))).close();
  // A sync killed while downloading one file: paid/ written, a credit, no bytes.
  const log = openSpendLog(join(dir, 'raw'), { command: 'sync', options: {}, startedAt: new Date('2026-03-11T00:30:00Z') });
  await log.paying({
    exchange: 'deribit',
    symbol: 'BTC',
    sessionDate: '2026-03-10',
    file: 'levels',
    sha256: 'e'.repeat(64),
    bytes: 5,
    rows: 1,
    schemaVersion: 1,
  });
  await log.credit(1);
  unregisterOpenPackage(join(dir, 'raw'), openPackageOf(join(dir, 'raw'))!);
  // A name a load set aside unread.
  mkdirSync(packagesFolder(join(dir, 'raw')), { recursive: true });
  symlinkSync('/etc/passwd', join(packagesFolder(join(dir, 'raw')), '.unreadable-notes'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const offline = { env: { GEX_BASE_URL: 'http://127.0.0.1:9' } };

describe('status and the journal leftovers', () => {
  it('names the paid file whose bytes are not archived, and the name set aside', async () => {
    const text = await runCliInProcess(['status', ...local], offline);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      'paid, bytes not archived: 1 file whose link a run asked for before it stopped (or is downloading now): deribit BTC 2026-03-10 levels;',
    );
    expect(text.stdout).toContain(`journal: 1 name set aside unread`);
    // Bytes and times as the sync's own summary prints them, never `0 bytes` or the raw ISO form.
    expect(text.stdout).toContain('waiting to load: 0 paid files (0 B) of a sync started 2026-03-11 00:30:00Z that stopped before it finished');
    expect(text.stdout).toContain(join(packagesFolder(join(dir, 'raw')), '.unreadable-notes'));
    const json = await runCliInProcess(['status', ...local, '--json'], offline);
    const result = JSON.parse(json.stdout) as { paid_not_archived: { name: string }[]; journal_set_aside: string[]; stopped_run: { credits: number } };
    expect(result.paid_not_archived.map((file) => file.name)).toEqual(['deribit BTC 2026-03-10 levels']);
    expect(result.journal_set_aside).toEqual([join(packagesFolder(join(dir, 'raw')), '.unreadable-notes')]);
    expect(result.stopped_run.credits).toBe(1);
  });
});
