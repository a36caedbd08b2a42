import type { Writable } from 'node:stream';

export const FAULT_VARIABLE: string;
export interface WriteFault {
  code: string;
  after: number;
}
export function parseWriteFault(value: string | undefined): WriteFault | undefined;
export function faultyOpener<O>(fault: WriteFault, open: (path: string, options?: O) => Writable): (path: string, options?: O) => Writable;
