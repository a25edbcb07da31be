// A drawn signature's PNG (docs/api-contract.md §30), in the PDF pool's threads (mail/pdf-pool.ts): whether it
// shows anything, and the box an approved quote's PDF draws it in. The image is decoded with png-js (pdfkit's
// own PNG decoder) after its chunks' CRCs are checked and its pixel data inflated within a bound (logo-image.ts),
// as for a logo; a thread, not the API's, as decoding 2,000 × 1,000 pixels takes a while and png-js throws a
// damaged stream's error where no caller can catch it (the pool then answers the task's failure).
import PNG from 'png-js';
import { inflatePng } from './logo-image.js';

/** The box an approved quote's PDF draws the signature in, in points: the image fits it, its proportions kept. */
export const SIGNATURE_BOX = { width: 180, height: 60 };

/**
 * Whether the PNG shows nothing: every pixel the same colour as the first (fully transparent pixels count as one
 * colour, whatever RGB they carry, as a canvas cleared to transparent holds). Throws when it cannot be decoded.
 */
export async function isBlankPng(data: Uint8Array): Promise<boolean> {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  inflatePng(bytes);
  const image = new PNG(bytes);
  if (image.bits !== 8) throw new Error(`the PNG has ${image.bits}-bit samples; a drawn signature has 8-bit ones`);
  // RGBA, 4 bytes a pixel, palettes and grey levels expanded.
  const rgba = await new Promise<Uint8Array>((resolve) => image.decode(resolve));
  const firstClear = rgba[3] === 0;
  for (let at = 4; at < rgba.length; at += 4) {
    const clear = rgba[at + 3] === 0;
    if (clear !== firstClear) return false;
    if (
      !clear &&
      (rgba[at] !== rgba[0] || rgba[at + 1] !== rgba[1] || rgba[at + 2] !== rgba[2] || rgba[at + 3] !== rgba[3])
    )
      return false;
  }
  return true;
}
