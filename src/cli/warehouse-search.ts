// Where a command looked for the warehouse, for the "no warehouse" error: the absolute path, what
// chose it (--db, GEXWH_DB, the config file, the default) and the config file search (found or not,
// and from which folder up), so a command run from the wrong folder says why at once.
import { parse, resolve } from 'node:path';
import type { HintFields } from '../core/errors.js';
import { DEFAULT_CONFIG_PATH, DEFAULT_DB, type GlobalSettings } from './settings.js';

let current: GlobalSettings | undefined;

/** Set by each command's context, read when its error is printed. */
export function rememberSettings(settings: GlobalSettings | undefined): void {
  current = settings;
}

export function warehouseSearchHints(cwd: string = process.cwd()): HintFields {
  if (current === undefined) return {};
  return { from: dbSource(current, cwd), config: configSearch(current, cwd) };
}

function dbSource(settings: GlobalSettings, cwd: string): string {
  switch (settings.dbFrom) {
    case '--db':
      return `--db ${settings.db} (relative to the working folder ${cwd})`;
    case 'GEXWH_DB':
      return `GEXWH_DB=${settings.db} (relative to the working folder ${cwd})`;
    case 'config':
      return `"db" in ${settings.configPath ?? 'the config file'} (relative to its folder)`;
    default:
      return settings.configPath === undefined
        ? `the default ${DEFAULT_DB}, in the working folder ${cwd}`
        : `the default ${DEFAULT_DB}, in the folder of ${settings.configPath}`;
  }
}

function configSearch(settings: GlobalSettings, cwd: string): string {
  if (settings.configPath !== undefined) return `found ${settings.configPath}`;
  const folder = resolve(cwd);
  return `none found (looked for ${DEFAULT_CONFIG_PATH} in ${folder} and every folder above it, up to ${parse(folder).root})`;
}
