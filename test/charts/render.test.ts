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
import { profileOption } from '../../src/charts/profile.js';
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
  it('decodes to the asked size, draws pixels of the series colours, and is stable', () => {
    const look = { width: 640, height: 400, theme: 'dark' as const };
    const option = profileOption(profileFixture(), { net: false }, look);
    const png = encodeChart(option, look, 'png');
    const image = PNG.sync.read(png);
    expect([image.width, image.height]).toEqual([640, 400]);
    const colours = new Set<string>();
    for (let i = 0; i < image.data.length; i += 4) colours.add(`${image.data[i]},${image.data[i + 1]},${image.data[i + 2]}`);
    expect(colours.has('13,17,23')).toBe(true); // dark background #0d1117
    expect(colours.has('63,185,80')).toBe(true); // call bars #3fb950
    expect(colours.has('248,81,73')).toBe(true); // put bars #f85149
    expect(encodeChart(option, look, 'png').equals(png)).toBe(true);
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

  it('tints the whole slot of each session, edge to edge, in its regime; a session with no regime stays white', () => {
    const look = { width: 800, height: 450, theme: 'light' as const };
    const data = seriesFixture(); // positive, positive, negative, (none), positive
    const image = PNG.sync.read(encodeChart(levelsOption(data, look), look, 'png'));
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
  it('embeds the glyphs of its text as an @font-face data URL; the embedded font alone draws the same picture', () => {
    const option = levelsOption(seriesFixture(), LOOK);
    const svg = encodeChart(option, LOOK, 'svg').toString('utf8');
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
      expect(withSubset.equals(encodeChart(option, LOOK, 'png'))).toBe(true);
      expect(Buffer.from(face![1]!, 'base64').length).toBeLessThan(30_000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the text of the SVG, entities decoded', () => {
    expect(svgText('<svg><text x="1">a &amp; b</text><path/><text>&#8594;&lt;&#x2190;</text></svg>')).toBe('a & b→<←');
    expect(embedFont('<svg width="1"><path/></svg>')).toBe('<svg width="1"><path/></svg>');
  });
});
