// The plan file on disk: `plan --out FILE` writes it whole or not at all (a temp file beside it, then
// a rename); `sync --plan FILE` reads it, refusing a missing, malformed or foreign file with exit 2.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { writeBeside } from '../core/output-file.js';
import { UsageError } from '../core/errors.js';
import { parsePlanDocument, type PlanDocument } from '../sync/plan-file.js';
import type { RawSyncSelection } from '../sync/selection.js';

export function readPlanFile(path: string): PlanDocument {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(`--plan ${path}: cannot read it (${code ?? (error as Error).message}); give a file written by gexwh plan --out`);
  }
  return parsePlanDocument(text, path);
}

export function writePlanFile(path: string, document: PlanDocument): void {
  writeBeside(resolve(path), `${JSON.stringify(document, null, 2)}\n`);
}

/** The flags that choose what a sync buys: with --plan the file chooses, so none of them may be given. */
const SELECTION_FLAGS: readonly [keyof RawSyncSelection | 'fullRescan' | 'dryRun' | 'fillLevels', string][] = [
  ['exchange', '--exchange'],
  ['symbol', '--symbol'],
  ['files', '--files'],
  ['since', '--since'],
  ['until', '--until'],
  ['order', '--order'],
  ['maxCredits', '--max-credits'],
  ['reserveCredits', '--reserve-credits'],
  ['fullRescan', '--full-rescan'],
  ['dryRun', '--dry-run'],
  ['fillLevels', '--fill-levels'],
];

/** Refuses selection flags beside --plan: the plan file holds the selection it was made with. */
export function checkPlanAlone(flags: Record<string, unknown>, path: string): void {
  const given = SELECTION_FLAGS.filter(([key]) => flags[key] !== undefined).map(([, flag]) => flag);
  if (given.length > 0) {
    throw new UsageError(
      `--plan ${path} carries out the plan as written, with its own selection and budget; drop ${given.join(', ')} (or make a new plan with them: gexwh plan ${given[0]} ... --out ${path})`,
    );
  }
}
