// Colours and text style per theme. One font family everywhere: the PNG renderer has exactly this
// font (shipped in assets/fonts), so text looks the same on every machine.
import type { Theme } from './types.js';

export const FONT_FAMILY = 'Inter, sans-serif';

export interface Palette {
  background: string;
  text: string;
  subtext: string;
  axis: string;
  grid: string;
  call: string;
  put: string;
  net: string;
  spot: string;
  flip: string;
  callWall: string;
  putWall: string;
  nearestCallWall: string;
  nearestPutWall: string;
  oi: string;
  cumulative: string;
  positiveBand: string;
  negativeBand: string;
}

const LIGHT: Palette = {
  background: '#ffffff',
  text: '#1f2328',
  subtext: '#57606a',
  axis: '#8c959f',
  grid: '#e6e8eb',
  call: '#2da44e',
  put: '#cf222e',
  net: '#0969da',
  spot: '#1f2328',
  flip: '#bf8700',
  callWall: '#1a7f37',
  putWall: '#a40e26',
  nearestCallWall: '#0a7c8c',
  nearestPutWall: '#bc4c00',
  oi: '#8250df',
  cumulative: '#8250df',
  positiveBand: 'rgba(45,164,78,0.10)',
  negativeBand: 'rgba(207,34,46,0.10)',
};

const DARK: Palette = {
  background: '#0d1117',
  text: '#e6edf3',
  subtext: '#8b949e',
  axis: '#6e7681',
  grid: '#21262d',
  call: '#3fb950',
  put: '#f85149',
  net: '#58a6ff',
  spot: '#e6edf3',
  flip: '#d29922',
  callWall: '#56d364',
  putWall: '#ff7b72',
  nearestCallWall: '#39c5cf',
  nearestPutWall: '#ffa657',
  oi: '#bc8cff',
  cumulative: '#bc8cff',
  positiveBand: 'rgba(63,185,80,0.14)',
  negativeBand: 'rgba(248,81,73,0.14)',
};

export function paletteOf(theme: Theme): Palette {
  return theme === 'dark' ? DARK : LIGHT;
}
