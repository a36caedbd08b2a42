// Number and time text for titles, labels and tables: fixed formats, no locale, so output is the same
// on every machine.

/**
 * USD per 1% move → millions, to 4 significant digits: small expirations keep their detail, and the
 * files stay small with stable bytes.
 */
export function millions(value: number | null): number | null {
  return value === null ? null : Number((value / 1e6).toPrecision(4));
}

/** 78308.68 → "78,308.68"; 540 → "540". */
export function price(value: number | null): string {
  if (value === null) return '-';
  const [whole, fraction] = (Math.round(value * 100) / 100).toFixed(2).split('.') as [string, string];
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === '00' ? grouped : `${grouped}.${fraction}`;
}

/** 2026-11-19T23:45:00Z → "2026-11-19 23:45 UTC". */
export function captureTime(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

export function pairName(pair: { exchange: string; symbol: string }): string {
  return `${pair.exchange} ${pair.symbol}`;
}
