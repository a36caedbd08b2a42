// The text of `gexwh levels`: one row per pair, the numbers written as the charts write them. The
// two kinds of walls carry their definitions in their column names, so they cannot be confused: the
// API's (the chain's largest +/- net GEX strikes, p1/n1) and the nearest (within --range of spot).
import { price, usdMillions } from '../charts/format.js';
import { timeInZone } from '../time/zones.js';
import type { DeskLevels } from '../desk/levels.js';
import type { Row } from './output.js';

/** +326.15, -1,234.5: a change in price, signed. */
function signedPrice(value: number | null): string {
  if (value === null) return '-';
  return `${value < 0 ? '-' : '+'}${price(Math.abs(value))}`;
}

function percent(value: number | null, signed: boolean): string {
  if (value === null) return '-';
  const text = Math.abs(value).toFixed(2);
  const sign = value < 0 && Number(text) !== 0 ? '-' : signed ? '+' : '';
  return `${sign}${text}%`;
}

/** "2026-03-16 14:00 UTC intraday": the capture, and whether it is a session's close. */
export function captureLabel(line: Pick<DeskLevels, 'captured_at' | 'type'>, zone = 'UTC'): string {
  return `${timeInZone(line.captured_at, zone)} ${line.type ?? 'type unknown'}`;
}

/** The column names of the text table; the walls' names say their rule. */
export function levelsColumns(rangePct: number): string[] {
  return [
    'pair',
    'capture',
    'spot',
    'spot Δ1d',
    'spot Δ7d',
    'flip',
    'to flip',
    'flip Δ1d',
    'flip Δ7d',
    'regime',
    'net GEX',
    'API call wall (p1)',
    'API put wall (n1)',
    `nearest call wall (±${rangePct}%)`,
    `nearest put wall (±${rangePct}%)`,
    '0DTE share',
  ];
}

export function levelsRow(line: DeskLevels, zone = 'UTC'): Row {
  const values = [
    `${line.exchange} ${line.symbol}`,
    captureLabel(line, zone),
    price(line.spot),
    signedPrice(line.spot_delta_1d),
    signedPrice(line.spot_delta_7d),
    price(line.flip),
    percent(line.flip_distance_pct, true),
    signedPrice(line.flip_delta_1d),
    signedPrice(line.flip_delta_7d),
    line.regime ?? '-',
    usdMillions(line.net_gex),
    price(line.api_call_wall),
    price(line.api_put_wall),
    price(line.nearest_call_wall),
    price(line.nearest_put_wall),
    percent(line.zero_dte_share === null ? null : line.zero_dte_share * 100, false),
  ];
  return Object.fromEntries(levelsColumns(line.range_pct).map((column, i) => [column, values[i]]));
}
