import { expect } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { createMarketModel, type MarketModel } from '../../../emulator/market/index.js';

export const SMALL = { seed: 1234, expirations: 3, strikes: 15, historyStart: '2025-06-01' } as const;

export function smallMarket(seed: number = SMALL.seed): MarketModel {
  return createMarketModel({ ...SMALL, seed });
}

export interface ParsedCsv {
  header: string[];
  rows: Record<string, string>[];
}

/** Our files hold no quoted fields, so a plain split is a faithful parser for them. */
export function parseGzipCsv(bytes: Buffer): ParsedCsv {
  const text = gunzipSync(bytes).toString('utf8');
  const lines = text.split('\n');
  expect(lines.pop()).toBe(''); // ends with a newline
  const header = (lines.shift() ?? '').split(',');
  const rows = lines.map((line) => {
    const cells = line.split(',');
    expect(cells).toHaveLength(header.length);
    return Object.fromEntries(header.map((name, i) => [name, cells[i] as string]));
  });
  return { header, rows };
}

/** CSV cell → the JSON value it stands for. */
export function cellValue(cell: string): number | string | null {
  if (cell === '') return null;
  const number = Number(cell);
  return Number.isNaN(number) ? cell : number;
}
