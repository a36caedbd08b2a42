// The rows of the two long daily files, written as bytes: ~138k strikes_by_expiry rows per crypto
// session. Texts that hold for a whole session (a strike, a chain's open interest) are encoded once;
// the GEX numbers are written as digits; no string is made per row.

import type { OpenInterest } from './book.js';
import { CsvWriter, rowPrefix } from './files.js';
import { formatCsvNumber, MAX_CSV_NUMBER_BYTES, writeCsvNumber } from './numbers.js';
import type { ChainState } from './snapshot.js';
import type { StrikeColumns } from './strike-columns.js';

const encoder = new TextEncoder();

/** Per session texts, keyed by the book arrays they come from (fixed for the session). */
const strikeTexts = new WeakMap<Float64Array, Uint8Array[]>();
const oiTexts = new WeakMap<OpenInterest, Uint8Array[]>();

function textsOf<K extends object>(cache: WeakMap<K, Uint8Array[]>, key: K, make: () => string[]): Uint8Array[] {
  let texts = cache.get(key);
  if (texts === undefined) {
    texts = make().map((text) => encoder.encode(text));
    cache.set(key, texts);
  }
  return texts;
}

/** `strike,` of each strike of a chain. */
const strikesOf = (chain: ChainState): Uint8Array[] =>
  textsOf(strikeTexts, chain.book.strikes, () => Array.from(chain.book.strikes, (strike) => `${formatCsvNumber(strike)},`));

/** `call_oi,put_oi` and the newline, of each strike of a chain. */
const oisOf = (chain: ChainState): Uint8Array[] =>
  textsOf(oiTexts, chain.oi, () => Array.from(chain.oi.call, (call, i) => `${formatCsvNumber(call)},${formatCsvNumber(chain.oi.put[i] as number)}\n`));

const COMMA = 0x2c;
const NEWLINE = 0x0a;

/** Copies `text` into `buffer` at `at`; returns the end. A loop beats set() on a few bytes. */
function put(buffer: Buffer, at: number, text: Uint8Array): number {
  if (text.length > 16) buffer.set(text, at);
  else for (let i = 0; i < text.length; i++) buffer[at + i] = text[i] as number;
  return at + text.length;
}

/** A number and the separator after it; returns the end. */
function putNumber(buffer: Buffer, at: number, value: number, separator: number): number {
  const end = writeCsvNumber(buffer, at, value);
  buffer[end] = separator;
  return end + 1;
}

/** One capture's strikes_by_expiry rows: `leading` fields, the expiration, then the strike columns. */
export function writeByExpiryRows(writer: CsvWriter, leading: readonly (string | number)[], chains: readonly ChainState[]): void {
  for (const chain of chains) {
    const prefix = encoder.encode(`${rowPrefix([...leading, chain.book.info.iso])},`);
    const strikes = strikesOf(chain);
    const ois = oisOf(chain);
    const { callGex, putGex, netGex } = chain.columns;
    for (let i = 0; i < strikes.length; i++) {
      const strike = strikes[i] as Uint8Array;
      const oi = ois[i] as Uint8Array;
      const buffer = writer.room(prefix.length + strike.length + 3 * (MAX_CSV_NUMBER_BYTES + 1) + oi.length);
      let at = put(buffer, writer.end, prefix);
      at = put(buffer, at, strike);
      at = putNumber(buffer, at, callGex[i] as number, COMMA);
      at = putNumber(buffer, at, putGex[i] as number, COMMA);
      at = putNumber(buffer, at, netGex[i] as number, COMMA);
      writer.commit(put(buffer, at, oi), 1);
    }
  }
}

/** One capture's strikes_total rows: the capture's `prefix` text, then the strike columns. */
export function writeTotalRows(writer: CsvWriter, prefix: string, columns: StrikeColumns): void {
  const encoded = encoder.encode(prefix);
  const { strike, callGex, putGex, netGex, callOi, putOi } = columns;
  for (let i = 0; i < strike.length; i++) {
    const buffer = writer.room(encoded.length + 6 * (MAX_CSV_NUMBER_BYTES + 1));
    let at = writer.end;
    buffer.set(encoded, at);
    at += encoded.length;
    at = putNumber(buffer, at, strike[i] as number, COMMA);
    at = putNumber(buffer, at, callGex[i] as number, COMMA);
    at = putNumber(buffer, at, putGex[i] as number, COMMA);
    at = putNumber(buffer, at, netGex[i] as number, COMMA);
    at = putNumber(buffer, at, callOi[i] as number, COMMA);
    writer.commit(putNumber(buffer, at, putOi[i] as number, NEWLINE), 1);
  }
}
