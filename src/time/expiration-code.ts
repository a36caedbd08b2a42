// The API names an expiration DDMMMYY (`27MAR26`); the warehouse stores the date as well.

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];

/** DDMMMYY (the API's expiration code) → YYYY-MM-DD, or null when it names no date. */
export function isoOfExpirationCode(code: string): string | null {
  const match = /^(\d{1,2})([A-Z]{3})(\d{2})$/.exec(code.toUpperCase());
  if (!match) return null;
  const month = MONTHS.indexOf(match[2]!);
  if (month < 0) return null;
  const iso = `20${match[3]}-${String(month + 1).padStart(2, '0')}-${match[1]!.padStart(2, '0')}`;
  const date = new Date(`${iso}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === iso ? iso : null;
}
