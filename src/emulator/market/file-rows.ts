// The rows of the two long daily files, written as bytes: ~138k strikes_by_expiry rows per crypto
// session. Texts that hold for a whole session (a strike, a chain's open interest) are encoded once;
// the GEX numbers are written as digits; no string is made per row.

import type { OpenInterest } from './book.js';
import { COMMA, CsvWriter, NEWLINE, rowPrefix } from './files.js';
import { formatCsvNumber } from './numbers.js';
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

/** One capture's strikes_by_expiry rows: `leading` fields, the expiration, then the strike columns. */
export function writeByExpiryRows(writer: CsvWriter, leading: readonly (string | number)[], chains: readonly ChainState[]): void {
  for (const chain of chains) {
    const prefix = encoder.encode(`${rowPrefix([...leading, chain.book.info.iso])},`);
    const strikes = strikesOf(chain);
    const ois = oisOf(chain);
    const { callGex, putGex, netGex } = chain.columns;
    for (let i = 0; i < strikes.length; i++) {
      writer.bytes(prefix);
      writer.bytes(strikes[i] as Uint8Array);
      writer.number(callGex[i] as number, COMMA);
      writer.number(putGex[i] as number, COMMA);
      writer.number(netGex[i] as number, COMMA);
      writer.bytes(ois[i] as Uint8Array);
      writer.endLine();
    }
  }
}

/** One capture's strikes_total rows: the capture's `prefix` text, then the strike columns. */
export function writeTotalRows(writer: CsvWriter, prefix: string, columns: StrikeColumns): void {
  const encoded = encoder.encode(prefix);
  for (let i = 0; i < columns.strike.length; i++) {
    writer.bytes(encoded);
    writer.number(columns.strike[i] as number, COMMA);
    writer.number(columns.callGex[i] as number, COMMA);
    writer.number(columns.putGex[i] as number, COMMA);
    writer.number(columns.netGex[i] as number, COMMA);
    writer.number(columns.callOi[i] as number, COMMA);
    writer.number(columns.putOi[i] as number, NEWLINE);
    writer.endLine();
  }
}
