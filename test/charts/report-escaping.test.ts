// The report escapes by default: a hostile symbol, venue, regime, run command or outcome (markup,
// quotes, ampersands) reaches the page as text at every place it is written, never as markup; and
// the template itself escapes what it is given unless it is marked as markup.
import { beforeAll, describe, expect, it } from 'vitest';
import { escapeHtml, html, joinHtml, raw } from '../../src/charts/html.js';
import type { ReportData } from '../../src/charts/report-data.js';
import type { ChangeSide } from '../../src/charts/report-changes.js';
import { buildReportHtml } from '../../src/charts/report-html.js';
import { LOOK, profileFixture, seriesFixture } from './fixtures.js';

const HOSTILE = `<script>alert("x")</script>&'`;
const SHOWN = escapeHtml(HOSTILE);

function side(capturedAt: string, sessionDate: string): ChangeSide {
  return {
    capturedAt,
    sessionDate,
    type: 'close',
    spot: 100,
    flip: 90,
    regime: HOSTILE,
    apiCallWall: 110,
    apiPutWall: 80,
    nearestCallWall: 105,
    nearestPutWall: 85,
  };
}

/** Every name the warehouse hands the report, hostile. */
function hostileReport(): ReportData {
  const pair = { exchange: HOSTILE, symbol: HOSTILE };
  const series = { ...seriesFixture(), ...pair };
  const { askedAt: _asked, ...profile } = profileFixture();
  return {
    coverage: [
      {
        ...pair,
        remoteFirst: '2026-03-02T00:00:00Z',
        remoteLast: '2026-03-10T23:45:00Z',
        remoteSessions: 9,
        heldFirst: '2026-03-02',
        heldLast: '2026-03-06',
        heldSessions: 5,
        missing: [],
      },
    ],
    runs: [{ runId: 1, command: HOSTILE, startedAt: '2026-03-11T00:30:00Z', outcome: HOSTILE, creditsSpent: 1, filesLoaded: 1 }],
    creditsSpent: 1,
    pairs: [
      {
        ...pair,
        latest: {
          capturedAt: '2026-03-10T23:45:00Z',
          type: HOSTILE,
          spot: 100,
          flip: 90,
          regime: HOSTILE,
          netGex: 1e6,
          callWall: 110,
          putWall: 80,
          spotDelta1d: null,
          spotDelta7d: null,
        },
        changes: { rangePct: 10, lastClose: side('2026-03-09T23:45:00Z', '2026-03-09'), latest: side('2026-03-10T23:45:00Z', '2026-03-10') },
        series,
        profiles: [{ ...profile, ...pair }],
        term: null,
      },
    ],
  };
}

const PAGE = { look: LOOK, echartsScript: 'window.echarts = {};', sessions: 30, rangePct: 10 };

describe('the report page with hostile names', () => {
  let page: string;
  beforeAll(async () => {
    page = await buildReportHtml(hostileReport(), PAGE);
  });

  it('never writes a name as markup: no tag, quote or ampersand of it survives anywhere in the page', () => {
    // The embedded data keeps the names as JSON, its '<' escaped so that no text closes the script.
    const data = /<script type="application\/json" id="gexwh-data">(.*?)<\/script>/s.exec(page)![1]!;
    expect(data).not.toContain('<');
    expect(data).toContain(JSON.stringify(HOSTILE).slice(1, -1).replace(/</g, '\\u003c'));
    const markup = page.replace(data, '');
    expect(markup).not.toContain('<script>alert');
    expect(markup).not.toContain(`"x")`);
    expect(markup).not.toContain(`&'`);
  });

  it('writes each name as text at every place it appears', () => {
    const pairName = `${SHOWN} ${SHOWN}`;
    const anchor = `${SHOWN}-${SHOWN}`;
    const sites = {
      'coverage table': `<td>${pairName}</td>`,
      'run command': `<td>${SHOWN}</td><td>2026-03-11 00:30 UTC</td><td>${SHOWN}</td>`,
      'contents link': `<a href="#${anchor}">${pairName}</a>`,
      'contents reading': `regime ${SHOWN} · net GEX`,
      'section anchor': `<section class="pair" id="${anchor}">`,
      'section heading': `<h2>${pairName} <a class="top"`,
      'latest table': `<td>${SHOWN}</td><td>100</td>`,
      'changes table': `<td>regime</td><td>${SHOWN}</td><td>${SHOWN}</td><td>unchanged</td>`,
      'term note': `no term structure captured for ${SHOWN} (gexwh capture --symbol ${SHOWN} captures it)`,
    };
    const missing = Object.entries(sites).filter(([, text]) => !page.includes(text));
    expect(missing.map(([site]) => site)).toEqual([]);
  });
});

describe('the html template', () => {
  it('escapes text and numbers, keeps markup made by the template or marked raw, joins lists', () => {
    const name = `a<b>&"c'`;
    expect(html`<td title="${name}">${name}</td>`.text).toBe('<td title="a&lt;b&gt;&amp;&quot;c&#39;">a&lt;b&gt;&amp;&quot;c&#39;</td>');
    expect(html`<p>${html`<b>${name}</b>`} ${raw('<i>x</i>')} ${3}${null}${undefined}</p>`.text).toBe('<p><b>a&lt;b&gt;&amp;&quot;c&#39;</b> <i>x</i> 3</p>');
    expect(html`<ul>${['<', html`<li>x</li>`]}</ul>`.text).toBe('<ul>&lt;<li>x</li></ul>');
    expect(joinHtml([html`<a>`, html`<b>`], ' · ').text).toBe('<a> · <b>');
  });
});
