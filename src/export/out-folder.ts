// `export --out DIR|s3://bucket/prefix` writes views.sql, clickhouse.sql, runs/data.parquet ... at
// fixed names: in a folder or prefix that holds someone's own files of those names they would be
// replaced. One that is not empty is written to only when it is a gexwh export already (its manifest,
// or the export ledger's rows for it), or with --force.
import type { DuckDBConnection } from '@duckdb/node-api';
import { UsageError } from '../core/errors.js';
import { num, readOne } from '../warehouse/read-rows.js';
import { MANIFEST_FILE } from './manifest.js';
import type { ExportTarget } from './target.js';

/**
 * Throws a UsageError (exit 2) when the export's root (a folder or an s3:// prefix) holds files and
 * is not a gexwh export: no manifest of a previous export, no ledger rows for it.
 */
export async function refuseForeignTarget(conn: DuckDBConnection, target: ExportTarget): Promise<void> {
  const shownAtMost = 3;
  const names = await target.occupants(shownAtMost + 1);
  if (names.length === 0) return;
  if (target.listed().size > 0) return;
  const { n } = await readOne(conn, 'SELECT count(*)::BIGINT AS n FROM sync.exports WHERE out_dir = $1', [target.root], { n: num });
  if (n > 0) return;
  const shown = names.slice(0, shownAtMost);
  const what = target.local ? 'folder' : 'prefix';
  throw new UsageError(
    `export: --out ${target.root} is not empty (${shown.join(', ')}${names.length > shownAtMost ? ' and more' : ''}) and is not a gexwh export ` +
      `(no ${MANIFEST_FILE}); an export there would replace files of its names (views.sql, clickhouse.sql, runs/ ...). ` +
      `Choose a new or empty ${what}, or pass --force to write there anyway`,
    { out: target.root },
  );
}
