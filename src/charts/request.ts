// The checks of what the user asked a chart for, pure: every bad value is a UsageError (exit 2) that
// says what is allowed, raised before the warehouse is opened.
import { UsageError } from '../core/errors.js';
import { isIsoDate, parseIsoInstant } from '../time/dates.js';
import { CHART_KINDS, THEMES, type ChartKind, type Look, type Theme } from './types.js';

export const OUTPUT_FORMATS = ['svg', 'png'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export const DEFAULTS = { width: 1000, height: 560, theme: 'light' as Theme, rangePct: 10, sessions: 30, expiration: 'TOTAL' };

export function parseKind(value: string): ChartKind {
  const kind = value.toLowerCase();
  if (!(CHART_KINDS as readonly string[]).includes(kind)) {
    throw new UsageError(`unknown chart kind "${value}"; allowed: ${CHART_KINDS.join(', ')}`);
  }
  return kind as ChartKind;
}

/** The format from the file's extension: .svg or .png. */
export function formatOf(out: string): OutputFormat {
  const match = /\.([^./\\]+)$/.exec(out);
  const ext = match?.[1]?.toLowerCase();
  if (ext === undefined || !(OUTPUT_FORMATS as readonly string[]).includes(ext)) {
    throw new UsageError(`--out ${out}: the extension says the format; allowed: .svg, .png`);
  }
  return ext as OutputFormat;
}

export function parseTheme(value: string | undefined): Theme {
  if (value === undefined) return DEFAULTS.theme;
  if (!(THEMES as readonly string[]).includes(value)) throw new UsageError(`--theme: unknown theme "${value}"; allowed: ${THEMES.join(', ')}`);
  return value as Theme;
}

function pixels(value: string | undefined, option: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 200 || n > 8000) throw new UsageError(`${option}: "${value}" is not a size in pixels from 200 to 8000`);
  return n;
}

export function parseLook(flags: { width?: string; height?: string; theme?: string }): Look {
  return { width: pixels(flags.width, '--width', DEFAULTS.width), height: pixels(flags.height, '--height', DEFAULTS.height), theme: parseTheme(flags.theme) };
}

/** "10%" or "10" → 10 (percent of spot on each side), from above 0 to 100. */
export function parseRange(value: string | undefined): number {
  if (value === undefined) return DEFAULTS.rangePct;
  const match = /^(\d+(?:\.\d+)?)%?$/.exec(value.trim());
  const pct = match ? Number(match[1]) : NaN;
  if (!(pct > 0 && pct <= 100)) throw new UsageError(`--range: "${value}" is not a percent of spot above 0 and at most 100, e.g. 10%`);
  return pct;
}

/** TOTAL (all expirations) or an expiration date YYYY-MM-DD. */
export function parseExpiration(value: string | undefined): string {
  if (value === undefined || value.toUpperCase() === 'TOTAL') return 'TOTAL';
  if (!isIsoDate(value)) throw new UsageError(`--expiration: "${value}" is neither TOTAL nor a date YYYY-MM-DD`);
  return value;
}

export function parseDate(value: string | undefined, option: string): string | undefined {
  if (value === undefined) return undefined;
  if (!isIsoDate(value)) throw new UsageError(`${option}: "${value}" is not a real date YYYY-MM-DD`);
  return value;
}

/** --from and --to of the session charts: real dates, --from on or before --to (the first and the last session drawn). */
export function parseSessionRange(from: string | undefined, to: string | undefined): { from?: string; to?: string } {
  const first = parseDate(from, '--from');
  const last = parseDate(to, '--to');
  if (first !== undefined && last !== undefined && first > last) {
    throw new UsageError(`--from ${first} is after --to ${last}: --from is the first session drawn and --to the last; swap them`);
  }
  return { ...(first !== undefined ? { from: first } : {}), ...(last !== undefined ? { to: last } : {}) };
}

/** An ISO 8601 instant with a date and a time zone (Z or ±hh:mm), so it means one moment anywhere, and real: no 2026-11-31. */
export function parseAt(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = parseIsoInstant(value);
  if (date === undefined) {
    throw new UsageError(
      `--at: "${value}" is not an ISO 8601 instant with a time zone and a real date and time; e.g. 2026-11-20T15:00:00Z or 2026-11-20 (midnight UTC)`,
    );
  }
  return date;
}

/** "30m", "2h", "1d", "900s" → seconds. */
export function parseStaleness(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+)\s*(s|m|h|d)$/.exec(value.trim());
  if (!match) throw new UsageError(`--max-staleness: "${value}" is not a duration such as 900s, 30m, 2h or 1d`);
  const unit = { s: 1, m: 60, h: 3600, d: 86400 }[match[2] as 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}
