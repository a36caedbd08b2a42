// Date-times in every ISO 8601 spelling of a UTC instant the spec's wording allows (no seconds, a
// fraction, Z, +00:00 or +0000) are accepted and passed on in one form; a non-zero offset on a field
// the spec says is UTC is refused, named; on a plain date-time field it is converted exactly.
import { describe, expect, it } from 'vitest';
import { ENDPOINT_SCHEMAS, issuePath } from '../../src/api/schemas.js';
import { clone, VALID_BODIES } from './fixtures.js';

describe('ISO 8601 UTC date-times', () => {
  it.each([
    ['2025-03-11T00:15Z', '2025-03-11T00:15:00Z'],
    ['2025-03-11T00:15:00Z', '2025-03-11T00:15:00Z'],
    ['2025-03-11T00:15:00.250Z', '2025-03-11T00:15:00.250Z'],
    ['2025-03-11T00:15:00+00:00', '2025-03-11T00:15:00Z'],
    ['2025-03-11T00:15:00+0000', '2025-03-11T00:15:00Z'],
    ['2025-03-11T00:15+00:00', '2025-03-11T00:15:00Z'],
    ['2025-03-11T00:15:00.123456-00:00', '2025-03-11T00:15:00.123456Z'],
  ])('timestamp_utc %s is accepted as %s, and so are the meta window and timestamp', (sent, stored) => {
    const body = clone(VALID_BODIES.historyLevels);
    (body.data[0] as Record<string, unknown>).timestamp_utc = sent;
    Object.assign(body.meta as Record<string, unknown>, { start: sent, end: sent, timestamp: sent });
    const result = ENDPOINT_SCHEMAS.historyLevels.safeParse(body);
    expect(result.success, JSON.stringify(result.error?.issues)).toBe(true);
    expect(result.data!.data[0]!.timestamp_utc).toBe(stored);
    expect(result.data!.meta).toMatchObject({ start: stored, end: stored, timestamp: stored });
  });

  it('capture timestamps take the same spellings', () => {
    const body = clone(VALID_BODIES.historyTimestamps);
    (body as { data: unknown }).data = ['2025-03-11T00:15Z', '2025-03-11T00:30:00+0000'];
    expect(ENDPOINT_SCHEMAS.historyTimestamps.parse(body).data).toEqual(['2025-03-11T00:15:00Z', '2025-03-11T00:30:00Z']);
  });

  it('a non-zero offset on a UTC field is refused, saying what was expected', () => {
    const body = clone(VALID_BODIES.historyLevels);
    (body.data[0] as Record<string, unknown>).timestamp_utc = '2025-03-11T05:15:00+05:00';
    const result = ENDPOINT_SCHEMAS.historyLevels.safeParse(body);
    expect(result.success).toBe(false);
    const issue = result.error!.issues[0]!;
    expect(issuePath(issue.path)).toBe('data[0].timestamp_utc');
    expect(issue.message).toBe('expected a UTC date-time (Z or a zero offset), not one at offset +05:00');
  });

  it('a plain date-time field with an offset is converted exactly (the fraction kept as written)', () => {
    const body = clone(VALID_BODIES.me);
    (body.data.quota.requests as { reset: string }).reset = '2025-03-04T19:00:00.123456-05:00';
    (body.meta as { timestamp: string }).timestamp = '2025-03-05T05:30+05:30';
    const parsed = ENDPOINT_SCHEMAS.me.parse(body);
    expect(parsed.data.quota.requests.reset).toBe('2025-03-05T00:00:00.123456Z');
    expect(parsed.meta.timestamp).toBe('2025-03-05T00:00:00Z');
  });

  it.each(['2025-03-11', '2025-03-11T00:15:00', '2025-02-30T00:15:00Z', '2025-03-11T24:00Z', '2025-03-11 00:15:00Z', '2025-03-11T00:15:00+25:00'])(
    '%s is refused',
    (sent) => {
      const body = clone(VALID_BODIES.me);
      (body.meta as { timestamp: string }).timestamp = sent;
      expect(ENDPOINT_SCHEMAS.me.safeParse(body).success).toBe(false);
    },
  );
});
