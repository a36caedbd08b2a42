// Every table, view and macro a fresh warehouse holds, and every column of its tables and views, is
// documented in docs/warehouse.md, and every entry there names something the catalog holds: the
// reference cannot fall behind a migration or sql/views.sql, nor keep a name they dropped. A fresh
// warehouse holds no column added at load time for an unknown file column (schema on read): those are
// data, not catalog, so every column read here is one the migrations create.
//
// Where the doc documents a name (an "entry"):
//   - a heading that is only the name in backticks (## `levels`): the first cells of the section's
//     table rows, header rows left out, list its columns;
//   - a table row whose first cell starts with the name in backticks (| `sync.files` | ..., or
//     | `levels_asof(exch, ...)` | ...): the row's other cells list its columns;
//   - a bullet starting with the name in backticks and a dash (- `live_levels` — ...): the bullet,
//     from its "Columns:" on when it has one.
// A table macro's columns are those of a sample call (SAMPLE_CALLS); pit_levels gets a table of the
// columns its entry asks for. A column is documented when its name is a word of its relation's entry. A cell that reads
// "as `X`" or starts "the columns of `X`" (or "your columns, then those of `X`") lists X's documented columns too ("as in `X`" only says a
// column means what it does in X, and lists nothing). A name ending in a period (`spot_delta_1d`) may
// be written with the placeholder N (`spot_delta_N`).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWarehouse, type Warehouse } from '../../src/warehouse/open.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOC = 'docs/warehouse.md';

type Kind = 'table' | 'view' | 'macro';
interface Relation {
  /** As the doc writes it: `levels`, `sync.files`. */
  name: string;
  kind: Kind;
  columns: string[];
}

const NAME = String.raw`(?:sync\.)?[a-z_][a-z0-9_]*`;
const HEADING = new RegExp(String.raw`^#{2,}\s+\x60(${NAME})\x60\s*$`);
const ROW = new RegExp(String.raw`^\|\s*\x60(${NAME})[(\x60]`);
const BULLET = new RegExp(String.raw`^- \x60(${NAME})\x60(?: \([^)]*\))? [—–-] `);
const INHERIT = new RegExp(String.raw`^\s*(?:as|the columns of|your columns, then those of) \x60(${NAME})\x60`);
const SEPARATOR = /^\|[\s|:-]+\|\s*$/;

/** Each documented name and the texts that list its columns, fenced code left out. */
function docEntries(markdown: string): Map<string, string[]> {
  const entries = new Map<string, string[]>();
  const add = (name: string, text: string): void => {
    entries.set(name, [...(entries.get(name) ?? []), text]);
  };
  const lines = stripFences(markdown).split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const heading = HEADING.exec(line);
    const row = ROW.exec(line);
    const bullet = BULLET.exec(line);
    if (heading?.[1] !== undefined) add(heading[1], sectionRows(lines, i + 1));
    else if (row?.[1] !== undefined) add(row[1], line.split('|').slice(2).join('|'));
    else if (bullet?.[1] !== undefined) add(bullet[1], bulletText(lines, i));
  }
  return entries;
}

function stripFences(markdown: string): string {
  return markdown.replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, '');
}

/** The first cells of the table rows of a heading's section (up to the next heading), header rows left out. */
function sectionRows(lines: string[], from: number): string {
  const rows: string[] = [];
  for (let i = from; i < lines.length && !/^#/.test(lines[i] ?? ''); i++) {
    const line = lines[i] ?? '';
    const isHeader = SEPARATOR.test(lines[i + 1] ?? '');
    if (line.startsWith('|') && !isHeader && !SEPARATOR.test(line)) rows.push(line.split('|')[1] ?? '');
  }
  return rows.join('\n');
}

/** A bullet and its indented continuation lines, from "Columns:" on when it says so. */
function bulletText(lines: string[], at: number): string {
  let text = lines[at] ?? '';
  for (let i = at + 1; i < lines.length && /^\s+\S/.test(lines[i] ?? ''); i++) text += `\n${lines[i]}`;
  const columns = text.indexOf('Columns:');
  return columns < 0 ? text : text.slice(columns);
}

/** The words an entry documents as columns of `name`, with those of the entries it says it is "as". */
function documentedColumns(entries: Map<string, string[]>, name: string, seen = new Set<string>()): Set<string> {
  const words = new Set<string>();
  if (seen.has(name)) return words;
  seen.add(name);
  for (const text of entries.get(name) ?? []) {
    for (const word of text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) words.add(word);
    for (const cell of text.split('|')) {
      const from = INHERIT.exec(cell)?.[1];
      if (from !== undefined) for (const word of documentedColumns(entries, from, seen)) words.add(word);
    }
  }
  return words;
}

/** The catalog's names and columns missing from the doc, each said with where it was looked for. */
function undocumented(relations: Relation[], markdown: string): string[] {
  const entries = docEntries(markdown);
  const gaps: string[] = [];
  for (const { name, kind, columns } of relations) {
    if (!entries.has(name)) {
      gaps.push(`${kind} ${name}: no entry in ${DOC} (a heading, table row or bullet naming \`${name}\`)`);
      continue;
    }
    const words = documentedColumns(entries, name);
    const missing = columns.filter((c) => !words.has(c) && !words.has(c.replace(/_\d+d$/, '_N')));
    if (missing.length > 0) gaps.push(`${kind} ${name}: column(s) ${missing.join(', ')} not named in its entry in ${DOC}`);
  }
  return gaps;
}

/** A call of each table macro, to read the columns it returns. */
const SAMPLE_CALLS: Record<string, string> = {
  levels_asof: `levels_asof('deribit', 'BTC', now())`,
  strikes_asof: `strikes_asof('deribit', 'BTC', now())`,
  pit_levels: `pit_levels('probe')`,
  nearest_walls: `nearest_walls()`,
  regime_returns: `regime_returns('deribit', 'BTC')`,
  flip_crossings: `flip_crossings('deribit', 'BTC')`,
};

async function macroColumns(wh: Warehouse, name: string): Promise<string[]> {
  const call = SAMPLE_CALLS[name];
  if (call === undefined) return [];
  const reader = await wh.connection.runAndReadAll(`DESCRIBE SELECT * FROM ${call}`);
  return reader.getRowObjectsJson().map((r) => String(r.column_name));
}

async function readCatalog(wh: Warehouse): Promise<Relation[]> {
  const reader = await wh.connection.runAndReadAll(`
    WITH rels AS (
      SELECT schema_name, table_name AS name, 'table' AS kind FROM duckdb_tables()
       WHERE database_name = current_database() AND NOT internal AND NOT temporary
      UNION ALL
      SELECT schema_name, view_name, 'view' FROM duckdb_views()
       WHERE database_name = current_database() AND NOT internal AND NOT temporary
      UNION ALL
      SELECT DISTINCT schema_name, function_name, 'macro' FROM duckdb_functions()
       WHERE database_name = current_database() AND NOT internal AND function_type IN ('macro', 'table_macro')
    )
    SELECT CASE r.schema_name WHEN 'main' THEN '' ELSE r.schema_name || '.' END || r.name AS name, r.kind,
           list(c.column_name ORDER BY c.column_index) FILTER (WHERE c.column_name IS NOT NULL) AS columns
      FROM rels r
      LEFT JOIN duckdb_columns() c
        ON c.database_name = current_database() AND c.schema_name = r.schema_name AND c.table_name = r.name
     GROUP BY ALL ORDER BY ALL`);
  const relations = reader.getRowObjectsJson().map((r) => ({
    name: String(r.name),
    kind: String(r.kind) as Kind,
    columns: (r.columns as string[] | null) ?? [],
  }));
  return relations;
}

describe(`${DOC} documents the catalog of a fresh warehouse`, () => {
  let wh: Warehouse;
  let catalog: Relation[];
  const markdown = readFileSync(join(ROOT, DOC), 'utf8');

  beforeAll(async () => {
    wh = await openWarehouse(':memory:');
    // Read before the probe exists: a temp table is no part of the catalog.
    catalog = await readCatalog(wh);
    await wh.connection.run('CREATE TEMP TABLE probe (exchange VARCHAR, symbol VARCHAR, ts TIMESTAMPTZ)');
    for (const r of catalog) if (r.kind === 'macro') r.columns = await macroColumns(wh, r.name);
  });
  afterAll(() => wh.close());

  it('reads the catalog it checks: the three history tables, sync state, views and macros with their columns', () => {
    const names = catalog.map((r) => `${r.kind} ${r.name}`);
    for (const n of ['table levels', 'table sync.files', 'view levels_compare', 'macro pit_levels']) expect(names).toContain(n);
    expect(catalog.find((r) => r.name === 'levels_compare')?.columns).toContain('spot_delta_30d');
    expect(catalog.find((r) => r.name === 'pit_levels')?.columns.slice(0, 4)).toEqual(['exchange', 'symbol', 'ts', 'session_date']);
    // A macro added without a sample call would have its columns go unchecked.
    expect(catalog.filter((r) => r.kind === 'macro' && SAMPLE_CALLS[r.name] === undefined).map((r) => r.name)).toEqual([]);
  });

  it('every table, view and macro has an entry naming each of its columns', () => {
    expect(undocumented(catalog, markdown)).toEqual([]);
  });

  it('every entry names a table, view or macro the warehouse holds', () => {
    const held = new Set(catalog.map((r) => r.name));
    const stale = [...docEntries(markdown).keys()].filter((n) => !held.has(n));
    expect(stale.map((n) => `${DOC}: \`${n}\` is documented but no table, view or macro of the warehouse`)).toEqual([]);
  });

  it('every `sync.table` or `sync.table.column` README.md and docs/ name exists', () => {
    const columns = new Map(catalog.map((r) => [r.name, new Set(r.columns)]));
    const docs = [
      'README.md',
      ...readdirSync(join(ROOT, 'docs'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `docs/${f}`),
    ];
    const stale: string[] = [];
    for (const doc of docs) {
      for (const [, table, column] of readFileSync(join(ROOT, doc), 'utf8').matchAll(/`(sync\.[a-z_]+)(?:\.([a-z_]+))?[`\s]/g)) {
        const held = columns.get(table ?? '');
        if (held === undefined) stale.push(`${doc}: \`${table}\` is no table of the warehouse`);
        else if (column !== undefined && !held.has(column)) stale.push(`${doc}: \`${table}.${column}\` is no column of ${table}`);
      }
    }
    expect(stale).toEqual([]);
  });
});

describe('the matching rule', () => {
  const doc = [
    '## `t`',
    '| column | type | meaning |',
    '|---|---|---|',
    '| a, b | DOUBLE | the type of c |',
    '',
    '| name | what | columns |',
    '|---|---|---|',
    '| `v` | a view | as `t` |',
    '| `w` | per period N | the columns of `v`, then x_N |',
    '| `m(p, q := 1)` | a macro | y |',
    '- `l` (with `--flag`) — prose y. Columns: `z`.',
    '- `k`: not an entry',
    '```sql',
    '| `fenced` | x | y |',
    '```',
  ].join('\n');

  it('finds headings, rows and dashed bullets, outside code fences', () => {
    expect([...docEntries(doc).keys()].sort()).toEqual(['l', 'm', 't', 'v', 'w']);
  });

  it('counts the listed words, follows "as `X`", expands _N, and names what is missing and where', () => {
    const rels: Relation[] = [
      { name: 't', kind: 'table', columns: ['a', 'b', 'type'] },
      { name: 'v', kind: 'view', columns: ['a', 'b'] },
      { name: 'w', kind: 'view', columns: ['a', 'x_1d', 'x_30d'] },
      { name: 'l', kind: 'table', columns: ['z', 'y'] },
      { name: 'gone', kind: 'macro', columns: [] },
    ];
    expect(undocumented(rels, doc)).toEqual([
      `table t: column(s) type not named in its entry in ${DOC}`,
      `table l: column(s) y not named in its entry in ${DOC}`,
      `macro gone: no entry in ${DOC} (a heading, table row or bullet naming \`gone\`)`,
    ]);
  });
});
