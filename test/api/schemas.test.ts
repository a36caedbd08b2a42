import { describe, expect, it } from 'vitest';
import { CoverageRowSchema, ENDPOINT_SCHEMAS, issuePath, ManifestRowSchema, type EndpointName } from '../../src/api/schemas.js';
import { clone, coverageRow, manifestRow, VALID_BODIES } from './fixtures.js';

describe('endpoint schemas', () => {
  it.each(Object.keys(VALID_BODIES) as EndpointName[])('%s accepts a spec-shaped body with extra fields', (name) => {
    const body = clone(VALID_BODIES[name]) as Record<string, unknown>;
    body.extra_top = 1;
    (body.meta as Record<string, unknown>).extra_meta = 'x';
    const result = ENDPOINT_SCHEMAS[name].safeParse(body);
    expect(result.success, JSON.stringify(result.error?.issues)).toBe(true);
    expect((result.data as Record<string, unknown>).extra_top).toBe(1);
  });

  it('a missing required field fails with its path', () => {
    const body = clone(VALID_BODIES.historyLevels);
    delete (body.data[0] as Record<string, unknown>).flip_count;
    const result = ENDPOINT_SCHEMAS.historyLevels.safeParse(body);
    expect(result.success).toBe(false);
    expect(issuePath(result.error!.issues[0]!.path)).toBe('data[0].flip_count');
  });

  it('null is accepted where the spec allows it, but not a missing key', () => {
    const body = clone(VALID_BODIES.historyLevels);
    (body.data[0] as Record<string, unknown>).spot = null;
    expect(ENDPOINT_SCHEMAS.historyLevels.safeParse(body).success).toBe(true);
    delete (body.meta as Record<string, unknown>).next_cursor;
    const result = ENDPOINT_SCHEMAS.historyLevels.safeParse(body);
    expect(issuePath(result.error!.issues[0]!.path)).toBe('meta.next_cursor');
  });
});

describe('manifest rows (values that reach paths and SQL)', () => {
  it('lower-cases sha256', () => {
    expect(ManifestRowSchema.parse(manifestRow({ sha256: 'AB'.repeat(32) })).sha256).toBe('ab'.repeat(32));
  });

  it.each([
    ['session_date', '2025-3-3'],
    ['session_date', '../../etc'],
    ['session_date', '2025-02-30'],
    ['file', 'levels.csv'],
    ['file', '../levels'],
    ['sha256', 'ab'.repeat(31)],
    ['sha256', 'zz'.repeat(32)],
    ['rows', -1],
    ['rows', 1.5],
    ['bytes', '12'],
    ['schema_version', null],
  ])('refuses %s = %j', (field, value) => {
    const result = ManifestRowSchema.safeParse(manifestRow({ [field]: value }));
    expect(result.success).toBe(false);
    expect(issuePath(result.error!.issues[0]!.path)).toBe(field);
  });
});

describe('coverage rows', () => {
  it.each([
    ['symbol', '..'],
    ['symbol', 'btc'],
    ['symbol', 'BT/C'],
    ['symbol', ''],
    ['exchange', '../x'],
    ['exchange', 'Deribit'],
    ['files_last_date', '2025/03/03'],
    ['sessions', -2],
  ])('refuses %s = %j', (field, value) => {
    const result = CoverageRowSchema.safeParse(coverageRow({ [field]: value }));
    expect(result.success).toBe(false);
    expect(issuePath(result.error!.issues[0]!.path)).toBe(field);
  });

  it('accepts dotted and dashed tickers and null file dates', () => {
    expect(CoverageRowSchema.safeParse(coverageRow({ symbol: 'BRK.B', files_first_date: null, files_last_date: null })).success).toBe(true);
  });
});
