// What a rebuild from the archive alone needs to know about the raw archive, with no ledger to ask:
// which files follow the layout `<root>/<exchange>/<symbol>/<date>_<file>.csv.gz` (anything else is
// skipped and named; `.part` temps of a sync are ignored), and each file's sha256, size and own row
// count (the manifest that knew it lives in the damaged warehouse).
import { createReadStream, promises as fs, type Dirent } from 'node:fs';
import { join, relative } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { parseArchivePath, type ArchivedFileKey } from '../sync/archive.js';
import { EXCHANGES } from '../core/pairs.js';

export interface ArchivedFile extends ArchivedFileKey {
  path: string;
}

export interface ArchiveScan {
  /** Files of the archive layout, sorted by path. */
  files: ArchivedFile[];
  /** Entries that are not archived daily files (not followed, not read), sorted. */
  strays: string[];
}

const PART_SUFFIX = '.part';

/** Walks the three levels of the layout; links are never followed. Missing root: empty scan. */
export async function scanArchive(root: string): Promise<ArchiveScan> {
  const scan: ArchiveScan = { files: [], strays: [] };
  for (const exchange of await readFolder(root)) {
    const exchangePath = join(root, exchange.name);
    if (!exchange.isDirectory() || !(EXCHANGES as readonly string[]).includes(exchange.name)) {
      scan.strays.push(exchangePath);
      continue;
    }
    for (const symbol of await readFolder(exchangePath)) {
      const symbolPath = join(exchangePath, symbol.name);
      if (!symbol.isDirectory()) scan.strays.push(symbolPath);
      else await scanSymbolFolder(root, symbolPath, scan);
    }
  }
  scan.files.sort((a, b) => compare(a.path, b.path));
  scan.strays.sort(compare);
  return scan;
}

async function scanSymbolFolder(root: string, folder: string, scan: ArchiveScan): Promise<void> {
  for (const entry of await readFolder(folder)) {
    const path = join(folder, entry.name);
    if (entry.isFile() && entry.name.endsWith(PART_SUFFIX)) continue; // a sync's temp, not a file yet
    const key = entry.isFile() ? parseArchivePath(relative(root, path)) : null;
    if (key === null) scan.strays.push(path);
    else scan.files.push({ ...key, path });
  }
}

async function readFolder(folder: string): Promise<Dirent[]> {
  try {
    return await fs.readdir(folder, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Counts the CSV records of a byte stream the way read_csv reads them: line ends (LF, CR or CRLF)
 * inside double quotes belong to the field, and empty lines are not records. Works on bytes: quote,
 * CR and LF never occur inside a UTF-8 multi-byte character.
 */
export class CsvRecordCounter {
  private records = 0;
  private quoted = false;
  private lineHasContent = false;

  push(chunk: Uint8Array): void {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    // Most files quote nothing and end lines with LF: native searches instead of a loop per byte
    // (319 MB of CSV: 2.3 s -> 1.2 s, about what gunzip alone costs).
    if (!this.quoted && !bytes.includes(QUOTE) && !bytes.includes(CR)) this.pushPlainLines(bytes);
    else this.pushBytes(bytes);
  }

  private pushPlainLines(bytes: Buffer): void {
    let start = 0;
    for (let end = bytes.indexOf(LF); end !== -1; end = bytes.indexOf(LF, start)) {
      if (end > start) this.lineHasContent = true;
      this.endLine();
      start = end + 1;
    }
    if (start < bytes.length) this.lineHasContent = true;
  }

  private pushBytes(bytes: Buffer): void {
    for (const byte of bytes) {
      if (byte === QUOTE) {
        this.quoted = !this.quoted; // an escaped "" toggles twice
        this.lineHasContent = true;
      } else if (!this.quoted && (byte === LF || byte === CR)) {
        this.endLine();
      } else {
        this.lineHasContent = true;
      }
    }
  }

  /** Data rows: every record after the header. */
  dataRows(): number {
    const total = this.records + (this.lineHasContent ? 1 : 0); // a last line without a line end
    return Math.max(0, total - 1);
  }

  private endLine(): void {
    if (this.lineHasContent) this.records += 1;
    this.lineHasContent = false;
  }
}

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;

/** Data rows of a gzip CSV (streamed); throws on a broken gzip. */
export async function countGzipCsvRows(path: string): Promise<number> {
  const counter = new CsvRecordCounter();
  await pipeline(createReadStream(path), createGunzip(), async (chunks: AsyncIterable<Buffer>) => {
    for await (const chunk of chunks) counter.push(chunk);
  });
  return counter.dataRows();
}
