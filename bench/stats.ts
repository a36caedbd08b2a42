// Timing helpers and the summary of repeated runs: median with min–max, and ratios to a baseline.

export interface Sample {
  /** Wall milliseconds of each run. */
  ms: number[];
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await work();
  return { ms: performance.now() - start, value };
}

/** "1234 ms (1200–1300)" */
export function formatSample(ms: readonly number[]): string {
  const lo = Math.min(...ms);
  const hi = Math.max(...ms);
  return `${fmtMs(median(ms))} (${fmtMs(lo)}–${fmtMs(hi)})`;
}

export function fmtMs(ms: number): string {
  return ms >= 100 ? `${Math.round(ms)} ms` : `${ms.toFixed(1)} ms`;
}

export function fmtMb(bytes: number): string {
  return `${Math.round(bytes / (1024 * 1024))} MB`;
}

/** Ratio of two medians, "1.07×". */
export function ratio(ms: readonly number[], baseline: readonly number[]): string {
  return `${(median(ms) / median(baseline)).toFixed(2)}×`;
}

/** A markdown table. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}
