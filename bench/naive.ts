// The naive peer a user would write: curl each file in sequence (the presigned link read from the
// 302's headers, the key passed in a header file so it stays out of `ps`), then one auto-detecting
// read_csv per file.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openWarehouse } from '../src/warehouse/index.js';
import { fileUrl, listManifest, type PeerTarget } from './ideal.js';
import { insertFrom } from './select-sql.js';

const run = promisify(execFile);

export async function naiveSync(target: PeerTarget, folder: string, dbPath: string): Promise<number> {
  const headerFile = join(folder, '.key-header');
  writeFileSync(headerFile, `X-API-Key: ${target.key}\n`, { mode: 0o600 });
  const manifest = await listManifest(target);
  const files: Array<{ kind: (typeof manifest)[number]['file']; path: string }> = [];
  for (const entry of manifest) {
    const { stdout } = await run('curl', ['-s', '-D', '-', '-o', '/dev/null', '-H', `@${headerFile}`, fileUrl(target, entry)]);
    const location = /^location:\s*(\S+)/im.exec(stdout)?.[1];
    if (location === undefined) throw new Error(`no Location for ${entry.session_date} ${entry.file}`);
    const path = join(folder, `${entry.session_date}_${entry.file}.csv.gz`);
    await run('curl', ['-s', '-f', '-o', path, location]);
    files.push({ kind: entry.file, path });
  }
  const warehouse = await openWarehouse(dbPath);
  let rows = 0;
  try {
    for (const { kind, path } of files) {
      rows += (await warehouse.connection.run(`${insertFrom(kind)} read_csv($1)`, [path])).rowsChanged;
    }
  } finally {
    warehouse.close();
  }
  return rows;
}
