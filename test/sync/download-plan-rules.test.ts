import { describe, expect, it } from 'vitest';
import { classifyRow, decide, LEDGER_RULES, ROW_RULES, type PlanSelection } from '../../src/sync/download-plan.js';
import type { LedgerEntry, StoredManifestRow } from '../../src/core/rows.js';

const row: StoredManifestRow = {
  exchange: 'deribit',
  symbol: 'BTC',
  session_date: '2024-06-02',
  file: 'levels',
  rows: 10,
  bytes: 100,
  sha256: 'a'.repeat(64),
  schema_version: 1,
};
const selection: PlanSelection = { files: ['levels', 'strikes_total'], since: '2024-06-01', until: '2024-06-03' };

function entry(status: LedgerEntry['status'], sha256 = row.sha256, archivePath: string | null = 'deribit/BTC/x.csv.gz'): LedgerEntry {
  return { exchange: 'deribit', symbol: 'BTC', sessionDate: row.session_date, file: 'levels', sha256, status, archivePath };
}

describe('which manifest rows the plan considers', () => {
  it.each([
    ['a known row inside the selection', {}, 'selected'],
    ['an unknown file kind', { file: 'greeks' }, 'ignored'],
    ['a date that is not an ISO date', { session_date: '2024-6-2' }, 'ignored'],
    ['a file kind not selected', { file: 'strikes_by_expiry' }, 'outside'],
    ['a date before --since', { session_date: '2024-05-31' }, 'outside'],
    ['a date after --until', { session_date: '2024-06-04' }, 'outside'],
    ['the bounds themselves', { session_date: '2024-06-01' }, 'selected'],
  ] as const)('%s: %s', (_, change, verdict) => {
    expect(classifyRow({ ...row, ...change } as StoredManifestRow, selection)).toBe(verdict);
  });

  it('ends with a rule that always applies, so every row gets a verdict', () => {
    expect(ROW_RULES.at(-1)!.applies(row, selection)).toBe(true);
  });
});

describe('what the plan does with a selected row, by the ledger', () => {
  it.each([
    ['never seen', [], 'download', undefined],
    ['the same version loaded', [entry('loaded')], 'loaded', undefined],
    ['the same version failed to load, archived', [entry('failed_load')], 'reload', 'failed_load'],
    ['the same version failed to load, no archived copy', [entry('failed_load', row.sha256, null)], 'download', 'failed_load'],
    ['the same version failed verification', [entry('failed_verify', row.sha256, null)], 'download', 'failed_verify'],
  ] as const)('%s → %s', (_, versions, kind, retryOf) => {
    const decision = decide(row, 'levels', versions);
    expect(decision.kind).toBe(kind);
    if (decision.kind !== 'loaded') expect(decision.planned.retryOf).toBe(retryOf);
  });

  it('a new version of a loaded file replaces the lowest loaded older sha256', () => {
    const decision = decide(row, 'levels', [entry('loaded', 'c'.repeat(64)), entry('loaded', 'b'.repeat(64))]);
    expect(decision).toMatchObject({ kind: 'download', planned: { replaces: 'b'.repeat(64), sha256: row.sha256 } });
  });

  it('ends with a rule that always applies', () => {
    expect(LEDGER_RULES.at(-1)!.applies(undefined)).toBe(true);
  });
});
