// The part of subset-font (no types of its own) the charts use.
declare module 'subset-font' {
  interface SubsetOptions {
    targetFormat?: 'sfnt' | 'truetype' | 'woff' | 'woff2';
    /** OpenType layout features to keep (four-letter tags); every feature when undefined. */
    keepFeatures?: string[];
    noHinting?: boolean;
  }
  /** A font holding the glyphs of these characters (and the ones they need), cut by HarfBuzz's hb-subset. */
  export default function subsetFont(font: Buffer, text: string, options?: SubsetOptions): Promise<Buffer>;
}
