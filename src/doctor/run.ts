// `gexwh doctor`'s checks with their I/O: the API (/me, free), the warehouse (read-only, never
// created or migrated here), the archive folder and its disk. Every check runs even after another
// failed, so one run shows everything to fix.
import { accessSync, constants, existsSync, readdirSync, readFileSync, statfsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createApiClient, type ApiClient } from '../api/index.js';
import { ApiError, ApiUnavailableError, AuthError, NetworkError } from '../core/errors.js';
import { appliedVersions, latestVersion, lockPathFor, openReader, type Warehouse } from '../warehouse/index.js';
import { isStale, parseLockInfo } from '../warehouse/lock.js';
import { num, readOne, text } from '../warehouse/read-rows.js';
import { describeLayout, listLayouts, type LayoutRecord } from '../warehouse/schema-evolution.js';
import { clockCheck, diskCheck, fail, pass, quotaCheck, type Check } from './checks.js';

export interface DoctorInput {
  db: string;
  archive: string;
  baseUrl: string | undefined;
  /** The key, or why there is none. */
  apiKey: { key: string } | { problem: string };
  /** The config file's verdict, made where it was read. */
  config: Check;
  /**
   * What the next sync would do with the warehouse's manifests (the selection and the planner are the
   * sync's, handed in by the caller), given the key's markets and credits when /me answered.
   */
  planNext?: (conn: Warehouse['connection'], me: MeFacts | undefined) => Promise<NextPlan>;
  signal?: AbortSignal;
  /** How long the /me call may take in all, retries included (--api-timeout, as every command). */
  apiTimeoutSeconds?: number;
}

/** The key's markets and file credits, from /me. */
export interface MeFacts {
  markets: ('crypto' | 'tradfi')[];
  creditsLimit: number;
  creditsRemaining: number | null;
}

/** The totals `gexwh plan` prints. */
export interface NextPlan {
  files: number;
  bytes: number;
  toReload: number;
  deferred: number;
  alreadyLoaded: number;
}

export interface DoctorReport {
  ok: boolean;
  checks: Check[];
}

export async function runDoctor(input: DoctorInput): Promise<DoctorReport> {
  const checks: Check[] = [input.config];
  const remote = await remoteChecks(input);
  checks.push(...remote.checks);
  const warehouse = await warehouseChecks(input, remote);
  checks.push(...warehouse.checks);
  checks.push(...archiveChecks(input.archive, warehouse.planned));
  return { ok: checks.every((c) => c.ok), checks };
}

interface Remote {
  checks: Check[];
  dailyCredits: number | undefined;
  me?: MeFacts;
}

async function remoteChecks(input: DoctorInput): Promise<Remote> {
  if ('problem' in input.apiKey) {
    return { checks: [fail('key', input.apiKey.problem, 'export GEX_API_KEY=... or pass --api-key-file PATH')], dailyCredits: undefined };
  }
  if (input.baseUrl === undefined) {
    return {
      checks: [fail('key', 'no API base URL to check the key against', 'set --base-url, GEX_BASE_URL or "baseUrl" in the config file')],
      dailyCredits: undefined,
    };
  }
  let client: ApiClient | undefined;
  try {
    client = createApiClient({
      baseUrl: input.baseUrl,
      apiKey: input.apiKey.key,
      userAgent: 'gexwh/0.1',
      ...(input.signal ? { signal: input.signal } : {}),
      ...(input.apiTimeoutSeconds === undefined ? {} : { callBudgetMs: input.apiTimeoutSeconds * 1000 }),
    });
    const sentMs = Date.now();
    const me = await client.me();
    const files = me.data.quota.history_files;
    const facts: MeFacts = {
      markets: me.data.markets.filter((m): m is MeFacts['markets'][number] => m === 'crypto' || m === 'tradfi'),
      creditsLimit: files.limit,
      creditsRemaining: files.limit === 0 ? null : (files.remaining ?? null),
    };
    return { checks: meChecks(input.baseUrl, me, sentMs, Date.now()), dailyCredits: files.limit, me: facts };
  } catch (error) {
    return { checks: meFailureChecks(input.baseUrl, error), dailyCredits: undefined };
  } finally {
    await client?.close();
  }
}

function meChecks(baseUrl: string, me: Awaited<ReturnType<ApiClient['me']>>, sentMs: number, receivedMs: number): Check[] {
  const { tier, markets, api_access: apiAccess, quota } = me.data;
  const serverTime = me.meta.timestamp;
  return [
    pass('api', `${baseUrl} answered (/me)`),
    pass('key', `accepted by ${baseUrl} (/me)`),
    apiAccess
      ? pass('plan', `${tier}; markets ${markets.join(', ')}`)
      : fail('plan', `${tier} has no api_access`, 'use a key of a plan with API access (trial, pro)'),
    quotaCheck(quota.requests, quota.history_files),
    serverTime === undefined
      ? fail('clock', 'the API sent no meta.timestamp', 'retry later; if it persists the API changed')
      : clockCheck(sentMs, receivedMs, serverTime),
  ];
}

function meFailureChecks(baseUrl: string, error: unknown): Check[] {
  // No answer (network, 5xx after retries): the key was not checked, so it is not called refused.
  if (error instanceof NetworkError || error instanceof ApiUnavailableError) {
    return [
      fail(
        'api',
        `${baseUrl} not reachable: ${errorText(error)}; the key, plan, quota and clock could not be checked`,
        'check --base-url and the network, then run doctor again',
      ),
    ];
  }
  const status = error instanceof ApiError ? error.status : undefined;
  const why = error instanceof ApiError ? `${error.slug}: ${error.message}` : errorText(error);
  const answered = pass('api', `${baseUrl} answered (/me)`);
  // 403: the key is known but its plan is not entitled (no api_access, a market not in the plan).
  if (status === 403) return [answered, pass('key', 'recognised by the API'), fail('plan', why, 'use a key of a plan with API access (trial, pro)')];
  const refused = error instanceof AuthError || status === 401;
  const fix = refused ? 'check the key (a revoked or mistyped key is refused); create a new one in your account' : 'check --base-url and the network';
  return [answered, fail('key', `/me failed: ${why}`, fix)];
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

type Planned = Pick<NextPlan, 'files' | 'bytes'> & Partial<NextPlan>;

async function warehouseChecks(input: DoctorInput, remote: Remote): Promise<{ checks: Check[]; planned: Planned }> {
  const { db } = input;
  const none = { files: 0, bytes: 0 };
  if (!existsSync(db)) return { checks: [missingWarehouseCheck(db)], planned: none };
  const holder = lockHolder(db);
  let warehouse: Warehouse | undefined;
  try {
    warehouse = await openReader(db);
    const conn = warehouse.connection;
    const applied = await appliedVersions(conn);
    const schema = applied.length === 0 ? 0 : Math.max(...applied);
    const known = latestVersion();
    const { version } = await readOne(conn, 'SELECT version() AS version', [], { version: text });
    const detail = `${db}: schema ${schema} (this gexwh: ${known}), DuckDB ${version}`;
    const checks: Check[] = [
      schemaCheck(detail, schema, known),
      holder ? fail('lock', holder, 'wait for that process to finish, or stop it') : pass('lock', 'not held'),
      layoutsCheck(await listLayouts(conn)),
    ];
    const planned = input.planNext ? await input.planNext(conn, remote.me) : await plannedNextNight(warehouse, remote.dailyCredits);
    return { checks, planned };
  } catch (error) {
    return { checks: unreadableChecks(db, holder, errorText(error)), planned: none };
  } finally {
    warehouse?.close();
  }
}

/** No warehouse where the settings point: name the ones beside it (the demo's, say) before advising a sync. */
function missingWarehouseCheck(db: string): Check {
  const others = warehousesBeside(db);
  if (others.length === 0) return fail('warehouse', `no warehouse at ${db}`, 'run gexwh sync (it creates it), or pass --db');
  const listed = others.join(', ');
  return fail('warehouse', `no warehouse at ${db}; this folder holds ${listed}`, `pass --db ${others[0]} to check that one, or run gexwh sync to create ${db}`);
}

function warehousesBeside(db: string): string[] {
  const folder = dirname(db);
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  return names
    .filter((name) => name.endsWith('.duckdb'))
    .sort()
    .map((name) => join(folder, name));
}

/** The daily file layouts loaded: information, never a failure (the loader reads any layout holding the grain). */
function layoutsCheck(layouts: readonly LayoutRecord[]): Check {
  if (layouts.length === 0) return pass('layouts', 'no daily file loaded yet');
  return pass('layouts', `${layouts.length} file layout(s) loaded (sync.layouts): ${layouts.map(describeLayout).join('; ')}`);
}

function schemaCheck(detail: string, schema: number, known: number): Check {
  if (schema > known) return fail('warehouse', `${detail}: written by a newer gexwh`, 'upgrade gexwh');
  return pass('warehouse', schema < known ? `${detail}; the next sync applies ${known - schema} migration(s)` : detail);
}

/** A warehouse that could not be opened: held by another process, or damaged. */
function unreadableChecks(db: string, holder: string | undefined, message: string): Check[] {
  const held = holder ?? (/lock/i.test(message) ? message : undefined);
  if (held) return [pass('warehouse', `${db} exists (held, not read)`), fail('lock', held, 'wait for that process to finish, or stop it')];
  return [fail('warehouse', `${db} cannot be read: ${message}`, 'run gexwh rebuild (it keeps the damaged copy and reloads the archive)')];
}

/** The sync lock's holder, when a live process holds it. */
function lockHolder(db: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(lockPathFor(db), 'utf8');
  } catch {
    return undefined;
  }
  const info = parseLockInfo(text);
  if (!info || isStale(info)) return undefined;
  return `held by pid ${info.pid} on ${info.host} since ${info.started_at}`;
}

/** What the next night's sync would download: pending manifest rows, newest first, one day's credits. */
async function plannedNextNight(warehouse: Warehouse, dailyCredits: number | undefined): Promise<Planned> {
  const limit = dailyCredits === undefined || dailyCredits === 0 ? 2_147_483_647 : dailyCredits;
  return readOne(
    warehouse.connection,
    `SELECT count(*)::INTEGER AS files, coalesce(sum(bytes), 0)::DOUBLE AS bytes FROM (
       SELECT m.bytes FROM sync.manifest m
        WHERE NOT EXISTS (SELECT 1 FROM sync.files f WHERE f.status = 'loaded' AND f.exchange = m.exchange AND f.symbol = m.symbol
                            AND f.session_date = m.session_date AND f.file = m.file AND f.sha256 = m.sha256)
        ORDER BY m.session_date DESC LIMIT $1)`,
    [limit],
    { files: num, bytes: num },
  );
}

function archiveChecks(archive: string, planned: Planned): Check[] {
  // The archive may not exist yet (the first sync creates it): its nearest existing folder decides.
  let existing = resolve(archive);
  while (!existsSync(existing) && dirname(existing) !== existing) existing = dirname(existing);
  const checks: Check[] = [];
  try {
    if (!statSync(existing).isDirectory()) throw new Error('not a folder');
    accessSync(existing, constants.W_OK | constants.X_OK);
    checks.push(pass('archive', existing === resolve(archive) ? `${archive} is writable` : `${archive} does not exist yet; ${existing} is writable`));
  } catch {
    checks.push(fail('archive', `${existing} is not a writable folder`, `give this user write access to ${existing}, or pass --archive`));
  }
  const stats = statfsSync(existing);
  checks.push(diskCheck(stats.bavail * stats.bsize, planned));
  return checks;
}
