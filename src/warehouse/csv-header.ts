// Reads a daily file's header line and maps it to read_csv columns by NAME, so column order in the
// file does not matter, nor which optional columns it carries. read_csv with explicit `columns` is positional, so we declare one column per
// header field, in file order, under names of our own choosing (never text from the file).
import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { type CsvType, LAYOUTS, TABLE_COLUMNS } from './layouts.js';
import type { FileKind } from '../core/file-kinds.js';

export interface CsvColumn {
  /** SQL-safe name: the contract name for known columns, `extra_N` for the rest. */
  alias: string;
  type: CsvType;
}

/** A header name the layout does not know: kept, as a column of its table. */
export interface UnknownColumn {
  /** As the header spells it. */
  header: string;
  /** The table column it is stored in: the name in lower case (`file_<name>` when the table fills that name itself). */
  column: string;
  /** Its read_csv alias (`extra_N`). */
  alias: string;
}

export interface HeaderMapping {
  /** One entry per header field, in file order. */
  columns: CsvColumn[];
  /** The known, stored columns the header holds. */
  present: ReadonlySet<string>;
  /** Header names the layout does not know, kept as columns of their table. */
  unknown: UnknownColumn[];
  /** Required names absent from the header. */
  missing: string[];
  /** The header's names, trimmed, in file order (as the layouts table records them). */
  names: string[];
}

const MAX_NAME_LENGTH = 255;
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Splits a CSV header line; handles quoted names and a UTF-8 BOM. */
export function parseHeaderLine(line: string): string[] {
  const text = line.replace(/^\uFEFF/, '').replace(/\r$/, '');
  const fields: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        current += '"';
        i += 1;
      } else if (ch === '"') quoted = false;
      else current += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      fields.push(current.trim());
      current = '';
    } else current += ch;
  }
  fields.push(current.trim());
  return fields;
}

/** Pure: maps header names to typed columns for one file kind. Throws on a name no table can hold. */
export function mapHeader(kind: FileKind, names: readonly string[]): HeaderMapping {
  const layout = LAYOUTS[kind];
  const seen = new Set<string>();
  const columns: CsvColumn[] = [];
  const present = new Set<string>();
  const unknown: UnknownColumn[] = [];
  names.forEach((raw, index) => {
    const name = checkedName(raw, index).toLowerCase();
    if (seen.has(name)) throw new Error(`column "${raw}" appears twice in the header`);
    seen.add(name);
    const type = layout.known.get(name);
    if (type && !layout.ignored.has(name)) {
      columns.push({ alias: name, type });
      present.add(name);
      return;
    }
    // Read as text, so it can never fail the load; typed from its values when stored.
    columns.push({ alias: `extra_${index}`, type: 'VARCHAR' });
    if (!layout.ignored.has(name)) unknown.push({ header: raw, column: columnFor(kind, name), alias: `extra_${index}` });
  });
  const missing = layout.required.filter((name) => !seen.has(name));
  return { columns, present, unknown, missing, names: names.map((raw) => raw) };
}

/** A header name the tables can hold: no control characters, not too long; an empty one is named by its place. */
function checkedName(raw: string, index: number): string {
  if (CONTROL.test(raw)) throw new Error(`column ${index + 1} of the header has a control character in its name`);
  if (raw.length > MAX_NAME_LENGTH) throw new Error(`column ${index + 1} of the header has a name over ${MAX_NAME_LENGTH} characters`);
  return raw === '' ? `column_${index + 1}` : raw;
}

function columnFor(kind: FileKind, name: string): string {
  return TABLE_COLUMNS[kind].has(name) ? `file_${name}` : name;
}

/** Streams through gunzip until the first newline (a few KB), never the whole file. */
export async function readGzipHeaderLine(path: string, maxChars = 64 * 1024): Promise<string> {
  const source = createReadStream(path);
  const gunzip = createGunzip();
  // pipe() does not forward errors: a missing or unreadable file must fail, not hang.
  source.on('error', (error) => gunzip.destroy(error));
  source.pipe(gunzip);
  let text = '';
  try {
    for await (const chunk of gunzip) {
      text += (chunk as Buffer).toString('utf8');
      const newline = text.indexOf('\n');
      if (newline >= 0) return text.slice(0, newline).replace(/\r$/, '');
      if (text.length > maxChars) throw new Error(`no header line in the first ${maxChars} characters`);
    }
  } finally {
    source.destroy();
    gunzip.destroy();
  }
  if (text.length === 0) throw new Error('the file is empty');
  return text;
}

/** A stable key for files whose headers read identically (they can share one read_csv and one evolution). */
export function headerSignature(mapping: HeaderMapping): string {
  return mapping.columns.map((c, i) => `${c.alias}:${c.type}:${mapping.unknown.find((u) => u.alias === c.alias)?.column ?? ''}:${i}`).join(',');
}
