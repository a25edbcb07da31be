// The part of png-js (pdfkit's PNG reader) that mail/logo-image.ts uses; the package has no types of its own.
declare module 'png-js' {
  export default class PNG {
    constructor(data: Uint8Array);
    width: number;
    height: number;
    bits: number;
    colors: number;
    hasAlphaChannel: boolean;
    palette: number[];
    transparency: { indexed?: number[]; grayscale?: number; rgb?: number[] };
    /** The pixel data inflated and unfiltered: `bits / 8 * (colors + alpha)` bytes a pixel, rows top to bottom. */
    decodePixels(done: (pixels: Uint8Array) => void): void;
    /** The pixels as RGBA, 4 bytes a pixel (palettes and grey levels expanded; 8-bit samples only). */
    decode(done: (rgba: Uint8Array) => void): void;
  }
}
