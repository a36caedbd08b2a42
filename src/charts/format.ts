// Number and time text for titles, labels, tables and tooltips: fixed formats, no locale, so output is
// the same on every machine. The functions that format values stand alone (no imports, no module
// state): the report's page runs the same source in its tooltips (report-html.ts). Times are written
// in the display zone (--tz) by time/zones.ts.
import { timeInZone } from '../time/zones.js';

/**
 * USD per 1% move → millions, to 4 significant digits: small expirations keep their detail, and the
 * files stay small with stable bytes.
 */
export function millions(value: number | null): number | null {
  return value === null ? null : Number((value / 1e6).toPrecision(4));
}

/** "1234567.5" → "1,234,567.5": commas in the whole part. */
export function groupThousands(fixed: string): string {
  const [whole, fraction] = fixed.split('.') as [string, string | undefined];
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

/** 78308.68 → "78,308.68"; 540 → "540"; 537.5 → "537.5": a strike or price as the venue quotes it. */
export function price(value: number | null): string {
  if (value === null) return '-';
  const fixed = (Math.round(value * 100) / 100).toFixed(2);
  return groupThousands(fixed.replace(/\.00$/, '').replace(/(\.\d)0$/, '$1'));
}

/** USD → "$120.5M", "$3.48M", "$0.004M" (digits by size); signed: "+$0.96M", "-$1.20M". */
export function usdMillions(value: number | null, signed = false): string {
  if (value === null) return '-';
  const m = value / 1e6;
  const abs = Math.abs(m);
  const digits = abs >= 1000 ? 0 : abs >= 100 ? 1 : abs >= 1 ? 2 : 3;
  const text = groupThousands(abs.toFixed(digits));
  const sign = m < 0 && Number(text.replace(/,/g, '')) !== 0 ? '-' : signed ? '+' : '';
  return `${sign}$${text}M`;
}

/** Distance from spot in percent: "+57.4%", "-0.30%". */
export function distancePct(value: number, spot: number): string {
  const pct = ((value - spot) / spot) * 100;
  const text = Math.abs(pct).toFixed(Math.abs(pct) >= 10 ? 1 : 2);
  return `${pct < 0 && Number(text) !== 0 ? '-' : '+'}${text}%`;
}

/** Contracts: 12345.6 → "12,346". */
export function count(value: number | null): string {
  return value === null ? '-' : groupThousands(Math.round(value).toFixed(0));
}

/** 2026-11-19T23:45:00Z → "2026-11-19 23:45 UTC"; in America/New_York "2026-11-19 18:45 EST". */
export function captureTime(iso: string, zone = 'UTC'): string {
  return zone === 'UTC' ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : timeInZone(iso, zone);
}

export function pairName(pair: { exchange: string; symbol: string }): string {
  return `${pair.exchange} ${pair.symbol}`;
}
