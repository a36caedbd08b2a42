// The benchmark's arithmetic: medians, ratios and the table format RESULTS.md is built from.
import { describe, expect, it } from 'vitest';
import { formatSample, median, ratio, table } from '../../bench/stats.js';

describe('bench stats', () => {
  it('median of odd and even samples, NaN when empty', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
  });

  it('ratio of medians and a sample with its min–max', () => {
    expect(ratio([10, 30, 20], [10, 10, 10])).toBe('2.00×');
    expect(formatSample([1200, 1000, 1100])).toBe('1100 ms (1000 ms–1200 ms)');
  });

  it('markdown table', () => {
    expect(table(['a', 'b'], [['1', '2']])).toBe('| a | b |\n| --- | --- |\n| 1 | 2 |');
  });
});
