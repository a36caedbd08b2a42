// Date-times of API payloads, read in every ISO 8601 form the spec's wording allows and stored in one:
// YYYY-MM-DDTHH:MM:SS[.fraction]Z. The spec says "ISO 8601 UTC with Z" in places, bare "date-time"
// in others, and ISO 8601 lets an instant drop its seconds or spell UTC as +00:00 or +0000. A
// non-zero offset on a field the spec says is UTC is refused rather than guessed at: it means the
// server and this reading disagree on what the field holds. On other fields it is converted exactly.
import { z } from 'zod';

const ISO_INSTANT = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(:\d{2})?(\.\d+)?(Z|[+-]\d{2}(?::?\d{2})?)$/;
const CANONICAL = z.iso.datetime();
const EXAMPLE = 'such as 2025-03-11T00:15:00Z (seconds optional; Z, +00:00 or +0000 for UTC)';

type Offsets = 'utc-only' | 'any';

/** Minutes east of UTC of an offset text ("Z", "+05:30", "-0800", "+01"). */
function offsetMinutes(zone: string): number {
  if (zone === 'Z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0');
  return zone.startsWith('-') ? -minutes : minutes;
}

/** The canonical UTC text of an ISO 8601 date-time, or why it is refused. */
export function utcInstantOf(text: string, offsets: Offsets): { instant: string } | { error: string } {
  const match = ISO_INSTANT.exec(text);
  if (!match) return { error: `expected an ISO 8601 UTC date-time ${EXAMPLE}` };
  const [, minute, seconds = ':00', fraction = '', zone] = match as unknown as [string, string, string | undefined, string | undefined, string];
  const local = `${minute}${seconds}`;
  if (!CANONICAL.safeParse(`${local}Z`).success) return { error: `not a real date-time: ${local}` };
  const shift = offsetMinutes(zone);
  if (shift === 0) return { instant: `${local}${fraction}Z` };
  if (offsets === 'utc-only' || Math.abs(shift) >= 24 * 60) {
    return { error: `expected a UTC date-time (Z or a zero offset), not one at offset ${zone}` };
  }
  // Whole minutes move; the fraction is carried over as written, so the conversion is exact.
  const utc = new Date(Date.parse(`${local}Z`) - shift * 60_000).toISOString().slice(0, 19);
  return { instant: `${utc}${fraction}Z` };
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
