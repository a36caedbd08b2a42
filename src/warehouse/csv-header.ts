// Reads a daily file's header line and maps it to read_csv columns by NAME, so column order in the
// file does not matter. read_csv with explicit `columns` is positional, so we declare one column per
// header field, in file order, under names of our own choosing (never text from the file).
import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { type CsvType, LAYOUTS } from './layouts.js';
import type { FileKind } from '../core/file-kinds.js';

export interface CsvColumn {
  /** SQL-safe name: the contract name for known columns, `extra_N` for the rest. */
  alias: string;
  type: CsvType;
}

export interface HeaderMapping {
  /** One entry per header field, in file order. */
  columns: CsvColumn[];
  /** Header names the layout does not know (ignored, reported once). */
  unknown: string[];
  /** Required names absent from the header. */
  missing: string[];
}

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

/** Pure: maps header names to typed columns for one file kind. */
export function mapHeader(kind: FileKind, names: readonly string[]): HeaderMapping {
  const layout = LAYOUTS[kind];
  const seen = new Set<string>();
  const columns: CsvColumn[] = [];
  const unknown: string[] = [];
  names.forEach((raw, index) => {
    const name = raw.toLowerCase();
    if (seen.has(name)) throw new Error(`column "${raw}" appears twice in the header`);
    seen.add(name);
    const type = layout.required.get(name);
    if (type) columns.push({ alias: name, type });
    else {
      // Unknown or deliberately ignored: read as text so it can never fail the load.
      columns.push({ alias: `extra_${index}`, type: 'VARCHAR' });
      if (!layout.ignored.has(name)) unknown.push(raw);
    }
  });
  const missing = [...layout.required.keys()].filter((name) => !seen.has(name));
  return { columns, unknown, missing };
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

/** A stable key for files whose headers read identically (they can share one read_csv). */
export function headerSignature(columns: readonly CsvColumn[]): string {
  return columns.map((c) => `${c.alias}:${c.type}`).join(',');
}
