// The fingerprints of what a plan was made from: the same state in any order gives the same
// fingerprint, any changed manifest fact (a rebuilt file's sha256, its size) or archived copy moves it,
// and whatMoved names the file that moved.
import { createHash } from 'node:crypto';
import { fc, test } from '../helpers/property.js';
import { describe, expect, it } from 'vitest';
import { fingerprintsOf, followPlan, whatMoved } from '../../src/sync/plan-fingerprint.js';
import { planDocumentOf } from '../../src/sync/plan-file.js';
import { planSync, type PlanInput } from '../../src/sync/download-plan.js';
import { parseSyncSelection } from '../../src/sync/selection.js';
import type { StoredManifestRow } from '../../src/core/rows.js';
import { UsageError } from '../../src/core/errors.js';

const sha = (n: number) => createHash('sha256').update(String(n)).digest('hex');
const row = (day: number, shaOf = day): StoredManifestRow => ({
  exchange: 'deribit',
  symbol: 'BTC',
  session_date: `2026-03-${String(day).padStart(2, '0')}`,
  file: 'levels',
  rows: 10,
  bytes: 100,
  sha256: sha(shaOf),
  schema_version: 1,
});

function inputOf(manifest: StoredManifestRow[]): PlanInput {
  return {
    coverage: [{ exchange: 'deribit', symbol: 'BTC' }],
    manifest,
    ledger: [],
    selection: { exchanges: ['deribit'], files: ['levels'] },
    budget: { creditsRemaining: null, creditsLimit: 0, reserve: 0 },
    order: 'newest',
  };
}

describe('plan fingerprints', () => {
  test.prop([fc.uniqueArray(fc.integer({ min: 1, max: 28 }), { minLength: 1, maxLength: 10 }), fc.nat()])(
    'do not depend on row order, and move when one row changes',
    (days, pick) => {
      const rows = days.map((day) => row(day));
      const base = fingerprintsOf(inputOf(rows));
      expect(fingerprintsOf(inputOf([...rows].reverse())).manifest).toBe(base.manifest);
      const changed = rows.map((r, i) => (i === pick % rows.length ? { ...r, sha256: sha(1000 + i) } : r));
      expect(fingerprintsOf(inputOf(changed)).manifest).not.toBe(base.manifest);
      expect(fingerprintsOf(inputOf(rows), new Set(['x'])).archive).not.toBe(base.archive);
    },
  );

  it('followPlan returns the file plan when nothing moved, and names a rebuilt file when the manifest moved', () => {
    const selection = parseSyncSelection({ exchange: 'deribit', symbol: 'BTC', files: 'levels' });
    const input = inputOf([row(9), row(10)]);
    const plan = planSync(input);
    const document = planDocumentOf(plan, selection, false, fingerprintsOf(input));
    expect(followPlan(document, { plan, fingerprints: fingerprintsOf(input) }, 'p.json')).toEqual(plan);

    const moved = inputOf([row(9), row(10, 77)]);
    const now = { plan: planSync(moved), fingerprints: fingerprintsOf(moved) };
    expect(whatMoved(document, now)).toEqual([
      expect.stringContaining(`deribit/BTC 2026-03-10 levels is now sha256 ${sha(77).slice(0, 12)}… (the plan has ${sha(10).slice(0, 12)}…)`),
    ]);
    expect(() => followPlan(document, now, 'p.json')).toThrow(UsageError);
  });
});
