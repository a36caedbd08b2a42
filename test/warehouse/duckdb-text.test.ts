import { describe, expect, it } from 'vitest';
import { conciseDbError } from '../../src/warehouse/duckdb-text.js';

describe('conciseDbError', () => {
  it('keeps the problem and the file, drops hints and SQL text', () => {
    const message = [
      'Conversion Error: CSV Error on Line: 3',
      'Original Line: 1,2026-11-20T14:00:00Z,abc',
      'Error when converting column "spot". Could not convert string "abc" to \'DOUBLE\'',
      '',
      'Column spot is being converted as type DOUBLE',
      'This type was auto-detected from the CSV file.',
      'Possible solutions:',
      '* Override the type',
      '  file = /tmp/x.csv.gz',
    ].join('\n');
    expect(conciseDbError(message)).toBe(
      'Conversion Error: CSV Error on Line: 3 Original Line: 1,2026-11-20T14:00:00Z,abc Error when converting column "spot". Could not convert string "abc" to \'DOUBLE\' Column spot is being converted as type DOUBLE',
    );
    expect(conciseDbError('Conversion Error: bad date\n\nLINE 1: SELECT ...\n   ^')).toBe('Conversion Error: bad date');
  });
});
