// The chart font (Inter Regular, assets/fonts): its file for the PNG renderer, and a subset of it
// for SVG files. An SVG names its font; a browser without Inter drew a fallback whose wider glyphs
// made the legend entries overlap, so each SVG carries the glyphs it uses as an @font-face data URL,
// cut by HarfBuzz's subsetter (harfbuzzjs' standalone WebAssembly build, instantiated synchronously).
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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

// Node's WebAssembly global; the project's types (no DOM library) do not declare it.
declare const WebAssembly: { Module: new (bytes: Uint8Array) => object; Instance: new (module: object, imports: object) => { exports: object } };

/** The few functions of hb-subset this module calls (pointers are offsets into `memory`). */
interface HarfBuzzSubset {
  memory: { buffer: ArrayBuffer };
  malloc(size: number): number;
  hb_blob_create(data: number, length: number, mode: number, userData: number, destroy: number): number;
  hb_blob_destroy(blob: number): void;
  hb_blob_get_data(blob: number, length: number): number;
  hb_blob_get_length(blob: number): number;
  hb_face_create(blob: number, index: number): number;
  hb_face_destroy(face: number): void;
  hb_face_reference_blob(face: number): number;
  hb_set_add(set: number, codepoint: number): void;
  hb_subset_input_create_or_fail(): number;
  hb_subset_input_destroy(input: number): void;
  hb_subset_input_unicode_set(input: number): number;
  hb_subset_input_set_flags(input: number, flags: number): void;
  hb_subset_or_fail(face: number, input: number): number;
}

const HB_MEMORY_MODE_READONLY = 1;
// Browsers hint on their own; the font's hinting instructions would only add bytes.
const HB_SUBSET_FLAGS_NO_HINTING = 1;

let loaded: { hb: HarfBuzzSubset; face: number } | undefined;

/** HarfBuzz with the chart font's face, made once per process; the font's bytes stay in its memory. */
function inter(): { hb: HarfBuzzSubset; face: number } {
  if (loaded) return loaded;
  const wasm = readFileSync(createRequire(import.meta.url).resolve('harfbuzzjs/dist/harfbuzz-subset.wasm'));
  const hb = new WebAssembly.Instance(new WebAssembly.Module(wasm), {}).exports as unknown as HarfBuzzSubset;
  const font = readFileSync(fontPath());
  const data = hb.malloc(font.length);
  new Uint8Array(hb.memory.buffer).set(font, data);
  const blob = hb.hb_blob_create(data, font.length, HB_MEMORY_MODE_READONLY, 0, 0);
  const face = hb.hb_face_create(blob, 0);
  hb.hb_blob_destroy(blob);
  loaded = { hb, face };
  return loaded;
}

/** A TrueType font holding the chart font's glyphs of these characters (and the ones they need). */
export function fontSubset(text: string): Buffer {
  const { hb, face } = inter();
  const input = hb.hb_subset_input_create_or_fail();
  if (input === 0) throw new Error('font subset: out of memory');
  try {
    const unicodes = hb.hb_subset_input_unicode_set(input);
    for (const char of new Set(text)) hb.hb_set_add(unicodes, char.codePointAt(0) as number);
    hb.hb_subset_input_set_flags(input, HB_SUBSET_FLAGS_NO_HINTING);
    const subset = hb.hb_subset_or_fail(face, input);
    if (subset === 0) throw new Error('font subset: HarfBuzz could not subset the chart font');
    const blob = hb.hb_face_reference_blob(subset);
    const offset = hb.hb_blob_get_data(blob, 0);
    // Copied out before anything else runs in HarfBuzz: its memory may grow and move.
    const bytes = Buffer.from(new Uint8Array(hb.memory.buffer, offset, hb.hb_blob_get_length(blob)));
    hb.hb_blob_destroy(blob);
    hb.hb_face_destroy(subset);
    return bytes;
  } finally {
    hb.hb_subset_input_destroy(input);
  }
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
export function fontFaceRule(text: string): string {
  return `@font-face{font-family:"${FONT_NAME}";src:url(data:font/ttf;base64,${fontSubset(text).toString('base64')}) format("truetype")}`;
}

/** The SVG with the glyphs of its text embedded right after its opening tag. */
export function embedFont(svg: string): string {
  const text = svgText(svg);
  if (text === '') return svg;
  return svg.replace(/^(<svg\b[^>]*>)/, (open: string) => `${open}<style>${fontFaceRule(text)}</style>`);
}
