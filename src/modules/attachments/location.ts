// Location removed from a staged upload, in place and without re-encoding (docs/api-contract.md §30): the Exif
// GPS directory is emptied (its entry count set to 0, its entries and their values overwritten with zeros),
// XMP's `exif:GPS*` values overwritten with spaces; nothing else moves, so the picture, its orientation (IFD0)
// and every offset stay as they were. JPEG (APP1 Exif and XMP), PNG (`eXIf`, uncompressed XMP `iTXt`, each
// chunk's CRC written again), WebP (`EXIF`, `XMP `), HEIC (the `Exif` item the `meta` box locates) and
// MP4/QuickTime (`©xyz`) are read here; other types are kept as they came.
import fs from 'node:fs';
import zlib from 'node:zlib';

type Handle = fs.promises.FileHandle;

/** The largest metadata block read into memory (a JPEG segment is at most 64 KiB). */
const MAX_BLOCK = 1024 * 1024;

const TYPE_SIZES: Record<number, number> = {
  1: 1,
  2: 1,
  3: 2,
  4: 4,
  5: 8,
  6: 1,
  7: 1,
  8: 2,
  9: 4,
  10: 8,
  11: 4,
  12: 8,
};

/**
 * Empties the GPS directory of a TIFF (Exif) block in place: true if it held any entry. Offsets out of the
 * block are left alone (nothing is read or written outside it).
 */
export function emptyGpsDirectory(tiff: Buffer): boolean {
  if (tiff.length < 8) return false;
  const order = tiff.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') return false;
  const little = order === 'II';
  const u16 = (at: number) => (little ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (little ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  const fits = (at: number, length: number) => at >= 0 && at + length <= tiff.length;
  const ifd0 = u32(4);
  if (!fits(ifd0, 2)) return false;
  const entries = u16(ifd0);
  let gps: number | undefined;
  for (let index = 0; index < entries; index += 1) {
    const entry = ifd0 + 2 + index * 12;
    if (!fits(entry, 12)) return false;
    if (u16(entry) === 0x8825) gps = u32(entry + 8);
  }
  if (gps === undefined || !fits(gps, 2)) return false;
  const count = u16(gps);
  if (count === 0 || !fits(gps + 2, count * 12)) return false;
  for (let index = 0; index < count; index += 1) {
    const entry = gps + 2 + index * 12;
    const size = (TYPE_SIZES[u16(entry + 2)] ?? 1) * u32(entry + 4);
    if (size > 4) {
      const at = u32(entry + 8);
      if (fits(at, size)) tiff.fill(0, at, at + size);
    }
  }
  tiff.fill(0, gps + 2, gps + 2 + count * 12);
  if (little) tiff.writeUInt16LE(0, gps);
  else tiff.writeUInt16BE(0, gps);
  return true;
}

/** XMP's `exif:GPS*` values (attributes and elements) overwritten with spaces, in place: true if any was. */
export function blankXmpGps(xmp: Buffer): boolean {
  const text = xmp.toString('latin1');
  let changed = false;
  const blanked = text
    .replace(/(exif:GPS[A-Za-z]*\s*=\s*)(["'])([^"']*)\2/g, (_all, name: string, quote: string, value: string) => {
      if (value.trim() !== '') changed = true;
      return `${name}${quote}${' '.repeat(value.length)}${quote}`;
    })
    .replace(
      /(<exif:(GPS[A-Za-z]*)>)([^<]*)(<\/exif:\2>)/g,
      (_all, open: string, _name, value: string, close: string) => {
        if (value.trim() !== '') changed = true;
        return `${open}${' '.repeat(value.length)}${close}`;
      },
    );
  if (changed) xmp.write(blanked, 0, 'latin1');
  return changed;
}

async function read(handle: Handle, at: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buffer, 0, length, at);
  return buffer.subarray(0, bytesRead);
}

const EXIF_HEADER = Buffer.from('Exif\0\0', 'latin1');
const XMP_HEADER = Buffer.from('http://ns.adobe.com/xap/1.0/\0', 'latin1');

/** Exif or XMP in a block, cleaned in place: true if a byte changed. */
function cleanBlock(block: Buffer): boolean {
  if (block.subarray(0, 6).equals(EXIF_HEADER)) return emptyGpsDirectory(block.subarray(6));
  if (block.subarray(0, XMP_HEADER.length).equals(XMP_HEADER)) return blankXmpGps(block.subarray(XMP_HEADER.length));
  return false;
}

async function cleanJpeg(handle: Handle, size: number): Promise<boolean> {
  let changed = false;
  let at = 2;
  while (at + 4 <= size) {
    const header = await read(handle, at, 4);
    if (header[0] !== 0xff) break;
    const marker = header[1] as number;
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    // Start of scan or end of image: the metadata segments are all before.
    if (marker === 0xda || marker === 0xd9) break;
    const length = header.readUInt16BE(2);
    if (length < 2) break;
    if (marker === 0xe1) {
      const block = await read(handle, at + 4, length - 2);
      if (cleanBlock(block)) {
        await handle.write(block, 0, block.length, at + 4);
        changed = true;
      }
    }
    at += 2 + length;
  }
  return changed;
}

async function cleanPng(handle: Handle, size: number): Promise<boolean> {
  let changed = false;
  let at = 8;
  while (at + 8 <= size) {
    const header = await read(handle, at, 8);
    const length = header.readUInt32BE(0);
    const type = header.toString('latin1', 4, 8);
    if (type === 'IEND') break;
    if ((type === 'eXIf' || type === 'iTXt') && length <= MAX_BLOCK) {
      const data = await read(handle, at + 8, length);
      let cleaned = false;
      if (type === 'eXIf') cleaned = emptyGpsDirectory(data);
      else {
        // iTXt: keyword\0 compression-flag compression-method language\0 translated\0 text; XMP uncompressed only.
        const keywordEnd = data.indexOf(0);
        if (data.toString('latin1', 0, keywordEnd) === 'XML:com.adobe.xmp' && data[keywordEnd + 1] === 0)
          cleaned = blankXmpGps(data.subarray(keywordEnd + 1));
      }
      if (cleaned) {
        const crc = Buffer.alloc(4);
        crc.writeUInt32BE(zlib.crc32(Buffer.concat([Buffer.from(type, 'latin1'), data])) >>> 0);
        await handle.write(data, 0, data.length, at + 8);
        await handle.write(crc, 0, 4, at + 8 + length);
        changed = true;
      }
    }
    at += 12 + length;
  }
  return changed;
}

async function cleanWebp(handle: Handle, size: number): Promise<boolean> {
  let changed = false;
  let at = 12;
  while (at + 8 <= size) {
    const header = await read(handle, at, 8);
    const type = header.toString('latin1', 0, 4);
    const length = header.readUInt32LE(4);
    if ((type === 'EXIF' || type === 'XMP ') && length <= MAX_BLOCK) {
      const data = await read(handle, at + 8, length);
      const cleaned =
        type === 'XMP '
          ? blankXmpGps(data)
          : data.subarray(0, 6).equals(EXIF_HEADER)
            ? emptyGpsDirectory(data.subarray(6))
            : emptyGpsDirectory(data);
      if (cleaned) {
        await handle.write(data, 0, data.length, at + 8);
        changed = true;
      }
    }
    at += 8 + length + (length % 2);
  }
  return changed;
}

/** ISO BMFF boxes whose children may hold a location: the movie, its tracks, their user data and metadata. */
const MP4_CONTAINERS = new Set(['moov', 'trak', 'udta', 'meta']);
/** QuickTime's `©xyz`: an ISO 6709 position ("+48.8577+002.2950/") in a movie's or track's user data. */
const XYZ = Buffer.from([0xa9, 0x78, 0x79, 0x7a]).toString('latin1');

/**
 * MP4 and QuickTime: every `©xyz` box under moov (its ISO 6709 text overwritten with spaces, its length kept),
 * found by walking the boxes with positional reads (the media data is skipped by its size, never read).
 */
async function cleanMp4(handle: Handle, size: number): Promise<boolean> {
  let changed = false;
  const walk = async (start: number, end: number, depth: number): Promise<void> => {
    let at = start;
    while (at + 8 <= end && depth < 8) {
      const header = await read(handle, at, 16);
      if (header.length < 8) return;
      let length = header.readUInt32BE(0);
      const type = header.toString('latin1', 4, 8);
      let body = at + 8;
      if (length === 1) {
        if (header.length < 16) return;
        length = Number(header.readBigUInt64BE(8));
        body = at + 16;
      } else if (length === 0) length = end - at;
      if (length < body - at || at + length > end) return;
      if (type === XYZ && length - (body - at) <= MAX_BLOCK) {
        // A 16-bit text length and a 16-bit language, then the text.
        const data = await read(handle, body, length - (body - at));
        if (data.length >= 4) {
          const textLength = Math.min(data.readUInt16BE(0), data.length - 4);
          if (textLength > 0 && data.subarray(4, 4 + textLength).some((byte) => byte !== 0x20)) {
            data.fill(0x20, 4, 4 + textLength);
            await handle.write(data, 0, data.length, body);
            changed = true;
          }
        }
      } else if (MP4_CONTAINERS.has(type)) {
        // An ISO `meta` is a full box (4 bytes of version and flags before its children); QuickTime's is not.
        let children = body;
        if (type === 'meta') {
          const next = await read(handle, body, 8);
          if (next.length === 8 && next.readUInt32BE(0) === 0) children += 4;
        }
        await walk(children, at + length, depth + 1);
      }
      at += length;
    }
  };
  await walk(0, size, 0);
  return changed;
}

/** A big-endian unsigned number of `bytes` (0, 4 or 8) at `at`. */
function readSized(buffer: Buffer, at: number, bytes: number): number {
  if (bytes === 0) return 0;
  if (bytes === 4) return buffer.readUInt32BE(at);
  if (bytes === 8) return Number(buffer.readBigUInt64BE(at));
  throw new RangeError(`a ${bytes}-byte field`);
}

/**
 * HEIC/HEIF: the `Exif` item named by the top-level `meta` box (its `iinf` entry, its `iloc` extent in the file),
 * whose TIFF block's GPS directory is emptied in place. Only file-offset items (construction method 0).
 */
async function cleanHeic(handle: Handle, size: number): Promise<boolean> {
  // The top-level boxes: find `meta`.
  let at = 0;
  let meta: { start: number; end: number } | undefined;
  while (at + 8 <= size) {
    const header = await read(handle, at, 8);
    const length = header.readUInt32BE(0);
    if (length < 8) return false;
    if (header.toString('latin1', 4, 8) === 'meta') {
      meta = { start: at + 12, end: at + length };
      break;
    }
    at += length;
  }
  if (!meta || meta.end - meta.start > MAX_BLOCK) return false;
  const box = await read(handle, meta.start, meta.end - meta.start);
  const children = new Map<string, Buffer>();
  for (let offset = 0; offset + 8 <= box.length; ) {
    const length = box.readUInt32BE(offset);
    if (length < 8 || offset + length > box.length) break;
    children.set(box.toString('latin1', offset + 4, offset + 8), box.subarray(offset + 8, offset + length));
    offset += length;
  }
  const iinf = children.get('iinf');
  const iloc = children.get('iloc');
  if (!iinf || !iloc) return false;
  // iinf: version, flags, entry count, then `infe` boxes (version 2: 16-bit ids; 3: 32-bit).
  let exifItem: number | undefined;
  for (let offset = iinf[0] === 0 ? 6 : 8; offset + 8 <= iinf.length; ) {
    const length = iinf.readUInt32BE(offset);
    if (length < 8 || offset + length > iinf.length) break;
    const infe = iinf.subarray(offset + 8, offset + length);
    const version = infe[0] ?? 0;
    if (version >= 2) {
      const id = version === 2 ? infe.readUInt16BE(4) : infe.readUInt32BE(4);
      const typeAt = version === 2 ? 8 : 10;
      if (infe.toString('latin1', typeAt, typeAt + 4) === 'Exif') exifItem = id;
    }
    offset += length;
  }
  if (exifItem === undefined) return false;
  // iloc: where the item's bytes are.
  const version = iloc[0] ?? 0;
  const offsetSize = (iloc[4] ?? 0) >> 4;
  const lengthSize = (iloc[4] ?? 0) & 15;
  const baseOffsetSize = (iloc[5] ?? 0) >> 4;
  const indexSize = version === 1 || version === 2 ? (iloc[5] ?? 0) & 15 : 0;
  let offset = 6;
  const count = version < 2 ? iloc.readUInt16BE(offset) : iloc.readUInt32BE(offset);
  offset += version < 2 ? 2 : 4;
  for (let item = 0; item < count && offset < iloc.length; item++) {
    const id = version < 2 ? iloc.readUInt16BE(offset) : iloc.readUInt32BE(offset);
    offset += version < 2 ? 2 : 4;
    const method = version === 1 || version === 2 ? iloc.readUInt16BE(offset) & 15 : 0;
    if (version === 1 || version === 2) offset += 2;
    offset += 2; // data reference index
    const base = readSized(iloc, offset, baseOffsetSize);
    offset += baseOffsetSize;
    const extents = iloc.readUInt16BE(offset);
    offset += 2;
    for (let extent = 0; extent < extents; extent++) {
      offset += indexSize;
      const start = base + readSized(iloc, offset, offsetSize);
      offset += offsetSize;
      const length = readSized(iloc, offset, lengthSize) || size - start;
      offset += lengthSize;
      if (id !== exifItem || method !== 0 || extent > 0 || length > MAX_BLOCK || start + length > size) continue;
      const data = await read(handle, start, length);
      if (data.length < 4) return false;
      const tiff = data.subarray(4 + data.readUInt32BE(0));
      if (emptyGpsDirectory(tiff)) {
        await handle.write(data, 0, data.length, start);
        return true;
      }
      return false;
    }
  }
  return false;
}

const CLEANERS: Record<string, (handle: Handle, size: number) => Promise<boolean>> = {
  'image/heic': cleanHeic,
  'image/heif': cleanHeic,
  'image/jpeg': cleanJpeg,
  'image/png': cleanPng,
  'image/webp': cleanWebp,
  'video/mp4': cleanMp4,
  'video/quicktime': cleanMp4,
};

/** Removes the location from the staged file of `contentType`, in place: true if anything was removed. */
export async function removeLocation(file: string, contentType: string): Promise<boolean> {
  const clean = CLEANERS[contentType];
  if (!clean) return false;
  const handle = await fs.promises.open(file, 'r+');
  try {
    const { size } = await handle.stat();
    const changed = await clean(handle, size);
    if (changed) await handle.sync();
    return changed;
  } finally {
    await handle.close();
  }
}
