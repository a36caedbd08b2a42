// What every command gets: resolved settings, the output channel and a stop signal (SIGINT/SIGTERM).
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { createOutput, type Output } from './output.js';
import { resolveGlobals, type GlobalFlags, type GlobalSettings } from './settings.js';
import { rememberSettings } from './warehouse-search.js';

export interface CommandContext {
  settings: GlobalSettings;
  out: Output;
  signal: AbortSignal;
}

let stopController = new AbortController();

/** Installed once by the entry point: the first signal asks commands to stop cleanly. */
export function stopSignal(): AbortController {
  return stopController;
}

export function resetStopSignal(): void {
  stopController = new AbortController();
}

export function contextOf(command: Command): CommandContext {
  const settings = resolveGlobals(command.optsWithGlobals<GlobalFlags>());
  rememberSettings(settings);
  const out = createOutput({ ...settings, newWarehouse: newWarehouseCheck(settings.db) });
  if (settings.baseUrlNote !== undefined) out.info(`note: ${settings.baseUrlNote}`);
  return { settings, out, signal: stopController.signal };
}

/**
 * A warehouse that did not exist when the command started and does now was created by it: the result
 * says so with its absolute path, so a sync started from the wrong folder is seen at once.
 */
function newWarehouseCheck(db: string): () => string | undefined {
  const path = resolve(db);
  const existed = existsSync(path);
  return () => (!existed && existsSync(path) ? path : undefined);
}
