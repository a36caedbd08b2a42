import { describe, expect, it } from 'vitest';
import { nextStepFor } from '../../src/warehouse/verify-advice.js';
import type { VerifyProblemKind } from '../../src/warehouse/verify.js';

const KINDS: VerifyProblemKind[] = [
  'missing_archive',
  'hash_mismatch',
  'size_mismatch',
  'manifest_mismatch',
  'row_count_mismatch',
  'unexplained_rows',
  'failed_load',
  'outside_archive',
  'unreadable',
];

describe('what to do about a verify problem', () => {
  it('every kind names a command or an action', () => {
    for (const kind of KINDS) expect(nextStepFor({ kind }, false), kind).toMatch(/gexwh (sync|verify --repair|rebuild|load)|--archive|backup/);
  });

  it('before a repair, the repairable kinds point at --repair; after one that left them, at the archive copy', () => {
    expect(nextStepFor({ kind: 'row_count_mismatch' }, false)).toContain('gexwh verify --repair');
    expect(nextStepFor({ kind: 'row_count_mismatch' }, true)).toMatch(
      /^the archive could not repair it .*restore the copy from a backup of the archive, then run gexwh verify --repair again/,
    );
    expect(nextStepFor({ kind: 'failed_load' }, true)).toMatch(/^the archive could not repair it/);
    // A bad copy is never fixed by --repair (and never bought again: the warehouse holds its rows).
    expect(nextStepFor({ kind: 'hash_mismatch' }, true)).toBe(nextStepFor({ kind: 'hash_mismatch' }, false));
    expect(nextStepFor({ kind: 'hash_mismatch' }, false)).toMatch(/rows of this file are intact.*restore the file from a backup/);
  });
});
