// The doctor's verdicts as pure functions: each passes on good input and fails on purpose.
import { describe, expect, it } from 'vitest';
import { clockCheck, diskCheck, quotaCheck } from '../../src/doctor/checks.js';

describe('doctor verdicts', () => {
  it('clock: the midpoint of the round trip against the server time, within 30 s', () => {
    const server = '2026-11-25T02:00:00.000Z';
    const at = Date.parse(server);
    expect(clockCheck(at - 100, at + 100, server).ok).toBe(true);
    expect(clockCheck(at + 29_000, at + 29_200, server).ok).toBe(true);
    const ahead = clockCheck(at + 90_000, at + 90_200, server);
    expect(ahead).toMatchObject({ ok: false, detail: expect.stringMatching(/ahead of the API by 90\.1 s/) });
    expect(ahead.fix).toMatch(/NTP/);
    expect(clockCheck(at - 45_000, at - 44_900, server).detail).toMatch(/behind/);
    expect(clockCheck(at, at, 'yesterday').ok).toBe(false);
  });

  it('quota: fails when either bucket is used up; a 0 limit is unlimited', () => {
    const reset = '2026-11-26T00:00:00Z';
    expect(quotaCheck({ limit: 500, remaining: 10, reset }, { limit: 200, remaining: 5, reset }).ok).toBe(true);
    expect(quotaCheck({ limit: 0, remaining: null, reset }, { limit: 0, remaining: null, reset }).ok).toBe(true);
    const out = quotaCheck({ limit: 500, remaining: 10, reset }, { limit: 200, remaining: 0, reset });
    // The reset as every table and sentence prints an instant, never the raw ISO form.
    expect(out).toMatchObject({
      ok: false,
      detail: expect.stringContaining('reset 2026-11-26 00:00:00Z'),
      fix: 'wait for the reset at 2026-11-26 00:00:00Z (or raise the plan)',
    });
  });

  it('disk: free space against the next night planned bytes (and temp room)', () => {
    expect(diskCheck(10 * 1024 ** 3, { bytes: 1024 ** 3, files: 200 }).ok).toBe(true);
    const short = diskCheck(100 * 1024 ** 2, { bytes: 1024 ** 3, files: 200 });
    expect(short).toMatchObject({ ok: false, detail: '100.0 MB free; the next sync plans 200 file(s), 1.0 GB' });
    // Large and small sizes in the unit people read them in, not 78011.0 MB.
    expect(diskCheck(78011 * 1024 ** 2, { bytes: 729_400, files: 24 }).detail).toBe('76.2 GB free; the next sync plans 24 file(s), 712.3 KB');
  });
});
