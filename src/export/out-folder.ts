// `export --out DIR` writes views.sql, clickhouse.sql, runs/data.parquet ... at fixed names: in a folder
// that holds someone's own files of those names they would be replaced. A folder that is not empty is
// written to only when it is a gexwh export already (its manifest, or the export ledger's rows for
// it), or with --force.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { UsageError } from '../core/errors.js';
import { num, readOne } from '../warehouse/read-rows.js';
import { MANIFEST_FILE } from './manifest.js';
import { localManifestPaths } from './target.js';

/** Throws a UsageError (exit 2) when `outDir` holds files and is not a gexwh export; `ignore`: names gexwh itself leaves (staging). */
export async function refuseForeignFolder(conn: DuckDBConnection, outDir: string, ignore: (name: string) => boolean): Promise<void> {
  const names = entriesOf(outDir).filter((name) => !ignore(name));
  if (names.length === 0) return;
  if (localManifestPaths(outDir).size > 0) return;
  const { n } = await readOne(conn, 'SELECT count(*)::BIGINT AS n FROM sync.exports WHERE out_dir = $1', [outDir], { n: num });
  if (n > 0) return;
  const shown = names.slice(0, 3).map((name) => join(outDir, name));
  throw new UsageError(
    `export: --out ${outDir} is not empty (${shown.join(', ')}${names.length > 3 ? ` and ${names.length - 3} more` : ''}) and is not a gexwh export ` +
      `(no ${MANIFEST_FILE}); an export there would replace files of its names (views.sql, clickhouse.sql, runs/ ...). ` +
      'Choose a new or empty folder, or pass --force to write there anyway',
    { out: outDir },
  );
}

function entriesOf(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
