// A fresh folder per test inside a test file's temp dir: the warehouse and archive paths, and the
// global options that point the CLI at them. The counter is per worker process, so names never clash.
import { join } from 'node:path';

let counter = 0;

export interface Workspace {
  root: string;
  db: string;
  archive: string;
  /** `--db <db> --archive <archive>` */
  local: string[];
}

export function workspaceIn(dir: string): Workspace {
  const root = join(dir, `ws${++counter}`);
  const db = join(root, 'gex.duckdb');
  const archive = join(root, 'raw');
  return { root, db, archive, local: ['--db', db, '--archive', archive] };
}

/** The one pair most CLI reliability tests sync. */
export const ONE_PAIR_ARGS = ['--exchange', 'deribit', '--symbol', 'BTC'] as const;
