// Text to and from DuckDB: ISO text for timestamp parameters, and DuckDB's long error messages cut
// to the line that names the problem.

/** ISO text for a TIMESTAMPTZ parameter (bound as `$n::TIMESTAMPTZ`). */
export function toIsoTimestamp(value: Date | string): string {
  return value instanceof Date ? value.toISOString() : value;
}

/**
 * DuckDB's CSV and cast errors run to 30 lines (hints about auto-detection we do not use, the SQL
 * text): keep what names the problem, on one line, for the ledger and the user.
 */
export function conciseDbError(message: string, maxLength = 600): string {
  const kept: string[] = [];
  for (const raw of message.split('\n')) {
    const line = raw.trim();
    if (/^(Possible solutions|LINE \d+:)/.test(line)) break;
    if (line === '' || /auto-detected from the CSV file/i.test(line)) continue;
    kept.push(line.length > 200 ? `${line.slice(0, 200)}…` : line);
  }
  const text = kept.join(' ');
  return text.length > maxLength ? `${text.slice(0, maxLength)}…` : text;
}
