// chart's --from/--to: a --from after --to is refused saying exactly that, before any warehouse is read.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';
import { parseSessionRange } from '../../src/charts/request.js';
import { usageMessage } from '../helpers/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'gexwh-chart-dates-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('chart --from/--to', () => {
  it('--from after --to: exit 2 naming both dates and what each means', async () => {
    const out = join(dir, 'l.svg');
    const args = ['chart', 'levels', '--db', join(dir, 'none.duckdb'), '--exchange', 'deribit', '--symbol', 'BTC', '--out', out];
    const result = await runCliInProcess([...args, '--from', '2026-03-10', '--to', '2026-03-01']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--from 2026-03-10 is after --to 2026-03-01: --from is the first session drawn and --to the last; swap them');
  });

  it('one date alone, or the same date twice, is a range', () => {
    expect(parseSessionRange('2026-03-01', '2026-03-01')).toEqual({ from: '2026-03-01', to: '2026-03-01' });
    expect(parseSessionRange(undefined, '2026-03-01')).toEqual({ to: '2026-03-01' });
    expect(parseSessionRange(undefined, undefined)).toEqual({});
    expect(usageMessage(() => parseSessionRange('2026-02-30', undefined))).toContain('--from: "2026-02-30" is not a real date');
  });
});
