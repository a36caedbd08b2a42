// Date-times of API payloads, read in every ISO 8601 form the spec's wording allows and stored in one:
// YYYY-MM-DDTHH:MM:SS[.fraction]Z. The spec says "ISO 8601 UTC with Z" in places, bare "date-time"
// in others, and ISO 8601 lets an instant drop its seconds or spell UTC as +00:00 or +0000. A
// non-zero offset on a field the spec says is UTC is refused rather than guessed at: it means the
// server and this reading disagree on what the field holds. On other fields it is converted exactly.
import { z } from 'zod';
import { parseIsoInstant } from '../time/dates.js';

/** The spellings the API may use: a date, T, hh:mm, optional seconds and fraction, then a zone. */
const ISO_INSTANT = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:?\d{2})$/;
const ZERO_OFFSET = /^(?:Z|[+-]00:?00)$/;
const EXAMPLE = 'such as 2025-03-11T00:15:00Z (seconds optional; Z, +00:00 or +0000 for UTC)';

type Offsets = 'utc-only' | 'any';

/** The canonical UTC text of an ISO 8601 date-time, or why it is refused. */
export function utcInstantOf(text: string, offsets: Offsets): { instant: string } | { error: string } {
  const match = ISO_INSTANT.exec(text);
  if (!match) return { error: `expected an ISO 8601 UTC date-time ${EXAMPLE}` };
  const [, minute, seconds = ':00', fraction = '', zone] = match as unknown as [string, string, string | undefined, string | undefined, string];
  // Every part real (no 2025-02-30, 24:00 or +25:00), the offset applied: the one reading of an instant.
  const moment = parseIsoInstant(text);
  if (moment === undefined) return { error: `not a real date-time: ${text}` };
  if (ZERO_OFFSET.test(zone)) return { instant: `${minute}${seconds}${fraction}Z` };
  if (offsets === 'utc-only') return { error: `expected a UTC date-time (Z or a zero offset), not one at offset ${zone}` };
  // Whole minutes move; the fraction is carried over as written, so the conversion is exact.
  return { instant: `${moment.toISOString().slice(0, 19)}${fraction}Z` };
}

function instantSchema(offsets: Offsets) {
  return z.string().transform((text, ctx) => {
    const read = utcInstantOf(text, offsets);
    if ('instant' in read) return read.instant;
    ctx.issues.push({ code: 'custom', message: read.error, input: text });
    return z.NEVER;
  });
}

/** A field the spec says is UTC: a non-zero offset is refused. */
export const UtcInstantSchema = instantSchema('utc-only');
/** A plain "date-time" field: any offset, converted exactly to UTC. */
export const DateTimeSchema = instantSchema('any');
