// The business's logo, made ready for the PDF once per logo rather than once per render.
// A PNG is checked, decoded, scaled down to what the document's logo box can show and compressed here; a
// render then writes those bytes into the PDF as they are, decoding nothing. Left to pdfkit, a PNG with
// transparency would be decoded in every render, which for a large logo costs more than the rest of the
// document. Runs in the PDF pool's threads (mail/pdf-pool.ts), which keep the result per account and logo hash.
import zlib from 'node:zlib';
import PDFDocument from 'pdfkit';
import PNG from 'png-js';

/** The box the logo is drawn into at the top left of a document, in points. */
export const LOGO_BOX = { width: 160, height: 60 };
/** Pixels kept per point of the box: 3 (216 dpi) is sharp in print and on a zoomed screen. */
const PIXELS_PER_POINT = 3;
/** Decoded pixel data beyond this is refused: a logo has no need of it, and a small file can inflate to much. */
const MAX_DECODED_IMAGE_BYTES = 64 * 1024 * 1024;

/**
 * A logo ready to draw. `pixels`: 8-bit RGB rows and, when any pixel is not opaque, an 8-bit alpha plane, each
 * deflated, at most 480×180. `file`: the image as uploaded, drawn by pdfkit itself: a JPEG (whose bytes
 * a PDF carries as they are, so pdfkit reads only its header) or a PNG of a kind decoded here is not worth
 * it for (bit depths under 8, a transparent colour by value).
 */
export type PreparedLogo =
  | { format: 'pixels'; width: number; height: number; rgb: Uint8Array; alpha: Uint8Array | null }
  | { format: 'file'; data: Uint8Array };

/** Throws unless the image can be drawn into a PDF (the check of an uploaded logo); else the logo ready to draw. */
export async function prepareLogo(data: Uint8Array): Promise<PreparedLogo> {
  const bytes = Buffer.from(data);
  if (bytes[0] === 0x89) {
    inflatePng(bytes);
    const image = new PNG(bytes);
    const transparentColour = image.transparency.grayscale !== undefined || image.transparency.rgb !== undefined;
    if ((image.bits === 8 || image.bits === 16) && !transparentColour) return scaledPixels(image);
  }
  await assertDrawable(bytes);
  return { format: 'file', data: bytes };
}

/** What pdfkit's `image()` takes for the logo: an embeddable image object for pixels, else the file. */
export function drawableLogo(logo: PreparedLogo): unknown {
  if (logo.format === 'file') return Buffer.from(logo.data);
  const { width, height, rgb, alpha } = logo;
  const image = {
    width,
    height,
    label: 'Logo',
    obj: null as PdfRef | null,
    // pdfkit calls this once per document: the image's XObject (and its soft mask) from the prepared bytes.
    embed(document: PDFKit.PDFDocument) {
      const ref = (data: object) => (document as unknown as { ref(data: object): PdfRef }).ref(data);
      const obj = ref({
        Type: 'XObject',
        Subtype: 'Image',
        BitsPerComponent: 8,
        Width: width,
        Height: height,
        ColorSpace: 'DeviceRGB',
        Filter: 'FlateDecode',
      });
      if (alpha) {
        const mask = ref({
          Type: 'XObject',
          Subtype: 'Image',
          BitsPerComponent: 8,
          Width: width,
          Height: height,
          ColorSpace: 'DeviceGray',
          Decode: [0, 1],
          Filter: 'FlateDecode',
        });
        mask.end(alpha);
        obj.data.SMask = mask;
      }
      obj.end(rgb);
      image.obj = obj;
    },
  };
  return image;
}

interface PdfRef {
  data: Record<string, unknown>;
  end(chunk: Uint8Array): void;
}

/** Decodes the PNG's pixels and averages them down to at most the box's size at PIXELS_PER_POINT. */
async function scaledPixels(image: PNG): Promise<PreparedLogo> {
  const pixels = await new Promise<Uint8Array>((resolve) => image.decodePixels(resolve));
  const { width: w, height: h } = image;
  const scale = Math.min(1, (LOGO_BOX.width * PIXELS_PER_POINT) / w, (LOGO_BOX.height * PIXELS_PER_POINT) / h);
  const width = Math.max(1, Math.round(w * scale));
  const height = Math.max(1, Math.round(h * scale));
  // Samples per pixel as decoded, the byte step of a sample (16-bit samples: their high byte), the palette.
  const palette = image.palette.length > 0 ? Uint8Array.from(image.palette) : null;
  const paletteAlpha: number[] = image.transparency.indexed ?? [];
  const samples = palette ? 1 : image.colors + (image.hasAlphaChannel ? 1 : 0);
  const step = image.bits / 8;
  const rgb = new Uint8Array(width * height * 3);
  const alpha = new Uint8Array(width * height);
  let opaque = true;
  for (let y = 0; y < height; y += 1) {
    const y0 = Math.floor((y * h) / height);
    const y1 = Math.max(y0 + 1, Math.floor(((y + 1) * h) / height));
    for (let x = 0; x < width; x += 1) {
      const x0 = Math.floor((x * w) / width);
      const x1 = Math.max(x0 + 1, Math.floor(((x + 1) * w) / width));
      // Colours weighted by their opacity, so a transparent pixel's colour does not tint its neighbours.
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = y0; sy < y1; sy += 1) {
        for (let sx = x0; sx < x1; sx += 1) {
          const at = (sy * w + sx) * samples * step;
          let pr: number;
          let pg: number;
          let pb: number;
          let pa = 255;
          if (palette) {
            const index = pixels[at]!;
            pr = palette[index * 3]!;
            pg = palette[index * 3 + 1]!;
            pb = palette[index * 3 + 2]!;
            pa = paletteAlpha[index] ?? 255;
          } else if (image.colors === 1) {
            pr = pg = pb = pixels[at]!;
            if (image.hasAlphaChannel) pa = pixels[at + step]!;
          } else {
            pr = pixels[at]!;
            pg = pixels[at + step]!;
            pb = pixels[at + 2 * step]!;
            if (image.hasAlphaChannel) pa = pixels[at + 3 * step]!;
          }
          r += pr * pa;
          g += pg * pa;
          b += pb * pa;
          a += pa;
        }
      }
      const count = (y1 - y0) * (x1 - x0);
      const at = y * width + x;
      alpha[at] = Math.round(a / count);
      if (alpha[at] !== 255) opaque = false;
      rgb[at * 3] = a === 0 ? 0 : Math.round(r / a);
      rgb[at * 3 + 1] = a === 0 ? 0 : Math.round(g / a);
      rgb[at * 3 + 2] = a === 0 ? 0 : Math.round(b / a);
    }
  }
  return {
    format: 'pixels',
    width,
    height,
    rgb: zlib.deflateSync(rgb),
    alpha: opaque ? null : zlib.deflateSync(alpha),
  };
}

/** pdfkit embeds the image into a document: it throws on what it cannot draw. */
async function assertDrawable(bytes: Buffer): Promise<void> {
  const pdf = new PDFDocument({ size: 'A4', info: { CreationDate: new Date(0) } });
  const done = new Promise<void>((resolve, reject) => {
    pdf.on('data', () => {});
    pdf.on('end', resolve);
    pdf.on('error', reject);
  });
  pdf.image(bytes, 0, 0, { fit: [LOGO_BOX.width, LOGO_BOX.height] });
  pdf.end();
  await done;
}

/**
 * A PNG's chunks checked (CRC) and its pixel data inflated within MAX_DECODED_IMAGE_BYTES (a damaged stream
 * fails its checksum), before anything decodes it.
 */
export function inflatePng(bytes: Buffer): void {
  const data: Buffer[] = [];
  let offset = 8;
  for (;;) {
    if (offset + 12 > bytes.length) throw new Error('the PNG ends before its IEND chunk');
    const length = bytes.readUInt32BE(offset);
    const type = bytes.toString('latin1', offset + 4, offset + 8);
    const end = offset + 8 + length;
    if (end + 4 > bytes.length) throw new Error(`the PNG's ${type} chunk runs past the end of the file`);
    if (zlib.crc32(bytes.subarray(offset + 4, end)) !== bytes.readUInt32BE(end))
      throw new Error(`the PNG's ${type} chunk is damaged (CRC)`);
    if (type === 'IDAT') data.push(bytes.subarray(offset + 8, end));
    if (type === 'IEND') break;
    offset = end + 4;
  }
  zlib.inflateSync(Buffer.concat(data), { maxOutputLength: MAX_DECODED_IMAGE_BYTES });
}
