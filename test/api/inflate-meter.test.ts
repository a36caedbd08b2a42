import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { createInflateMeter, maxInflatedBytes } from '../../src/api/inflate-meter.js';

async function measure(body: Buffer, cap: number, chunk = 16 * 1024) {
  const meter = createInflateMeter(cap);
  for (let at = 0; at < body.length; at += chunk) await meter.write(body.subarray(at, at + chunk));
  await meter.end();
  return { inflated: meter.inflated, exceeded: meter.exceeded };
}

describe('inflate meter', () => {
  it('counts a normal gzip to its inflated size', async () => {
    const csv = Buffer.from('a,b,c\n'.repeat(10_000));
    expect(await measure(gzipSync(csv), 1024 * 1024)).toEqual({ inflated: csv.length, exceeded: false });
  });

  it('stops a bomb soon after its cap: 200 MB of zeros in a ~200 KB gzip', async () => {
    const bomb = gzipSync(Buffer.alloc(200 * 1024 * 1024));
    expect(bomb.length).toBeLessThan(400 * 1024);
    const result = await measure(bomb, 1024 * 1024);
    expect(result.exceeded).toBe(true);
    // Inflation stops near the cap instead of running through the 200 MB.
    expect(result.inflated).toBeLessThan(64 * 1024 * 1024);
  });

  it('a body that is not a gzip is left to the sha256 check: no error, not exceeded', async () => {
    expect((await measure(Buffer.from('not a gzip at all'), 10)).exceeded).toBe(false);
  });

  it('allows 4 KiB a declared row plus 256 KiB', () => {
    expect(maxInflatedBytes(0)).toBe(256 * 1024);
    expect(maxInflatedBytes(1000)).toBe(1000 * 4096 + 256 * 1024);
  });
});
