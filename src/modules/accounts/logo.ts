// What makes an uploaded logo acceptable: valid base64 of at most 512 KB, a real PNG or JPEG of the
// stated type (signature and header read here, pixel data decoded by the PDF renderer before it is stored).
import { fieldError } from '../../core/errors.js';
import { MAX_LOGO_BYTES, type LogoInput } from './accounts.schemas.js';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const MAX_SIDE = 4000;

/** The decoded bytes, or 422 on `data` saying what is wrong with them. */
export function decodeLogo(input: LogoInput): Buffer {
  if (input.data.length % 4 !== 0 || !BASE64.test(input.data))
    throw fieldError('data', 'must be base64 (A–Z, a–z, 0–9, +, /, padded with =)');
  const data = Buffer.from(input.data, 'base64');
  if (data.length > MAX_LOGO_BYTES)
    throw fieldError('data', `must be at most 512 KB decoded; this is ${Math.ceil(data.length / 1024)} KB`);
  const size = input.content_type === 'image/png' ? pngSize(data) : jpegSize(data);
  if (!size) throw fieldError('data', `is not a ${input.content_type === 'image/png' ? 'PNG' : 'JPEG'} image`);
  if (size.width < 1 || size.height < 1 || size.width > MAX_SIDE || size.height > MAX_SIDE)
    throw fieldError('data', `must be 1 to ${MAX_SIDE} pixels on each side; this is ${size.width}×${size.height}`);
  return data;
}

interface Size {
  width: number;
  height: number;
}

/** PNG: the signature, then an IHDR chunk first (its width and height). */
function pngSize(data: Buffer): Size | undefined {
  if (data.length < 33 || !data.subarray(0, 8).equals(PNG_SIGNATURE) || data.toString('latin1', 12, 16) !== 'IHDR')
    return undefined;
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

/** JPEG: SOI, then segments up to a start-of-frame marker (its height and width). */
function jpegSize(data: Buffer): Size | undefined {
  if (data.length < 4 || data[0] !== 0xff || data[1] !== 0xd8) return undefined;
  let offset = 2;
  while (offset + 9 < data.length) {
    if (data[offset] !== 0xff) return undefined;
    const marker = data[offset + 1]!;
    const length = data.readUInt16BE(offset + 2);
    // SOF0–SOF15, except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc)
      return { height: data.readUInt16BE(offset + 5), width: data.readUInt16BE(offset + 7) };
    offset += 2 + length;
  }
  return undefined;
}
