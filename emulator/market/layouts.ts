// Daily file layouts that disagree with the design on purpose. The spec names only five file columns,
// so a real server may write fewer, more, other or reordered columns, CRLF line ends, a BOM, quoted
// numbers or numbers in exponent form. The design layout is written straight as bytes (model.ts);
// any other is the design CSV rewritten here, row by row, from the same values.

import { FILE_HEADERS } from './files.js';
import { LAYOUT_NAMES, type CustomLayout, type FileKind, type FileLayoutOption } from './types.js';

export { LAYOUT_NAMES, type CustomLayout, type FileLayoutOption, type LayoutName } from './types.js';

const LEAN: CustomLayout['columns'] = {
  levels: ['timestamp_utc', 'expiration', 'spot', 'flip', 'net_gex', 'call_gex', 'put_gex', 'max_pain', 'gamma_tilt', 'venue_set'],
  strikes_total: ['timestamp_utc', 'strike', 'strike_call_gex', 'strike_put_gex'],
  strikes_by_expiry: ['timestamp_utc', 'expiration', 'strike', 'strike_call_gex', 'strike_put_gex'],
};

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** A fixed permutation (a stride through the list, coprime with its length), so `shuffled` is the same every run. */
function shuffle(names: readonly string[]): string[] {
  let stride = 7;
  while (gcd(stride, names.length) !== 1) stride++;
  return names.map((_, i) => names[(i * stride + 3) % names.length] as string);
}

const EXTRAS = ['gamma_tilt', 'venue_set'];

/** The layout a name stands for, spelled out; undefined for the design (written as bytes, untouched). */
export function resolveLayout(layout: FileLayoutOption | undefined): CustomLayout | undefined {
  if (layout === undefined || layout === 'design') return undefined;
  if (typeof layout !== 'string') return layout;
  const kinds = Object.keys(FILE_HEADERS) as FileKind[];
  const columns = (pick: (kind: FileKind) => readonly string[]) => Object.fromEntries(kinds.map((kind) => [kind, pick(kind)])) as CustomLayout['columns'];
  if (layout === 'lean') return { columns: LEAN };
  if (layout === 'shuffled') return { columns: columns((kind) => shuffle(FILE_HEADERS[kind])) };
  if (layout === 'wide') return { columns: columns((kind) => [...FILE_HEADERS[kind], ...EXTRAS]) };
  throw new RangeError(`unknown layout ${String(layout)}: expected one of ${LAYOUT_NAMES.join(', ')}`);
}

export const isTextExtra = (name: string): boolean => /^text_|_set$/.test(name);

/** The value the emulator writes in an extra column on data row `row` (0-based). */
export function extraValue(name: string, row: number): string | number {
  return isTextExtra(name) ? `t${row}` : row / 4;
}

/** Design columns that hold text or dates, never written as numbers. */
const NOT_NUMBERS = new Set(['timestamp_utc', 'session_date', 'type', 'exchange', 'symbol', 'oi_date', 'expiration', 'regime']);

/** Splits a design CSV line (its text fields are quoted only when they hold a comma or quote). */
function splitLine(line: string): string[] {
  const fields: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted && ch === '"' && line[i + 1] === '"') {
      current += '"';
      i++;
    } else if (ch === '"') quoted = !quoted;
    else if (ch === ',' && !quoted) {
      fields.push(current);
      current = '';
    } else current += ch;
  }
  fields.push(current);
  return fields;
}

function numberText(value: string, layout: CustomLayout): string {
  const text = layout.exponent ? Number(value).toExponential() : value;
  return layout.quoteNumbers ? `"${text}"` : text;
}

/** One field of the rewritten row: the design value (reformatted), an empty one, or an extra's. */
function fieldOf(name: string, index: number | undefined, fields: readonly string[], row: number, layout: CustomLayout, schemaVersion: number): string {
  if (index === undefined) {
    const value = extraValue(name, row);
    return typeof value === 'number' ? numberText(String(value), layout) : value;
  }
  if (layout.blank?.includes(name)) return '';
  const value = name === 'schema_version' ? String(schemaVersion) : (fields[index] ?? '');
  if (value === '' || NOT_NUMBERS.has(name)) return value.includes(',') || value.includes('"') ? `"${value.replaceAll('"', '""')}"` : value;
  return numberText(value, layout);
}

/** Rewrites a design CSV (header line first, `\n` line ends) into `layout`, with `schemaVersion` in its schema_version column. */
export function relayout(csv: string, kind: FileKind, layout: CustomLayout, schemaVersion: number): string {
  const design: readonly string[] = FILE_HEADERS[kind];
  const positions = new Map(design.map((name, i) => [name, i]));
  const columns = layout.columns[kind];
  const eol = layout.crlf ? '\r\n' : '\n';
  const lines = csv.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const header = columns.join(',');
  const out: string[] = [`${layout.bom ? '\uFEFF' : ''}${layout.upperCaseHeader ? header.toUpperCase() : header}`];
  for (let row = 0; row + 1 < lines.length; row++) {
    const fields = splitLine(lines[row + 1] as string);
    out.push(columns.map((name) => fieldOf(name, positions.get(name), fields, row, layout, schemaVersion)).join(','));
  }
  return out.join(eol) + eol;
}
