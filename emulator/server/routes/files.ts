// Daily files: the manifest (/history/files/{exchange}/{coin}, one request) and the download
// (/history/files/{exchange}/{coin}/{date}/{file}: a 302 to a presigned storage link, one credit).
//
// Files exist for completed sessions within history only. The manifest lists the three files of a
// session together (levels, strikes_total, strikes_by_expiry), newest session first, at most 400
// rows, so a page may end in the middle of a session.

import { FILE_KINDS, type FileKind, type MarketModel } from '../../market/types.js';
import { revisionKey, type Route, type ServerState } from '../context.js';
import { HttpError } from '../http.js';
import { invalidParam, parseChoice, parseDate, queryValue } from '../params.js';
import { presignLink, type FileRef } from '../storage.js';
import { completedSessions, isCompletedSession } from '../timeline.js';
import { captureVenuesOfHistory, historyVenuesOf, resolveHistoryPair } from '../venues.js';
import { historyMeta } from './live.js';

/** Whether the file exists at now: a completed session within history of a venue listing the symbol. */
export function fileExists(model: MarketModel, ref: FileRef, now: Date): boolean {
  const info = model.symbolInfo(ref.symbol);
  if (!info || !historyVenuesOf(info).includes(ref.exchange)) return false;
  if (captureVenuesOfHistory(info, ref.exchange).length === 0) return false;
  return isCompletedSession(model, info.market, ref.date, now);
}

/** The file's current revision (0 unless rebuilt). */
export function revisionOf(state: ServerState, ref: FileRef): number {
  return state.revisions.get(revisionKey(ref.exchange, ref.symbol, ref.date, ref.file)) ?? 0;
}

/** The bytes of the file as currently built, or undefined when there is none at now. */
export async function currentFileBytes(state: ServerState, ref: FileRef, now: Date): Promise<Buffer | undefined> {
  if (!fileExists(state.model, ref, now)) return undefined;
  return state.files.bytes(ref, revisionOf(state, ref));
}

/** A page of manifest rows: facts from the file index, files not yet built are built in parallel. */
async function manifestRows(state: ServerState, ref: Omit<FileRef, 'date' | 'file'>, dates: string[], now: Date) {
  const refs: FileRef[] = [];
  for (const date of dates) {
    for (const file of FILE_KINDS) {
      if (refs.length >= state.manifestPageRows) break;
      const fileRef = { ...ref, date, file };
      if (fileExists(state.model, fileRef, now)) refs.push(fileRef);
    }
  }
  const facts = await Promise.all(refs.map((fileRef) => state.files.facts(fileRef, revisionOf(state, fileRef))));
  return refs.map((fileRef, i) => ({
    session_date: fileRef.date,
    file: fileRef.file,
    rows: facts[i]!.rows,
    bytes: facts[i]!.bytes,
    sha256: facts[i]!.sha256,
    schema_version: state.model.schemaVersion,
  }));
}

const manifest: Route = {
  path: ['history', 'files', ':exchange', ':coin'],
  cost: 'request',
  rateLimit: true,
  query: ['start', 'end'],
  handle: async ({ state, account, params, query, now }) => {
    const { model } = state;
    const pair = resolveHistoryPair(model, account, params.exchange!, params.coin!);
    const startParam = queryValue(query, 'start');
    const endParam = queryValue(query, 'end');
    const start = startParam === undefined ? undefined : parseDate(startParam, 'start');
    const end = endParam === undefined ? undefined : parseDate(endParam, 'end');
    if (start !== undefined && end !== undefined && start >= end) throw invalidParam('start must be before end.');
    const dates = completedSessions(model, pair.market, now)
      .filter((d) => (start === undefined || d >= start) && (end === undefined || d < end))
      .reverse();
    const ref = { exchange: pair.historyVenue!, symbol: pair.symbol };
    return {
      kind: 'json',
      data: pair.venues.length === 0 ? [] : await manifestRows(state, ref, dates, now),
      meta: historyMeta(pair),
    };
  },
};

const download: Route = {
  path: ['history', 'files', ':exchange', ':coin', ':date', ':file'],
  cost: 'credit',
  rateLimit: false,
  query: [],
  handle: ({ state, account, params, now, fault }) => {
    const pair = resolveHistoryPair(state.model, account, params.exchange!, params.coin!);
    const date = parseDate(params.date, 'date');
    const file: FileKind = parseChoice(params.file!, 'file', FILE_KINDS);
    const ref: FileRef = { exchange: pair.historyVenue!, symbol: pair.symbol, date, file };
    if (!fileExists(state.model, ref, now)) {
      throw new HttpError(404, 'no_file', `No ${file} file for ${pair.symbol} on ${ref.exchange} for ${date}.`);
    }
    if (fault?.kind === 'redirect') return { kind: 'redirect', location: fault.location };
    const expiresAt = fault?.kind === 'expire_link' ? new Date(now.getTime() - 1000) : new Date(now.getTime() + state.linkTtlSeconds * 1000);
    return { kind: 'redirect', location: presignLink(state.storageUrl, state.secret, ref, expiresAt) };
  },
};

export const fileRoutes: readonly Route[] = [manifest, download];
