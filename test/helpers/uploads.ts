// Files for the attachment tests, made here byte by byte: a JPEG with an Exif block holding an orientation and a
// GPS position (and an XMP packet with exif:GPS*), PNG and WebP with eXIf / EXIF chunks; an independent Exif
// reader (not src/'s) to parse what was stored; and multipart/form-data bodies.
import zlib from 'node:zlib';
import { jpegFixture } from './images.js';

/** The latitude written: 43° 28' 2.814" as rationals (43/1, 28/1, 2814/1000), easy to find in the bytes. */
export const LATITUDE = [
  [43, 1],
  [28, 1],
  [2814, 1000],
] as const;
export const LONGITUDE = [
  [89, 1],
  [44, 1],
  [5123, 1000],
] as const;

function rationals(values: ReadonlyArray<readonly [number, number]>): Buffer {
  const buffer = Buffer.alloc(values.length * 8);
  values.forEach(([numerator, denominator], index) => {
    buffer.writeUInt32LE(numerator, index * 8);
    buffer.writeUInt32LE(denominator, index * 8 + 4);
  });
  return buffer;
}

/** The bytes of the latitude as written (little-endian rationals): absent from a cleaned file. */
export const LATITUDE_BYTES = rationals(LATITUDE);
export const LONGITUDE_BYTES = rationals(LONGITUDE);

/**
 * A little-endian TIFF block: IFD0 with Orientation (0x0112) = `orientation` and the GPS IFD pointer (0x8825);
 * a GPS IFD of five entries (version, latitude ref and value, longitude ref and value).
 */
export function exifTiff(orientation = 6): Buffer {
  const ifd0 = 8;
  const ifd0Size = 2 + 2 * 12 + 4;
  const gps = ifd0 + ifd0Size;
  const gpsSize = 2 + 5 * 12 + 4;
  const data = gps + gpsSize;
  const buffer = Buffer.alloc(data + 48);
  buffer.write('II', 0, 'latin1');
  buffer.writeUInt16LE(42, 2);
  buffer.writeUInt32LE(ifd0, 4);
  const entry = (at: number, tag: number, type: number, count: number, value: number | Buffer) => {
    buffer.writeUInt16LE(tag, at);
    buffer.writeUInt16LE(type, at + 2);
    buffer.writeUInt32LE(count, at + 4);
    if (typeof value === 'number') buffer.writeUInt32LE(value, at + 8);
    else value.copy(buffer, at + 8);
  };
  buffer.writeUInt16LE(2, ifd0);
  entry(ifd0 + 2, 0x0112, 3, 1, orientation);
  entry(ifd0 + 14, 0x8825, 4, 1, gps);
  buffer.writeUInt16LE(5, gps);
  entry(gps + 2, 0x0000, 1, 4, Buffer.from([2, 3, 0, 0]));
  entry(gps + 14, 0x0001, 2, 2, Buffer.from('N\0\0\0', 'latin1'));
  entry(gps + 26, 0x0002, 5, 3, data);
  entry(gps + 38, 0x0003, 2, 2, Buffer.from('W\0\0\0', 'latin1'));
  entry(gps + 50, 0x0004, 5, 3, data + 24);
  LATITUDE_BYTES.copy(buffer, data);
  LONGITUDE_BYTES.copy(buffer, data + 24);
  return buffer;
}

const XMP = `<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" exif:GPSLatitude="43,28.0469N" exif:GPSLongitude="89,44.0854W"/></rdf:RDF></x:xmpmeta>`;

function segment(marker: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header[0] = 0xff;
  header[1] = marker;
  header.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([header, payload]);
}

/** The fixture JPEG with an APP1 Exif segment (orientation 6, a GPS position) and an APP1 XMP packet after SOI. */
export function jpegWithGps(): Buffer {
  const jpeg = jpegFixture();
  return Buffer.concat([
    jpeg.subarray(0, 2),
    segment(0xe1, Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), exifTiff()])),
    segment(0xe1, Buffer.from(`http://ns.adobe.com/xap/1.0/\0${XMP}`, 'latin1')),
    jpeg.subarray(2),
  ]);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A 2 × 2 PNG with an eXIf chunk (orientation 6, a GPS position) before its pixels. */
export function pngWithGps(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(2, 0);
  header.writeUInt32BE(2, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const rows = Buffer.alloc(2 * 7);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('eXIf', exifTiff()),
    pngChunk('IDAT', zlib.deflateSync(rows)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

function riffChunk(type: string, data: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.write(type, 0, 'latin1');
  header.writeUInt32LE(data.length, 4);
  return Buffer.concat([header, data, data.length % 2 === 1 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

/** An extended WebP (VP8X, a lossless 1 × 1 VP8L image) with its EXIF chunk at the end, as cameras write it. */
export function webpWithGps(): Buffer {
  const vp8x = Buffer.alloc(10);
  vp8x[0] = 0x08; // the EXIF flag
  // canvas width − 1 and height − 1 (24 bits each): 0, 0
  const vp8l = Buffer.from([0x2f, 0x00, 0x00, 0x00, 0x00, 0x07, 0x10, 0x11, 0x11, 0x88, 0x88, 0xfe, 0x07, 0x00]);
  const body = Buffer.concat([
    Buffer.from('WEBP', 'latin1'),
    riffChunk('VP8X', vp8x),
    riffChunk('VP8L', vp8l),
    riffChunk('EXIF', exifTiff()),
  ]);
  const header = Buffer.alloc(8);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(body.length, 4);
  return Buffer.concat([header, body]);
}

export interface ExifReading {
  orientation: number | undefined;
  /** The GPS IFD's entries (tag → count), or undefined when IFD0 has no pointer to it. */
  gpsEntries: number[] | undefined;
}

/** Reads IFD0's orientation and the GPS IFD's tags from a TIFF block (either byte order). */
export function readTiff(tiff: Buffer): ExifReading {
  const little = tiff.toString('latin1', 0, 2) === 'II';
  const u16 = (at: number) => (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (little ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  const ifd0 = u32(4);
  let orientation: number | undefined;
  let gps: number | undefined;
  for (let index = 0; index < u16(ifd0); index += 1) {
    const at = ifd0 + 2 + index * 12;
    if (u16(at) === 0x0112) orientation = u16(at + 8);
    if (u16(at) === 0x8825) gps = u32(at + 8);
  }
  if (gps === undefined) return { orientation, gpsEntries: undefined };
  const tags: number[] = [];
  for (let index = 0; index < u16(gps); index += 1) tags.push(u16(gps + 2 + index * 12));
  return { orientation, gpsEntries: tags };
}

/** The TIFF block of a JPEG's APP1 Exif segment, walking its segments. */
export function jpegExif(jpeg: Buffer): Buffer | undefined {
  let at = 2;
  while (at + 4 <= jpeg.length && jpeg[at] === 0xff) {
    const marker = jpeg[at + 1] as number;
    if (marker === 0xda) return undefined;
    const length = jpeg.readUInt16BE(at + 2);
    const payload = jpeg.subarray(at + 4, at + 2 + length);
    if (marker === 0xe1 && payload.toString('latin1', 0, 6) === 'Exif\0\0') return payload.subarray(6);
    at += 2 + length;
  }
  return undefined;
}

/** A PNG's chunks: type, data and whether its CRC is right. */
export function pngChunks(png: Buffer): Array<{ type: string; data: Buffer; crcOk: boolean }> {
  const chunks = [];
  let at = 8;
  while (at + 12 <= png.length) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + length);
    const crc = png.readUInt32BE(at + 8 + length);
    chunks.push({ type, data, crcOk: zlib.crc32(png.subarray(at + 4, at + 8 + length)) >>> 0 === crc });
    at += 12 + length;
  }
  return chunks;
}

/** A WebP's chunk of a type. */
export function webpChunk(webp: Buffer, type: string): Buffer | undefined {
  let at = 12;
  while (at + 8 <= webp.length) {
    const length = webp.readUInt32LE(at + 4);
    if (webp.toString('latin1', at, at + 4) === type) return webp.subarray(at + 8, at + 8 + length);
    at += 8 + length + (length % 2);
  }
  return undefined;
}

export interface FilePart {
  name?: string;
  filename: string;
  contentType: string;
  data: Buffer;
}

/** A multipart/form-data body: the text fields in order, then the file part (field `file` unless named). */
export function multipart(fields: Record<string, string>, file?: FilePart): { body: Buffer; contentType: string } {
  const boundary = `----bms-test-${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields))
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`, 'utf8'),
    );
  if (file)
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.name ?? 'file'}"; filename="${file.filename}"\r\nContent-Type: ${file.contentType}\r\n\r\n`,
        'utf8',
      ),
      file.data,
      Buffer.from('\r\n', 'utf8'),
    );
  parts.push(Buffer.from(`--${boundary}--\r\n`, 'utf8'));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

function box(type: string | Buffer, ...children: Buffer[]): Buffer {
  const body = Buffer.concat(children);
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + body.length, 0);
  (typeof type === 'string' ? Buffer.from(type, 'latin1') : type).copy(header, 4);
  return Buffer.concat([header, body]);
}

/** The ISO 6709 position written in the MP4's `©xyz` box. */
export const MP4_POSITION = '+48.8577+002.2950/';

/** A small MP4 (ftyp isom, an mdat, then moov with udta/©xyz holding a position), as phones write them. */
export function mp4WithPosition(): Buffer {
  const ftyp = box(
    'ftyp',
    Buffer.from('isom', 'latin1'),
    Buffer.from([0, 0, 2, 0]),
    Buffer.from('isomiso2mp41', 'latin1'),
  );
  const mdat = box('mdat', Buffer.alloc(64, 0x11));
  const text = Buffer.from(MP4_POSITION, 'latin1');
  const xyzHeader = Buffer.alloc(4);
  xyzHeader.writeUInt16BE(text.length, 0);
  xyzHeader.writeUInt16BE(0x15c7, 2);
  const mvhd = box('mvhd', Buffer.alloc(100));
  const moov = box('moov', mvhd, box('udta', box(Buffer.from([0xa9, 0x78, 0x79, 0x7a]), xyzHeader, text)));
  return Buffer.concat([ftyp, mdat, moov]);
}

/** A HEIC's skeleton: ftyp heic, a meta box whose iinf names item 1 of type Exif and whose iloc puts it in mdat. */
export function heicWithGps(): Buffer {
  const u16 = (value: number) => {
    const buffer = Buffer.alloc(2);
    buffer.writeUInt16BE(value);
    return buffer;
  };
  const u32 = (value: number) => {
    const buffer = Buffer.alloc(4);
    buffer.writeUInt32BE(value);
    return buffer;
  };
  const ftyp = box('ftyp', Buffer.from('heic', 'latin1'), u32(0), Buffer.from('mif1heic', 'latin1'));
  const hdlr = box('hdlr', u32(0), u32(0), Buffer.from('pict', 'latin1'), Buffer.alloc(12), Buffer.from([0]));
  const infe = box('infe', Buffer.from([2, 0, 0, 0]), u16(1), u16(0), Buffer.from('Exif', 'latin1'), Buffer.from([0]));
  const iinf = box('iinf', u32(0), u16(1), infe);
  const exif = Buffer.concat([u32(6), Buffer.from('Exif\0\0', 'latin1'), exifTiff()]);
  const iloc = (offset: number) =>
    box('iloc', u32(0), Buffer.from([0x44, 0x00]), u16(1), u16(1), u16(0), u16(1), u32(offset), u32(exif.length));
  const metaOf = (offset: number) => box('meta', u32(0), hdlr, iinf, iloc(offset));
  const offset = ftyp.length + metaOf(0).length + 8;
  return Buffer.concat([ftyp, metaOf(offset), box('mdat', exif)]);
}
