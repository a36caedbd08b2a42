// What a plan was made from, in two fingerprints: the manifest rows the planner read (with what the
// warehouse's ledger says of them and how many are loaded), and the archive's intact copies among the
// files it checked. `sync --plan` computes both again and carries out the file's plan only when
// neither moved; when one did, it refuses and says what moved. Pure.
import { createHash } from 'node:crypto';
import { UsageError } from '../core/errors.js';
import { fileKey } from '../core/pairs.js';
import { lowestLimit } from '../core/credit-meter.js';
import type { PlannedFile } from '../core/rows.js';
import type { Plan, PlanInput } from './download-plan.js';
import { planDocumentOf, type PlanDocument, type PlanFingerprints } from './plan-file.js';
import type { SyncEvents, SyncOptions } from './sync-types.js';

/** Shown per kind of change before "and N more". */
const SHOWN = 5;

export function fingerprintsOf(input: Pick<PlanInput, 'manifest' | 'ledger' | 'loadedByPair'>, archived: ReadonlySet<string> = new Set()): PlanFingerprints {
  const rows = input.manifest.map((r) => [r.exchange, r.symbol, r.session_date, r.file, r.sha256, r.bytes, r.rows, r.schema_version].join('|'));
  const ledger = input.ledger.map((e) => [e.exchange, e.symbol, e.sessionDate, e.file, e.sha256, e.status].join('|'));
  const loaded = [...(input.loadedByPair ?? new Map<string, number>())].map(([pair, n]) => `${pair}|${n}`);
  const sortedArchived = [...archived].sort();
  return {
    manifest: hashLines([...rows.sort(), '', ...ledger.sort(), '', ...loaded.sort()]),
    archive: hashLines(sortedArchived),
    archived: sortedArchived,
  };
}

function hashLines(lines: string[]): string {
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

/**
 * The plan a run carries out: the planner's, handed to `events.planned` as a plan file when asked
 * (plan --out); with `sync --plan`, the file's own (followPlan).
 */
export function settlePlan(
  options: Pick<SyncOptions, 'followPlan' | 'selection' | 'fullRescan'>,
  computed: Plan,
  input: Pick<PlanInput, 'manifest' | 'ledger' | 'loadedByPair'>,
  archived: ReadonlySet<string>,
  events: Pick<SyncEvents, 'planned'>,
): Plan {
  if (options.followPlan === undefined && events.planned === undefined) return computed;
  const fingerprints = fingerprintsOf(input, archived);
  if (options.followPlan !== undefined) return followPlan(options.followPlan.document, { plan: computed, fingerprints }, options.followPlan.path);
  events.planned?.(planDocumentOf(computed, options.selection, options.fullRescan, fingerprints));
  return computed;
}

/**
 * The plan `sync --plan` carries out: the file's own, when the manifest and the archive are as they
 * were; its credit bound is the tighter of the file's and today's (a quota spent since, a reserve).
 * Otherwise a UsageError saying what moved.
 */
export function followPlan(document: PlanDocument, now: { plan: Plan; fingerprints: PlanFingerprints }, path: string): Plan {
  const moved = whatMoved(document, now);
  if (moved.length > 0) {
    throw new UsageError(`--plan ${path}: ${moved.join('; ')}; nothing was bought: review a new plan (gexwh plan --out ${path})`);
  }
  const available = lowestLimit(document.plan.budget.available, now.plan.budget.available);
  return { ...document.plan, budget: { ...document.plan.budget, available } };
}

/** One line per thing that moved since the file was written; empty when nothing did. */
export function whatMoved(document: PlanDocument, now: { plan: Plan; fingerprints: PlanFingerprints }): string[] {
  const moved: string[] = [];
  if (document.fingerprints.manifest !== now.fingerprints.manifest) {
    const files = fileChanges(filesOf(document.plan), filesOf(now.plan));
    moved.push(
      `the manifest or the warehouse changed since the plan was written${files.length > 0 ? ` (${listed(files)})` : ' (the same files are planned, but what they were planned from is not)'}`,
    );
  }
  if (document.fingerprints.archive !== now.fingerprints.archive) {
    const before = new Set(document.fingerprints.archived);
    const after = new Set(now.fingerprints.archived);
    const changes = [
      ...[...before].filter((key) => !after.has(key)).map((key) => `${versionText(key)} no longer intact in the archive`),
      ...[...after].filter((key) => !before.has(key)).map((key) => `${versionText(key)} now archived`),
    ];
    moved.push(`the archive changed since the plan was written (${listed(changes)})`);
  }
  return moved;
}

function filesOf(plan: Plan): PlannedFile[] {
  return [...plan.toDownload, ...plan.toReload, ...plan.deferred];
}

/** The files planned then and now that differ: new, gone, or another version (rebuilt). */
function fileChanges(then: PlannedFile[], now: PlannedFile[]): string[] {
  const before = new Map(then.map((file) => [fileKey(file), file.sha256]));
  const after = new Map(now.map((file) => [fileKey(file), file.sha256]));
  const changes: string[] = [];
  for (const [key, sha] of after) {
    const old = before.get(key);
    if (old === undefined) changes.push(`${keyText(key)} newly planned`);
    else if (old !== sha) changes.push(`${keyText(key)} is now sha256 ${sha.slice(0, 12)}… (the plan has ${old.slice(0, 12)}…)`);
  }
  for (const key of before.keys()) if (!after.has(key)) changes.push(`${keyText(key)} no longer planned`);
  return changes;
}

function listed(items: string[]): string {
  const more = items.length - SHOWN;
  return items.slice(0, SHOWN).join(', ') + (more > 0 ? `, and ${more} more` : '');
}

/** `exchange|symbol|date|file` → `exchange/symbol date file`. */
function keyText(key: string): string {
  const [exchange, symbol, date, file] = key.split('|');
  return `${exchange}/${symbol} ${date} ${file}`;
}

function versionText(key: string): string {
  const sha = key.split('|')[4] ?? '';
  return `${keyText(key)} (sha256 ${sha.slice(0, 12)}…)`;
}
