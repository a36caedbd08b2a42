// The plan as a file a person reviews before a credit moves (`gexwh plan --out plan.json`) and a later
// `gexwh sync --plan plan.json` carries out. The file holds the plan value whole (its files, credits,
// venues and budget), the selection that made it, and fingerprints of what the planner read: the
// manifest rows and the warehouse's ledger of them, and the archive's intact copies. Pure: parsing
// refuses anything that is not a plan file of this format version, naming what is wrong.
import { z } from 'zod';
import { UsageError } from '../core/errors.js';
import { FILE_KINDS } from '../core/file-kinds.js';
import { EXCHANGES } from '../core/pairs.js';
import type { Plan } from './download-plan.js';
import { ORDERS, type SyncSelection } from './selection.js';

export const PLAN_FORMAT = 'gexwh-plan';
/** Raised when the file's shape changes; a file of another version is refused, not guessed at. */
export const PLAN_FORMAT_VERSION = 1;

/** What the plan was made from (plan-fingerprint.ts computes them). */
export interface PlanFingerprints {
  manifest: string;
  archive: string;
  /** The intact archived versions (fileVersionKey), sorted: what the archive fingerprint hashes. */
  archived: string[];
}

/** What `plan --out` writes and `sync --plan` reads. */
export interface PlanDocument {
  format: typeof PLAN_FORMAT;
  version: typeof PLAN_FORMAT_VERSION;
  createdAt: string;
  /** Credits the plan spends: one per file to download. */
  credits: number;
  /** The selection the plan was made with; `sync --plan` runs with it. */
  selection: SyncSelection;
  fullRescan: boolean;
  fingerprints: PlanFingerprints;
  plan: Plan;
}

export function planDocumentOf(plan: Plan, selection: SyncSelection, fullRescan: boolean, fingerprints: PlanFingerprints, at = new Date()): PlanDocument {
  return {
    format: PLAN_FORMAT,
    version: PLAN_FORMAT_VERSION,
    createdAt: at.toISOString(),
    credits: plan.toDownload.length,
    selection,
    fullRescan,
    fingerprints,
    plan,
  };
}

const count = z.int().nonnegative();
const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const sha256 = z.string().regex(/^[0-9a-f]{64}$/);

const plannedFile = z.strictObject({
  exchange: z.string().min(1),
  symbol: z.string().min(1),
  sessionDate: date,
  file: z.enum(FILE_KINDS),
  sha256,
  bytes: count,
  rows: count,
  schemaVersion: count,
  replaces: sha256.optional(),
  retryOf: z.enum(['failed_verify', 'failed_load']).optional(),
});

const bound = z.enum(['unlimited', 'quota', 'reserve-credits', 'max-credits']);

const planSchema = z.strictObject({
  toDownload: z.array(plannedFile),
  toReload: z.array(plannedFile),
  deferred: z.array(plannedFile),
  alreadyLoaded: count,
  ignoredRows: count,
  brokenReloads: z.array(plannedFile),
  budget: z.strictObject({
    available: count.nullable(),
    used: count,
    limitedBy: bound,
    remainingUnknown: z.boolean(),
    deferredBy: z.partialRecord(z.enum(['quota', 'reserve-credits', 'max-credits']), count).optional(),
  }),
  pairs: z.array(
    z.strictObject({
      exchange: z.string(),
      symbol: z.string(),
      selected: count,
      alreadyLoaded: count,
      toDownload: count,
      toReload: count,
      deferred: count,
      rebuilt: count,
    }),
  ),
  notBought: z.array(z.strictObject({ symbol: z.string(), venues: z.array(z.string()), buyWith: z.array(z.string()) })),
});

const selectionSchema = z.strictObject({
  exchanges: z.array(z.enum(EXCHANGES)).optional(),
  allVenues: z.literal(true).optional(),
  symbols: z.array(z.string().min(1)).optional(),
  files: z.array(z.enum(FILE_KINDS)).min(1),
  since: date.optional(),
  until: date.optional(),
  order: z.enum(ORDERS),
  maxCredits: count.optional(),
  reserveCredits: count,
  maxRequests: count.optional(),
  concurrency: z.int().min(1).max(32),
});

const documentSchema = z.strictObject({
  format: z.literal(PLAN_FORMAT),
  version: z.literal(PLAN_FORMAT_VERSION),
  createdAt: z.iso.datetime(),
  credits: count,
  selection: selectionSchema,
  fullRescan: z.boolean(),
  fingerprints: z.strictObject({ manifest: sha256, archive: sha256, archived: z.array(z.string()) }),
  plan: planSchema,
});

/** The plan file's text as a plan document, or a UsageError saying what is wrong with it. */
export function parsePlanDocument(text: string, path: string): PlanDocument {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--plan ${path}: not JSON (${(error as Error).message}); give a file written by gexwh plan --out`);
  }
  const head = z.object({ format: z.literal(PLAN_FORMAT), version: z.literal(PLAN_FORMAT_VERSION) }).safeParse(value);
  if (!head.success) throw new UsageError(`--plan ${path}: ${headProblem(value)}`);
  const parsed = documentSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UsageError(
      `--plan ${path}: ${issue.path.join('.') || '(top)'}: ${issue.message}; the file was changed by hand or damaged: write a new one with gexwh plan --out`,
    );
  }
  const document: PlanDocument = parsed.data;
  if (document.credits !== document.plan.toDownload.length) {
    throw new UsageError(`--plan ${path}: credits says ${document.credits} but the plan downloads ${document.plan.toDownload.length} files; write a new plan`);
  }
  return document;
}

function headProblem(value: unknown): string {
  const fields = typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  if (fields['format'] !== PLAN_FORMAT) return `not a gexwh plan file (its "format" is ${JSON.stringify(fields['format'] ?? null)}, expected "${PLAN_FORMAT}")`;
  return `plan file format version ${JSON.stringify(fields['version'] ?? null)}; this gexwh reads version ${PLAN_FORMAT_VERSION}: write the plan again with this gexwh`;
}
