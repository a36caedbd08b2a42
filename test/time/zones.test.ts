// Display time zones: the check of --tz and config timeZone, and a capture time written in a zone.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isTimeZone, timeInZone } from '../../src/time/zones.js';
import { runCliInProcess } from '../helpers/cli.js';

describe('display time zones', () => {
  it('UTC and IANA names are zones; anything else is not', () => {
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('America/New_York')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('')).toBe(false);
  });

  it('writes a UTC instant in the zone, with its abbreviation (daylight time included)', () => {
    expect(timeInZone('2026-03-16T14:00:00Z', 'UTC')).toBe('2026-03-16 14:00 UTC');
    expect(timeInZone('2026-03-16T14:00:00Z', 'America/New_York')).toBe('2026-03-16 10:00 EDT');
    expect(timeInZone('2026-01-16T21:00:00Z', 'America/New_York')).toBe('2026-01-16 16:00 EST');
  });

  it('--tz with an unknown zone is exit 2 naming it and an example; so is config timeZone', async () => {
    const flag = await runCliInProcess(['levels', '--tz', 'Mars/Olympus']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('Mars/Olympus');
    expect(flag.stderr).toContain('America/New_York');
    const dir = mkdtempSync(join(tmpdir(), 'gexwh-tz-'));
    try {
      writeFileSync(join(dir, 'gexwh.config.json'), JSON.stringify({ timeZone: 'Mars/Olympus' }));
      const config = await runCliInProcess(['levels'], { cwd: dir });
      expect(config.code).toBe(2);
      expect(config.stderr).toContain('timeZone');
      expect(config.stderr).toContain('America/New_York');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
