// The report's two tables at the top of each pair: the latest levels (levels_compare), with the API's
// walls and the nearest walls side by side under names that say their rules, and what changed since
// the last close (report-changes.ts): each value then and now, and its change.
import { captureTime, price } from './format.js';
import { API_CALL_WALL, API_PUT_WALL, nearestWallName } from './profile.js';
import type { ChangeSide, PairChanges } from './report-changes.js';
import type { PairReport } from './report-data.js';
import { usdMillions } from './format.js';
import { html, joinHtml, type Html } from './html.js';

export function table(head: string[], rows: string[][], className = ''): Html {
  const th = head.map((h) => html`<th>${h}</th>`);
  const tr = joinHtml(
    rows.map((r) => html`<tr>${r.map((c) => html`<td>${c}</td>`)}</tr>`),
    '\n',
  );
  const open = className ? html`<table class="${className}">` : html`<table>`;
  return html`${open}<thead><tr>${th}</tr></thead><tbody>\n${tr}\n</tbody></table>`;
}

export const orDash = (v: number | string | null | undefined): string => (v === null || v === undefined ? '-' : String(v));
export const signed = (v: number | null): string => (v === null ? '-' : `${v >= 0 ? '+' : '-'}${price(Math.abs(v))}`);

/** The latest capture's levels; the API's walls (p1/n1) and the nearest walls within the range named apart. */
export function latestTable(report: PairReport, rangePct: number, zone?: string): Html {
  const l = report.latest;
  if (l === null) return html`<p>no levels held</p>`;
  return table(
    [
      'capture',
      'type',
      'spot',
      'Δ 1d',
      'Δ 7d',
      'flip',
      'regime',
      'net GEX',
      API_CALL_WALL,
      API_PUT_WALL,
      nearestWallName('call', rangePct),
      nearestWallName('put', rangePct),
    ],
    [
      [
        captureTime(l.capturedAt, zone),
        orDash(l.type),
        price(l.spot),
        signed(l.spotDelta1d),
        signed(l.spotDelta7d),
        price(l.flip),
        orDash(l.regime),
        usdMillions(l.netGex, true),
        price(l.callWall),
        price(l.putWall),
        price(l.nearestCallWall ?? null),
        price(l.nearestPutWall ?? null),
      ],
    ],
    'latest',
  );
}

const delta = (then: number | null, now: number | null): string => (then === null || now === null ? '-' : signed(now - then));
const deltaPct = (then: number | null, now: number | null): string =>
  then === null || now === null || then === 0 ? '-' : `${now >= then ? '+' : '-'}${Math.abs(((now - then) / then) * 100).toFixed(2)}%`;

function sideName(side: ChangeSide, zone?: string): string {
  return `${side.type === 'close' ? 'close' : 'intraday'} ${captureTime(side.capturedAt, zone)}`;
}

/** The rows of the changes table: [what, then, now, change, change %]. */
export function changeRows(changes: PairChanges): string[][] {
  const then = changes.lastClose;
  const now = changes.latest;
  const value = (pick: (s: ChangeSide) => number | null): string[] => {
    const a = then === null ? null : pick(then);
    const b = pick(now);
    return [price(a), price(b), delta(a, b), deltaPct(a, b)];
  };
  const regimeThen = then?.regime ?? null;
  const regimeChange = then === null ? '-' : regimeThen === now.regime ? 'unchanged' : `${orDash(regimeThen)} → ${orDash(now.regime)}`;
  return [
    ['spot', ...value((s) => s.spot)],
    ['flip', ...value((s) => s.flip)],
    ['regime', orDash(regimeThen), orDash(now.regime), regimeChange, ''],
    [API_CALL_WALL, ...value((s) => s.apiCallWall)],
    [API_PUT_WALL, ...value((s) => s.apiPutWall)],
    [nearestWallName('call', changes.rangePct), ...value((s) => s.nearestCallWall)],
    [nearestWallName('put', changes.rangePct), ...value((s) => s.nearestPutWall)],
  ];
}

/** "What changed since the last close": the last close against the latest capture, value by value. */
export function changesBlock(report: PairReport, zone?: string): Html {
  const changes = report.changes;
  if (changes === undefined || changes === null) return html``;
  const now = changes.latest;
  const then = changes.lastClose;
  const title = html`<h3>What changed since the last close</h3>`;
  if (then === null) return html`${title}<p class="sub">no close held before the latest capture (${sideName(now, zone)})</p>`;
  const from = `from the close of ${then.sessionDate} (${captureTime(then.capturedAt, zone)}) to the latest capture, ${sideName(now, zone)}`;
  const columns = ['', `close ${then.sessionDate}`, sideName(now, zone), 'change', 'change %'];
  return html`${title}<p class="sub">${from}</p>\n${table(columns, changeRows(changes), 'changes')}`;
}
