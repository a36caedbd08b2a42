// What an export can write: its formats and tables. A leaf module, so the CLI can validate
// `gexwh export` flags (and show them in --help) without loading DuckDB.
import { FILE_KINDS } from '../core/file-kinds.js';
import { LIVE_TABLES } from '../warehouse/live.js';

export const EXPORT_FORMATS = ['parquet', 'csv'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The tables an export writes, each partitioned by exchange, symbol and session date: the history, then the live captures. */
export const EXPORT_TABLES = [...FILE_KINDS, ...(Object.keys(LIVE_TABLES) as Array<keyof typeof LIVE_TABLES>)] as const;
export type ExportTable = (typeof EXPORT_TABLES)[number];

export const isHistoryTable = (table: ExportTable): boolean => (FILE_KINDS as readonly string[]).includes(table);
