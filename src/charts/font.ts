// The chart font (Inter Regular, assets/fonts): its file for the PNG renderer, and a subset of it
// for SVG files. An SVG names its font; a browser without Inter drew a fallback whose wider glyphs
// made the legend entries overlap, so each SVG carries the glyphs it uses as an @font-face data URL,
// cut by HarfBuzz's subsetter (subset-font, its WebAssembly build wrapped by its authors).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import subsetFont from 'subset-font';

export const FONT_FILE = 'Inter-Regular.ttf';
export const FONT_NAME = 'Inter';

export function fontPath(): string {
  // src/charts in the sources, dist/src/charts once built: the folder that holds assets/ is above.
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, 'assets', 'fonts', FONT_FILE);
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new Error(`the chart font ${FONT_FILE} is missing (assets/fonts); reinstall gexwh`);
}

// HarfBuzz's default layout features (hb-subset keeps these unless told otherwise; subset-font keeps
// every feature unless given a list): kerning, ligatures and the shaping features, not the optional
// alternates that would only add glyphs. The subset is the bytes HarfBuzz's own defaults give.
const LAYOUT_FEATURES = (
  'abvf abvm abvs akhn blwf blwm blws calt ccmp cfar chws cjct clig cswh curs dist dnom dtls fin2 fin3 fina flac frac half haln halt init isol jalt kern liga ljmo locl ltra ' +
  'ltrm mark med2 medi mkmk mset nukt numr palt pkna pref pres pstf psts rand rclt rkrf rlig rphf rtla rtlm rvrn ssty stch tjmo valt vatu vchw vert vhal vjmo vkrn vpal vrt2 vrtr'
).split(' ');

let font: Buffer | undefined;
/** Each glyph set's subset, cut once per process (the report's page set is the same for every page). */
const subsets = new Map<string, Promise<Buffer>>();

/** A TrueType font holding the chart font's glyphs of these characters (and the ones they need). */
export function fontSubset(text: string): Promise<Buffer> {
  const glyphs = [...new Set(text)].sort().join('');
  let subset = subsets.get(glyphs);
  if (subset === undefined) {
    font ??= readFileSync(fontPath());
    // Browsers hint on their own; the font's hinting instructions would only add bytes.
    subset = subsetFont(font, glyphs, { targetFormat: 'truetype', keepFeatures: LAYOUT_FEATURES, noHinting: true });
    subsets.set(glyphs, subset);
    // A failed cut is not kept: the next call tries again.
    subset.catch(() => subsets.delete(glyphs));
  }
  return subset;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** The characters of an SVG's text elements, entities decoded. */
export function svgText(svg: string): string {
  let text = '';
  for (const match of svg.matchAll(/<text\b[^>]*>([^<]*)<\/text>/g)) {
    text += (match[1] as string).replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity: string, name: string) => {
      if (name.startsWith('#x') || name.startsWith('#X')) return String.fromCodePoint(parseInt(name.slice(2), 16));
      if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)));
      return ENTITIES[name] ?? entity;
    });
  }
  return text;
}

/** The @font-face rule of the chart font cut to these characters, as a data URL. */
export async function fontFaceRule(text: string): Promise<string> {
  return `@font-face{font-family:"${FONT_NAME}";src:url(data:font/ttf;base64,${(await fontSubset(text)).toString('base64')}) format("truetype")}`;
}

/** The SVG with the glyphs of its text embedded right after its opening tag. */
export async function embedFont(svg: string): Promise<string> {
  const text = svgText(svg);
  if (text === '') return svg;
  const style = `<style>${await fontFaceRule(text)}</style>`;
  return svg.replace(/^(<svg\b[^>]*>)/, (open: string) => `${open}${style}`);
}
