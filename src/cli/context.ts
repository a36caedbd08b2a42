// What every command gets: resolved settings, the output channel and a stop signal (SIGINT/SIGTERM).
import type { Command } from 'commander';
import { createOutput, type Output } from './output.js';
import { resolveGlobals, type GlobalFlags, type GlobalSettings } from './settings.js';

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
  const out = createOutput(settings);
  if (settings.baseUrlNote !== undefined) out.info(`note: ${settings.baseUrlNote}`);
  return { settings, out, signal: stopController.signal };
}
