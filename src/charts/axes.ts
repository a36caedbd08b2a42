// Axis ranges the charts set themselves, pure: a strike axis that fits the bars, and two value axes
// whose zeros sit at the same height with the same tick rows (a line on the right axis crosses zero
// exactly where it meets the left axis's zero line).

export interface Extent {
  min: number;
  max: number;
}

export interface AxisScale extends Extent {
  interval: number;
}

/** The first and last strike (1% either side of a lone strike, so the axis has a width). */
export function strikeAxisRange(strikes: number[]): Extent {
  if (strikes.length === 0) return { min: 0, max: 1 };
  const first = Math.min(...strikes);
  const last = Math.max(...strikes);
  if (first < last) return { min: first, max: last };
  const margin = Math.max(Math.abs(first) * 0.01, 1);
  return { min: clean(first - margin), max: clean(last + margin) };
}

const NICE = [1, 2, 2.5, 5, 10];

/** The smallest 1, 2, 2.5 or 5 × 10^k that is at least `raw`. */
export function niceStep(raw: number): number {
  if (!(raw > 0) || !Number.isFinite(raw)) return 1;
  // Below 1e-12 (of $M, of contracts) nothing is worth a tick of its own.
  const power = 10 ** Math.floor(Math.log10(Math.max(raw, 1e-12)));
  const factor = NICE.find((n) => n * power >= raw * (1 - 1e-12)) as number;
  return clean(factor * power);
}

/**
 * Scales for several value axes that share their tick rows (5 to 8 of them) with zero on the same
 * row: each axis gets a nice interval, and the rows are the ones that waste the least of the axes'
 * height. With `ticks`, exactly that many rows.
 */
export function alignedZeroAxes(extents: Extent[], ticks?: number): AxisScale[] {
  let best: { waste: number; scales: AxisScale[] } | undefined;
  for (const rows of ticks === undefined ? [5, 6, 7, 8] : [ticks]) {
    for (let below = 0; below <= rows; below++) {
      const scales = extents.map((e) => scaleWith(e, below, rows - below));
      if (scales.some((s) => s === undefined)) continue;
      const fitted = scales as AxisScale[];
      const waste = fitted.reduce((sum, s, i) => sum + (s.max - s.min) / span(extents[i] as Extent), 0);
      if (best === undefined || waste < best.waste - 1e-9) best = { waste, scales: fitted };
    }
  }
  // Every extent holds zero, so half the rows below and half above always fits.
  return (best as { scales: AxisScale[] }).scales;
}

function scaleWith(extent: Extent, below: number, above: number): AxisScale | undefined {
  const down = Math.max(0, -extent.min);
  const up = Math.max(0, extent.max);
  if ((down > 0 && below === 0) || (up > 0 && above === 0)) return undefined;
  const interval = niceStep(Math.max(below === 0 ? 0 : down / below, above === 0 ? 0 : up / above));
  return { min: clean(-below * interval), max: clean(above * interval), interval };
}

function span(extent: Extent): number {
  return Math.max(extent.max - extent.min, Number.EPSILON);
}

/** 0.30000000000000004 → 0.3: tick values are shown as text. */
function clean(value: number): number {
  return Number(value.toPrecision(12)) + 0;
}
