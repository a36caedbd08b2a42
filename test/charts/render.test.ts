// SVG and PNG output: well-formed, the asked size, and the same bytes on every run.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { encodeChart } from '../../src/charts/draw.js';
import { embedFont, svgText } from '../../src/charts/font.js';
import { levelsOption } from '../../src/charts/levels.js';
import { PROFILE_GRID, profileOption } from '../../src/charts/profile.js';
import { withCumulativeNetGex } from '../../src/charts/read.js';
import { renderSvg, stableClassNames } from '../../src/charts/render.js';
import { LOOK, profileFixture, seriesFixture } from './fixtures.js';

describe('renderSvg', () => {
  it('is well-formed XML of the asked size, with the title text', () => {
    const svg = renderSvg(profileOption(profileFixture(), { net: false }, LOOK), LOOK);
    // resvg parses with a strict XML parser: a malformed document throws.
    const parsed = new Resvg(svg, { font: { loadSystemFonts: false } });
    expect([parsed.width, parsed.height]).toEqual([800, 450]);
    expect(svg).toMatch(/^<svg width="800" height="450"/);
    expect(svg).toContain('deribit BTC · GEX by strike (all expirations)');
    expect(svg).toContain('capture 2026-03-10 23:45 UTC');
  });

  it('gives the same bytes twice in one process (ECharts numbers its classes with global counters)', () => {
    const option = () => levelsOption(seriesFixture(), LOOK);
    const first = renderSvg(option(), LOOK);
    renderSvg(profileOption(profileFixture(), { net: true }, LOOK), LOOK);
    expect(renderSvg(option(), LOOK)).toBe(first);
    expect(first).not.toMatch(/zr\d+-/);
    expect(first).toMatch(/clip-path="url\(#g-\d+\)"/);
  });

  it('renames classes by first appearance', () => {
    expect(stableClassNames('a zr4-cls-9 b zr4-cls-2 zr4-cls-9 id="zr4-c1" url(#zr4-c1)', 'p')).toBe('a p-0 b p-1 p-0 id="p-2" url(#p-2)');
  });
});

describe('PNG', () => {
  it('decodes to the asked size, draws pixels of the series colours, and is stable', async () => {
    const look = { width: 640, height: 400, theme: 'dark' as const };
    const option = profileOption(profileFixture(), { net: false }, look);
    const png = await encodeChart(option, look, 'png');
    const image = PNG.sync.read(png);
    expect([image.width, image.height]).toEqual([640, 400]);
    const colours = new Set<string>();
    for (let i = 0; i < image.data.length; i += 4) colours.add(`${image.data[i]},${image.data[i + 1]},${image.data[i + 2]}`);
    expect(colours.has('13,17,23')).toBe(true); // dark background #0d1117
    expect(colours.has('63,185,80')).toBe(true); // call bars #3fb950
    expect(colours.has('248,81,73')).toBe(true); // put bars #f85149
    expect((await encodeChart(option, look, 'png')).equals(png)).toBe(true);
  });
});

describe('levels PNG: regime bands by pixel', () => {
  // The plot spans the grid (72 px each side); each session owns one equal slot of it.
  const tint = (image: PNG, x: number, y: number): 'positive' | 'negative' | 'none' => {
    const i = (image.width * y + x) * 4;
    const [r, g] = [image.data[i]!, image.data[i + 1]!];
    if (r > 250 && g > 250) return 'none';
    return g > r ? 'positive' : 'negative';
  };

  it('tints the whole slot of each session, edge to edge, in its regime; a session with no regime stays white', async () => {
    const look = { width: 800, height: 450, theme: 'light' as const };
    const data = seriesFixture(); // positive, positive, negative, (none), positive
    const image = PNG.sync.read(await encodeChart(levelsOption(data, look), look, 'png'));
    const grid = { left: 72, right: look.width - 72, top: 120, bottom: look.height - 70 };
    const slot = (grid.right - grid.left) / data.closes.length;
    data.closes.forEach((close, i) => {
      // Near both edges of the slot and at its centre, on rows across the plot: the majority colour
      // (a line crossing one row cannot change it).
      for (const x of [grid.left + i * slot + 3, grid.left + (i + 0.5) * slot, grid.left + (i + 1) * slot - 3].map(Math.round)) {
        const seen = Array.from({ length: 9 }, (_, k) => tint(image, x, Math.round(grid.top + ((k + 1) * (grid.bottom - grid.top)) / 10)));
        const counts = new Map<string, number>();
        for (const t of seen) counts.set(t, (counts.get(t) ?? 0) + 1);
        const majority = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0];
        expect(majority, `session ${close.sessionDate} at x=${x}`).toBe(close.regime ?? 'none');
      }
    });
  });
});

describe('SVG files carry their font', () => {
  it('embeds the glyphs of its text as an @font-face data URL; the embedded font alone draws the same picture', async () => {
    const option = levelsOption(seriesFixture(), LOOK);
    const svg = (await encodeChart(option, LOOK, 'svg')).toString('utf8');
    const face = /<style>@font-face\{font-family:"Inter";src:url\(data:font\/ttf;base64,([A-Za-z0-9+/=]+)\) format\("truetype"\)\}<\/style>/.exec(svg);
    expect(face, 'an @font-face rule with the font as a data URL').not.toBeNull();
    const dir = mkdtempSync(join(tmpdir(), 'gexwh-font-'));
    try {
      // resvg given only the embedded subset: a character missing from it would be drawn as nothing
      // (no system fonts), so the pictures differ.
      const subset = join(dir, 'subset.ttf');
      writeFileSync(subset, Buffer.from(face![1]!, 'base64'));
      const font = (file: string) => ({ loadSystemFonts: false, fontFiles: [file], defaultFontFamily: 'Inter', sansSerifFamily: 'Inter' });
      const withSubset = new Resvg(svg, { font: font(subset) }).render().asPng();
      expect(withSubset.equals(await encodeChart(option, LOOK, 'png'))).toBe(true);
      expect(Buffer.from(face![1]!, 'base64').length).toBeLessThan(30_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the text of the SVG, entities decoded', async () => {
    expect(svgText('<svg><text x="1">a &amp; b</text><path/><text>&#8594;&lt;&#x2190;</text></svg>')).toBe('a & b→<←');
    expect(await embedFont('<svg width="1"><path/></svg>')).toBe('<svg width="1"><path/></svg>');
  });
});

describe('profile PNG: a far wall by pixel', () => {
  it('keeps the bars across the plot and writes the wall flush with the right edge (bybit BTC: call wall 120,000, spot 76,257)', async () => {
    const look = { width: 1000, height: 560, theme: 'light' as const };
    const strikes = withCumulativeNetGex(
      Array.from({ length: 17 }, (_, i) => 70_000 + i * 1000).map((strike, i) => ({
        strike,
        callGex: (1 + (i % 5)) * 1e6,
        putGex: (1 + (i % 3)) * 5e5,
        netGex: 0,
        callOi: 1,
        putOi: 1,
      })),
    );
    const far = { ...profileFixture(), spot: 76_257, flip: 75_000, callWall: 120_000, putWall: 72_000, strikes };
    const image = PNG.sync.read(await encodeChart(profileOption(far, { net: false }, look), look, 'png'));
    const near = (x: number, y: number, [r, g, b]: number[]) => {
      const i = (image.width * y + x) * 4;
      return Math.abs(image.data[i]! - r!) + Math.abs(image.data[i + 1]! - g!) + Math.abs(image.data[i + 2]! - b!) < 40;
    };
    const columns = (from: number, to: number, rows: number[], colour: number[]) =>
      Array.from({ length: to - from }, (_, k) => from + k).filter((x) => rows.some((y) => near(x, y, colour)));
    const plot = { left: PROFILE_GRID.left, right: look.width - PROFILE_GRID.right, top: PROFILE_GRID.top, bottom: look.height - PROFILE_GRID.bottom };
    // Call bars (#2da44e) in the right fifth of the plot: the axis was not stretched to 120,000.
    const barRows = Array.from({ length: 20 }, (_, k) => Math.round(plot.top + ((k + 1) * (plot.bottom - plot.top)) / 21));
    expect(columns(Math.round(plot.right - (plot.right - plot.left) / 5), plot.right, barRows, [0x2d, 0xa4, 0x4e]).length).toBeGreaterThan(20);
    // The call wall's label (#1a7f37) ends at the plot's right edge, in its row above the plot.
    const labelRows = Array.from({ length: 14 }, (_, k) => PROFILE_GRID.top - 34 - 13 + k);
    const label = columns(plot.left, look.width, labelRows, [0x1a, 0x7f, 0x37]);
    expect(Math.max(...label)).toBeGreaterThan(plot.right - 12);
    expect(Math.max(...label)).toBeLessThanOrEqual(plot.right);
  });
});
