// readRows types DuckDB's values by a shape and refuses what the shape does not promise, naming the
// column: the hand casts it replaced turned a NULL into the text 'null' and a BIGINT NULL into 0.
import type { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duckdb } from '../../src/warehouse/duckdb.js';
import { bool, nullable, num, oneOf, readOne, readRow, readRows, rowsOf, text, textList } from '../../src/warehouse/read-rows.js';

let instance: DuckDBInstance;
let conn: DuckDBConnection;

beforeAll(async () => {
  instance = await duckdb.DuckDBInstance.create(':memory:');
  conn = await instance.connect();
});

afterAll(() => {
  conn.closeSync();
  instance.closeSync();
});

describe('readRows', () => {
  it('reads each DuckDB type the warehouse returns as the shape says', async () => {
    const rows = await readRows(
      conn,
      `SELECT 'cme' AS exchange, 3::INTEGER AS i, 9007199254740991::BIGINT AS big, 1.5::DOUBLE AS d, 2.25::DECIMAL(9, 2) AS dec,
              true AS ok, NULL::VARCHAR AS note, ['a', 'b'] AS list, 'loaded' AS status`,
      [],
      { exchange: text, i: num, big: num, d: num, dec: num, ok: bool, note: nullable(text), list: textList, status: oneOf(['loaded', 'failed_load']) },
    );
    expect(rows).toEqual([{ exchange: 'cme', i: 3, big: 9007199254740991, d: 1.5, dec: 2.25, ok: true, note: null, list: ['a', 'b'], status: 'loaded' }]);
    expect(typeof rows[0]?.big).toBe('number');
  });

  it("takes parameters and keeps only the shape's columns", async () => {
    const rows = await readRows(conn, 'SELECT $1::VARCHAR AS a, 2 AS b, 3 AS extra', ['x'], { a: text, b: num });
    expect(rows).toEqual([{ a: 'x', b: 2 }]);
  });

  it('refuses a NULL in a column the shape says is never NULL, naming the column and the query', async () => {
    await expect(readRows(conn, 'SELECT NULL::BIGINT AS rows', [], { rows: num })).rejects.toThrow(
      /column rows of a warehouse read is NULL, not a number \(SELECT NULL::BIGINT AS rows\)/,
    );
    await expect(readRows(conn, 'SELECT NULL::VARCHAR AS sha256', [], { sha256: text })).rejects.toThrow(/column sha256 .* is NULL, not text/);
  });

  it('refuses a column the query does not return (a typo between the SQL and the shape)', async () => {
    await expect(readRows(conn, 'SELECT 1 AS session_date', [], { sessionDate: num })).rejects.toThrow(/column sessionDate .* is no such column, not a number/);
  });

  it('refuses a value of another type, and text outside oneOf', async () => {
    await expect(readRows(conn, `SELECT 1 AS n`, [], { n: text })).rejects.toThrow(/column n .* is number, not text/);
    await expect(readRows(conn, `SELECT 'tomorrow' AS status`, [], { status: oneOf(['loaded', 'failed_load']) })).rejects.toThrow(/one of loaded, failed_load/);
    await expect(readRows(conn, `SELECT [1, 2] AS list`, [], { list: textList })).rejects.toThrow(/not a list of text/);
  });

  it('readRow answers undefined on no row; readOne calls that an error', async () => {
    expect(await readRow(conn, 'SELECT 1 AS n WHERE false', [], { n: num })).toBeUndefined();
    expect(await readOne(conn, 'SELECT count(*) AS n FROM range(4)', [], { n: num })).toEqual({ n: 4 });
    await expect(readOne(conn, 'SELECT 1 AS n WHERE false', [], { n: num })).rejects.toThrow(/returned no row \(SELECT 1 AS n WHERE false\)/);
  });

  it("lets an error that is not a column's through unchanged", () => {
    const boom = new RangeError('boom');
    expect(() =>
      rowsOf([{ a: 1 }], {
        a: () => {
          throw boom;
        },
      }),
    ).toThrow(boom);
  });
});
