// The opaque next_cursor of /history/levels: the query it belongs to and the last row returned,
// signed so a client cannot forge or edit it. A cursor only continues the same exchange, coin,
// end and granularity.

import { createHmac, timingSafeEqual } from 'node:crypto';
import { invalidParam } from '../params.js';

export interface CursorState {
  exchange: string; // as requested, lowercased
  symbol: string;
  end: number; // ms
  granularity: string;
  start: number; // ms, the window's original start (for range checks)
  after: number; // ms, timestamp of the last row returned
}

const sign = (secret: Buffer, body: string): string => createHmac('sha256', secret).update(`cursor:${body}`).digest('base64url').slice(0, 22);

export function encodeCursor(secret: Buffer, state: CursorState): string {
  const body = Buffer.from(JSON.stringify(state)).toString('base64url');
  return `${body}.${sign(secret, body)}`;
}

export function decodeCursor(secret: Buffer, cursor: string): CursorState {
  const [body, sig, extra] = cursor.split('.');
  const bad = invalidParam('cursor is not a cursor returned by this endpoint.');
  if (!body || !sig || extra !== undefined) throw bad;
  const expected = Buffer.from(sign(secret, body));
  const given = Buffer.from(sig);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw bad;
  try {
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as CursorState;
  } catch {
    throw bad;
  }
}

/** The cursor must be used with the query it came from. */
export function checkCursorFits(cursor: CursorState, wanted: Omit<CursorState, 'start' | 'after'>): void {
  const fits = cursor.exchange === wanted.exchange && cursor.symbol === wanted.symbol && cursor.end === wanted.end && cursor.granularity === wanted.granularity;
  if (!fits) {
    throw invalidParam('cursor belongs to another query: repeat the same exchange, coin, end and granularity.');
  }
}
