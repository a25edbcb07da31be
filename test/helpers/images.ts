// Images for logo tests: a real PNG made here (zlib for the pixel data, CRC-32 per chunk), a real JPEG
// from test/fixtures (made with poppler's pdftoppm), and what is not an image.
import fs from 'node:fs';
import zlib from 'node:zlib';

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** An 8-bit RGB PNG of the given size, each pixel from `color`. */
export function png(width: number, height: number, color: (x: number, y: number) => [number, number, number]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // bit depth 8, colour type RGB, deflate, no filter method, no interlace
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y += 1) {
    const row = Buffer.alloc(1 + width * 3); // filter byte 0, then RGB triples
    for (let x = 0; x < width; x += 1) row.set(color(x, y), 1 + x * 3);
    rows.push(row);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** An 8-bit RGBA PNG (colour type 6) of the given size, each pixel from `color`: a logo with transparency. */
export function rgbaPng(
  width: number,
  height: number,
  color: (x: number, y: number) => [number, number, number, number],
): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8); // bit depth 8, colour type RGBA, deflate, no filter method, no interlace
  const rows = Buffer.alloc(height * (1 + width * 4)); // each row: filter byte 0, then RGBA quadruples
  for (let y = 0; y < height; y += 1)
    for (let x = 0; x < width; x += 1) rows.set(color(x, y), y * (1 + width * 4) + 1 + x * 4);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A logo-like PNG: a blue badge with a white drop, on white. */
export function logoPng(): Buffer {
  return png(240, 80, (x, y) => {
    const inBadge = x >= 8 && x < 72 && y >= 8 && y < 72;
    const dx = x - 40;
    const dy = y - 46;
    const inDrop = dx * dx + dy * dy < 14 * 14 || (y >= 18 && y < 46 && Math.abs(dx) < (y - 18) / 2);
    if (inBadge) return inDrop ? [255, 255, 255] : [9, 105, 218];
    if (x >= 84 && x < 232 && ((y >= 24 && y < 36) || (y >= 46 && y < 54 && x < 190))) return [31, 35, 40];
    return [255, 255, 255];
  });
}

export const jpegFixture = (): Buffer => fs.readFileSync(new URL('../fixtures/logo.jpg', import.meta.url));

/** A PNG whose header is real and whose pixel data is not: only decoding it finds out. */
export function damagedPng(): Buffer {
  const good = png(4, 4, () => [0, 0, 0]);
  const idat = good.indexOf('IDAT');
  const damaged = Buffer.from(good);
  damaged.fill(0x41, idat + 4, idat + 16);
  return damaged;
}
