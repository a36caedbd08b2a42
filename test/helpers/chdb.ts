// chDB (ClickHouse in this process) for the tests of the export's clickhouse.sql, installed on first
// use into a cache folder outside the checkout, not as a devDependency: the npm registry serves its
// prebuilt binary for linux-x64 only (@chdb/lib-linux-x64-gnu, ~550 MB installed), and `npm ci`
// refuses a lockfile that lacks chdb's optional packages for the other platforms. The version is
// exact (chdb pins its binary's version), and npm checks the registry's integrity hashes.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

export const CHDB_VERSION = '3.4.0';

/** The part of chdb's API the tests use (its types live in the package, which the checkout does not hold). */
export interface ChdbSession {
  queryAsync(sql: string, options?: { format?: string }): Promise<{ text(): string }>;
  close(): void;
}

interface ChdbModule {
  Session: new () => ChdbSession;
}

/** Where chdb is installed: GEXWH_CHDB_DIR, else ~/.cache/gexwh/chdb-<version>. */
export function chdbDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.GEXWH_CHDB_DIR ?? join(homedir(), '.cache', 'gexwh', `chdb-${CHDB_VERSION}`);
}

const installed = (dir: string): boolean =>
  existsSync(join(dir, 'node_modules', 'chdb', 'package.json')) && existsSync(join(dir, 'node_modules', '@chdb', 'lib-linux-x64-gnu', 'libchdb.so'));

/**
 * chdb, installed first when the cache folder does not hold it: into a fresh folder beside it, then
 * renamed into place, so a cut install is never taken for a finished one.
 */
export async function loadChdb(dir: string = chdbDir()): Promise<ChdbModule> {
  if (!installed(dir)) {
    const temp = `${dir}.${process.pid}.tmp`;
    rmSync(temp, { recursive: true, force: true });
    mkdirSync(temp, { recursive: true });
    writeFileSync(join(temp, 'package.json'), '{ "private": true }\n');
    // chdb's install script is a no-op (its binary comes as a package); scripts off all the same.
    execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', `chdb@${CHDB_VERSION}`], {
      cwd: temp,
      stdio: 'pipe',
    });
    if (!installed(temp)) throw new Error(`chdb@${CHDB_VERSION}: npm installed it without its linux-x64 binary (@chdb/lib-linux-x64-gnu) in ${temp}`);
    mkdirSync(dirname(dir), { recursive: true });
    if (installed(dir)) rmSync(temp, { recursive: true, force: true }); // another test process finished first
    else {
      rmSync(dir, { recursive: true, force: true });
      renameSync(temp, dir);
    }
  }
  return (await import(pathToFileURL(join(dir, 'node_modules', 'chdb', 'index.mjs')).href)) as ChdbModule;
}
