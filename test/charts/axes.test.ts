// The axis ranges the charts set themselves: a strike axis fitted to the bars, nice steps, and value
// axes whose zeros share a tick row.
import { fc, test as fcTest } from '../helpers/property.js';
import { describe, expect, it } from 'vitest';
import { alignedZeroAxes, niceStep, strikeAxisRange } from '../../src/charts/axes.js';

describe('strikeAxisRange', () => {
  it('runs from the first strike to the last (ECharts adds half a step for the outer bars), a lone strike ±1%', () => {
    expect(strikeAxisRange([70_500, 70_000, 72_000, 86_000])).toEqual({ min: 70_000, max: 86_000 });
    expect(strikeAxisRange([520, 537.5, 540])).toEqual({ min: 520, max: 540 });
    expect(strikeAxisRange([100])).toEqual({ min: 99, max: 101 });
  });
});

describe('niceStep', () => {
  it('rounds up to 1, 2, 2.5 or 5 times a power of ten', () => {
    expect([0.7, 1, 1.2, 2.2, 2.6, 7, 120, 0.03].map(niceStep)).toEqual([1, 1, 2, 2.5, 5, 10, 200, 0.05]);
  });
});

describe('alignedZeroAxes', () => {
  it('puts both zeros on one tick row', () => {
    expect(
      alignedZeroAxes(
        [
          { min: -6, max: 4 },
          { min: -0.8, max: 12 },
        ],
        6,
      ),
    ).toEqual([
      { min: -6, max: 6, interval: 2 },
      { min: -15, max: 15, interval: 5 },
    ]);
    expect(
      alignedZeroAxes(
        [
          { min: -6, max: 4 },
          { min: -8, max: 0.5 },
        ],
        6,
      ),
    ).toEqual([
      { min: -8, max: 4, interval: 2 },
      { min: -8, max: 4, interval: 2 },
    ]);
  });

  const extent = fc.tuple(fc.double({ min: -1e4, max: 0, noNaN: true }), fc.double({ min: 0, max: 1e4, noNaN: true })).map(([min, max]) => ({ min, max }));
  fcTest.prop([fc.array(extent, { minLength: 1, maxLength: 3 })])('every axis holds its values, and all share the tick rows and the row of zero', (extents) => {
    const scales = alignedZeroAxes(extents);
    const zeroRow = (s: { min: number; interval: number }) => Math.round(-s.min / s.interval);
    const rows = (s: { min: number; max: number; interval: number }) => Math.round((s.max - s.min) / s.interval);
    scales.forEach((s, i) => {
      expect(s.min).toBeLessThanOrEqual(extents[i]!.min);
      expect(s.max).toBeGreaterThanOrEqual(extents[i]!.max);
      expect(rows(s)).toBe(rows(scales[0]!));
      expect(rows(s)).toBeGreaterThanOrEqual(5);
      expect(rows(s)).toBeLessThanOrEqual(8);
      expect(zeroRow(s)).toBe(zeroRow(scales[0]!));
    });
  });
});
