import { describe, expect, it } from 'vitest';
import { CsvRecordCounter } from '../../../src/core/archive/row-count.js';

describe('CsvRecordCounter', () => {
  const count = (text: string, chunk = 1): number => {
    const counter = new CsvRecordCounter();
    const bytes = Buffer.from(text, 'utf8');
    for (let i = 0; i < bytes.length; i += chunk) counter.push(bytes.subarray(i, i + chunk));
    return counter.dataRows();
  };
  // The same cases read_csv (auto_detect off, quote and escape '"') counts: 2, 2, 2, 2, 2, 2, 2, 0.
  it.each([
    ['plain', 'a,b\n1,2\n3,4\n', 2],
    ['no last line end', 'a,b\n1,2\n3,4', 2],
    ['blank lines are not records', 'a,b\n1,2\n\n3,4\n\n\n', 2],
    ['CRLF', 'a,b\r\n1,2\r\n3,4\r\n', 2],
    ['a quoted line end belongs to its field', 'a,b\n"x\r\ny",2\n3,4\n', 2],
    ['escaped quotes', 'a,b\n"say ""hi""\n",2\n3,"4"\n', 2],
    ['empty fields are a record', 'a,b\n,\n3,4\n', 2],
    ['only the header', 'a,b\n', 0],
    ['nothing', '', 0],
    ['UTF-8 text', 'a,b\n"é\n€",2\n', 1],
  ])('%s', (_name, text, rows) => {
    expect(count(text)).toBe(rows);
    expect(count(text, 3)).toBe(rows);
    expect(count(text, 1 << 16)).toBe(rows);
  });
});
