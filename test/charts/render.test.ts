// SVG and PNG output: well-formed, the asked size, and the same bytes on every run.
import { Resvg } from '@resvg/resvg-js';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { encodeChart } from '../../src/charts/draw.js';
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
