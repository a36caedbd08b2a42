// The one selection of a run, computed once: flag > config file > default, each value validated and
// labelled with where it came from. sync and plan buy it; status shows its pairs; doctor plans it.
import { parseSyncSelection, type RawSyncSelection, type SelectionLabels, type SyncSelection } from '../sync/selection.js';
import { originsOf, withConfig } from './option-use.js';
import type { GlobalSettings } from './settings.js';

export interface ResolvedSelection {
  selection: SyncSelection;
  labels: SelectionLabels;
}

/** `flags` as commander gave them to `command` (sync or plan); status and doctor pass none: the config's selection. */
export function resolveSelection(
  command: 'sync' | 'plan',
  flags: RawSyncSelection,
  settings: Pick<GlobalSettings, 'config' | 'configPath'>,
): ResolvedSelection {
  const filled = withConfig(command, flags, settings.config);
  const labels: SelectionLabels = originsOf(command, flags, settings.config, settings.configPath);
  const { exchange, symbol, files, since, until, order, maxCredits, reserveCredits, maxRequests, concurrency } = filled;
  const raw: RawSyncSelection = { exchange, symbol, files, since, until, order, maxCredits, reserveCredits, maxRequests, concurrency };
  return { selection: parseSyncSelection(raw, labels), labels };
}
