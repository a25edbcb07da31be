// Contract section 30 (and section 32's "Field" readings): attachments. Uploads as multipart/form-data and as raw
// bytes, the type read from the bytes (HTML named .jpg, SVG, XML, scripts refused), location removed in place
// (the stored bytes parsed by the test's own Exif reader), the 25 MiB limit answered 413 mid-stream over a real
// socket, the download's headers exactly as the contract lists them, one Range, the quota and its account
// figures, 200 per parent, another account's parent 422, the parent's read scope, events and the filenames kept.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { setAccountLimits } from '../src/modules/accounts/limits.js';
import { LocalStore, sweepOrphans } from '../src/modules/attachments/index.js';
import { createTestContext, type ApiResponse, type TestContext } from './helpers/context.js';
import { jpegFixture, png } from './helpers/images.js';
import {
  heicWithGps,
  jpegExif,
  jpegWithGps,
  LATITUDE_BYTES,
  LONGITUDE_BYTES,
  MP4_POSITION,
  mp4WithPosition,
  multipart,
  pngChunks,
  pngWithGps,
  readTiff,
  webpChunk,
  webpWithGps,
} from './helpers/uploads.js';

const MiB = 1024 * 1024;
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

let context: TestContext;
let key: string;
let accountId: string;
let otherKey: string;
let clientId: string;
let jobId: string;
let otherClientId: string;

async function upload(
  fields: Record<string, string>,
  file: { filename: string; contentType: string; data: Buffer; name?: string } | undefined,
  apiKey = key,
): Promise<ApiResponse> {
  const { body, contentType } = multipart(fields, file);
  return context.request('POST', '/v1/attachments', {
    key: apiKey,
    rawBody: body,
    headers: { 'content-type': contentType },
  });
}

async function raw(query: string, contentType: string, data: Buffer, apiKey = key): Promise<ApiResponse> {
  return context.request('POST', `/v1/attachments?${query}`, {
    key: apiKey,
    rawBody: data,
    headers: { 'content-type': contentType },
  });
}

function assertInvalid(response: ApiResponse, field: string, pattern?: RegExp) {
  assert.equal(response.status, 422, response.text);
  assert.equal(response.body.error.code, 'VALIDATION_ERROR');
  const detail = response.body.error.details.find((item: { field: string }) => item.field === field);
  assert.ok(detail, `a detail on ${field}: ${response.text}`);
  if (pattern) assert.match(detail.message, pattern);
}

before(async () => {
  context = await createTestContext();
  ({ key, accountId } = await context.account());
  ({ key: otherKey } = await context.account('Other Business'));
  clientId = (await context.request('POST', '/v1/clients', { key, body: { name: 'Ada Client' } })).body.data.id;
  jobId = (await context.request('POST', '/v1/jobs', { key, body: { client_id: clientId, title: 'Gutters' } })).body
    .data.id;
  otherClientId = (await context.request('POST', '/v1/clients', { key: otherKey, body: { name: 'Not Yours' } })).body
    .data.id;
});

after(async () => {
  await context.close();
});

describe('uploads', () => {
  test('a JPEG with GPS, as multipart: stored without its position, with its orientation, hashed as stored', async () => {
    const original = jpegWithGps();
    assert.ok(original.includes(LATITUDE_BYTES), 'the fixture holds the latitude');
    const response = await upload(
      { parent_type: 'job', parent_id: jobId, caption: 'Before', visible_on_hub: 'true', metadata: '{"crm":"42"}' },
      { filename: 'before.jpg', contentType: 'image/jpeg', data: original },
    );
    assert.equal(response.status, 201, response.text);
    const attachment = response.body.data;
    assert.equal(response.headers.location, `/v1/attachments/${attachment.id}`);
    assert.equal(attachment.object, 'attachment');
    assert.equal(attachment.parent_type, 'job');
    assert.equal(attachment.parent_id, jobId);
    assert.equal(attachment.kind, 'upload');
    assert.equal(attachment.filename, 'before.jpg');
    assert.equal(attachment.content_type, 'image/jpeg');
    assert.equal(attachment.size_bytes, original.length);
    assert.equal(attachment.visible_on_hub, true);
    assert.equal(attachment.caption, 'Before');
    assert.equal(attachment.location_removed, true);
    assert.deepEqual(attachment.metadata, { crm: '42' });
    assert.equal(attachment.created_by.type, 'api_key');

    const stored = (await context.request('GET', `/v1/attachments/${attachment.id}/content`, { key })).raw;
    assert.equal(stored.length, original.length, 'overwritten in place: the size is unchanged');
    assert.equal(sha256(stored), attachment.sha256, 'sha256 is the stored bytes’');
    assert.notEqual(sha256(original), attachment.sha256);
    assert.ok(!stored.includes(LATITUDE_BYTES), 'the latitude is gone');
    assert.ok(!stored.includes(LONGITUDE_BYTES), 'the longitude is gone');
    const exif = jpegExif(stored);
    assert.ok(exif, 'the Exif block is still there');
    const reading = readTiff(exif);
    assert.equal(reading.orientation, 6, 'the orientation is kept');
    assert.deepEqual(reading.gpsEntries, [], 'the GPS directory is empty');
    assert.ok(!stored.toString('latin1').includes('43,28.0469N'), 'XMP exif:GPSLatitude is blanked');
    assert.ok(stored.toString('latin1').includes('exif:GPSLatitude="'), 'the XMP packet keeps its shape');
    // Everything after the metadata (the picture itself) is byte for byte the original's.
    const picture = jpegFixture().subarray(2);
    assert.deepEqual(stored.subarray(stored.length - picture.length), picture);
  });

  test('a PNG eXIf and a WebP EXIF chunk lose their position too; the PNG chunk’s CRC is right', async () => {
    const pngResponse = await raw(
      `parent_type=client&parent_id=${clientId}&filename=map.png`,
      'image/png',
      pngWithGps(),
    );
    assert.equal(pngResponse.status, 201, pngResponse.text);
    assert.equal(pngResponse.body.data.content_type, 'image/png');
    assert.equal(pngResponse.body.data.location_removed, true);
    const storedPng = (await context.request('GET', `/v1/attachments/${pngResponse.body.data.id}/content`, { key }))
      .raw;
    const exif = pngChunks(storedPng).find((chunk) => chunk.type === 'eXIf');
    assert.ok(exif);
    assert.equal(exif.crcOk, true);
    assert.deepEqual(readTiff(exif.data), { orientation: 6, gpsEntries: [] });
    assert.ok(!storedPng.includes(LATITUDE_BYTES));

    const webpResponse = await raw(
      `parent_type=client&parent_id=${clientId}&filename=x.webp`,
      'image/webp',
      webpWithGps(),
    );
    assert.equal(webpResponse.status, 201, webpResponse.text);
    assert.equal(webpResponse.body.data.content_type, 'image/webp');
    assert.equal(webpResponse.body.data.location_removed, true);
    const storedWebp = (await context.request('GET', `/v1/attachments/${webpResponse.body.data.id}/content`, { key }))
      .raw;
    const chunk = webpChunk(storedWebp, 'EXIF');
    assert.ok(chunk);
    assert.deepEqual(readTiff(chunk), { orientation: 6, gpsEntries: [] });
  });

  test('a HEIC’s Exif item (located by its meta box) loses its GPS directory and keeps its orientation', async () => {
    const photo = heicWithGps();
    const response = await raw(`parent_type=job&parent_id=${jobId}&filename=IMG_0001.HEIC`, 'image/heic', photo);
    assert.equal(response.status, 201, response.text);
    assert.equal(response.body.data.content_type, 'image/heic');
    assert.equal(response.body.data.location_removed, true);
    const stored = (await context.request('GET', `/v1/attachments/${response.body.data.id}/content`, { key })).raw;
    assert.equal(stored.length, photo.length);
    assert.ok(!stored.includes(LATITUDE_BYTES));
    const tiff = stored.subarray(stored.lastIndexOf(Buffer.from('Exif\0\0', 'latin1')) + 6);
    assert.deepEqual(readTiff(tiff), { orientation: 6, gpsEntries: [] });
  });

  test('an MP4’s ©xyz position is blanked in place; the movie’s boxes and size are kept', async () => {
    const movie = mp4WithPosition();
    const response = await raw(`parent_type=job&parent_id=${jobId}&filename=walkthrough.mp4`, 'video/mp4', movie);
    assert.equal(response.status, 201, response.text);
    assert.equal(response.body.data.content_type, 'video/mp4');
    assert.equal(response.body.data.location_removed, true);
    const stored = (await context.request('GET', `/v1/attachments/${response.body.data.id}/content`, { key })).raw;
    assert.equal(stored.length, movie.length);
    assert.ok(!stored.toString('latin1').includes(MP4_POSITION), 'the position is gone');
    const xyz = stored.indexOf(Buffer.from([0xa9, 0x78, 0x79, 0x7a]));
    assert.ok(xyz > 0, 'the ©xyz box is still there');
    assert.equal(stored.readUInt16BE(xyz + 4), MP4_POSITION.length, 'with its length');
    assert.equal(stored.toString('latin1', xyz + 8, xyz + 8 + MP4_POSITION.length), ' '.repeat(MP4_POSITION.length));
  });

  test('a picture without location is stored as sent, location_removed false', async () => {
    const picture = png(3, 3, () => [200, 10, 10]);
    const response = await raw(`parent_type=job&parent_id=${jobId}&filename=red.png`, 'image/png', picture);
    assert.equal(response.status, 201, response.text);
    assert.equal(response.body.data.location_removed, false);
    assert.equal(response.body.data.sha256, sha256(picture));
  });

  test('HTML named .jpg, SVG, XML, a script and an archive are refused on file, naming what was found', async () => {
    const html = Buffer.from('<!DOCTYPE html><html><body><script>alert(1)</script></body></html>');
    assertInvalid(
      await upload(
        { parent_type: 'job', parent_id: jobId },
        { filename: 'photo.jpg', contentType: 'image/jpeg', data: html },
      ),
      'file',
      /HTML/,
    );
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>');
    assertInvalid(await raw(`parent_type=job&parent_id=${jobId}&filename=a.svg`, 'image/svg+xml', svg), 'file', /SVG/);
    assertInvalid(
      await raw(
        `parent_type=job&parent_id=${jobId}&filename=a.txt`,
        'text/plain',
        Buffer.from('<?xml version="1.0"?><a/>'),
      ),
      'file',
      /xml/i,
    );
    assertInvalid(
      await raw(
        `parent_type=job&parent_id=${jobId}&filename=run.txt`,
        'text/plain',
        Buffer.from('#!/bin/sh\nrm -rf /\n'),
      ),
      'file',
      /script/,
    );
    // A gzip archive declared as a PDF.
    const archive = zlib.gzipSync(Buffer.from('hello'));
    const refused = await raw(`parent_type=job&parent_id=${jobId}&filename=a.pdf`, 'application/pdf', archive);
    assertInvalid(refused, 'file', /gzip/);
    const listed = await context.request('GET', `/v1/attachments?parent_type=job&parent_id=${jobId}`, { key });
    assert.ok(
      listed.body.data.every(
        (item: { filename: string }) => !['photo.jpg', 'a.svg', 'run.txt'].includes(item.filename),
      ),
    );
  });

  test('text: declared text/plain or text/csv, UTF-8 without controls, not markup; served as text/plain; charset=utf-8', async () => {
    const csv = Buffer.from('date,hours\n2026-11-28,2.5\n', 'utf8');
    const response = await raw(`parent_type=job&parent_id=${jobId}&filename=hours.csv`, 'text/csv', csv);
    assert.equal(response.status, 201, response.text);
    assert.equal(response.body.data.content_type, 'text/csv');
    const download = await context.request('GET', `/v1/attachments/${response.body.data.id}/content`, { key });
    assert.equal(download.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(download.text, csv.toString());
    assertInvalid(
      await raw(`parent_type=job&parent_id=${jobId}&filename=n.txt`, 'text/plain', Buffer.from('bell \u0007 here')),
      'file',
      /control/,
    );
    assertInvalid(
      await raw(
        `parent_type=job&parent_id=${jobId}&filename=n.txt`,
        'text/plain',
        Buffer.from([0x61, 0xff, 0xfe, 0x62]),
      ),
      'file',
      /UTF-8/,
    );
    // The same bytes declared as anything else are not text.
    assertInvalid(
      await raw(`parent_type=job&parent_id=${jobId}&filename=n.bin`, 'application/octet-stream', csv),
      'file',
    );
  });

  test('uploads at once (the first on the lone upload’s thread, the others on the shared one when they overlap) are each kept whole, hashed as sent; a refusal among them is its own', async () => {
    // 40,000 rows each (about 460 KB: several of the threads' messages), one with a bell past its first 256 KiB.
    const csv = (tag: string) => Buffer.from(Array.from({ length: 40_000 }, (_, row) => `${tag},${row}\n`).join(''));
    const files = { north: csv('north'), south: csv('south'), east: csv('east') };
    const bell = csv('west');
    bell[300_000] = 0x07;
    const query = `parent_type=job&parent_id=${jobId}&filename=rows.csv`;
    const [north, south, east, west] = await Promise.all([
      raw(query, 'text/csv', files.north),
      raw(query, 'text/csv', files.south),
      raw(query, 'text/csv', files.east),
      raw(query, 'text/csv', bell),
    ]);
    assertInvalid(west as ApiResponse, 'file', /control/);
    const expected = {
      north: [468_890, '1d5a0a1e48b7b1bd3dd82ed386b81cabe750c1bb9265bfb720e2ab186fcc3568'],
      south: [468_890, '8d7a5e7a1e751a017b9733fb936a0b47c469e4c132de72fdd003178e42585823'],
      east: [428_890, '1dfff7aafbec31a911fe91e130c6340ef8b0bf6e2133bb531b8b23289fc1d3a5'],
    };
    for (const [name, response] of [
      ['north', north],
      ['south', south],
      ['east', east],
    ] as const) {
      assert.equal(response?.status, 201, response?.text);
      assert.deepEqual([response?.body.data.size_bytes, response?.body.data.sha256], expected[name]);
      const download = await context.request('GET', `/v1/attachments/${response?.body.data.id}/content`, { key });
      assert.equal(download.text, files[name].toString());
    }
  });

  test('application/json is 415; a multipart body without a file part, or with an unknown field, is 422', async () => {
    const response = await raw(`parent_type=job&parent_id=${jobId}`, 'application/json', Buffer.from('{"a":1}'));
    assert.equal(response.status, 415, response.text);
    assert.equal(response.body.error.code, 'UNSUPPORTED_MEDIA_TYPE');
    assertInvalid(await upload({ parent_type: 'job', parent_id: jobId }, undefined), 'file', /required/);
    assertInvalid(
      await upload(
        { parent_type: 'job', parent_id: jobId, colour: 'red' },
        { filename: 'a.png', contentType: 'image/png', data: png(1, 1, () => [0, 0, 0]) },
      ),
      'colour',
    );
    assertInvalid(
      await raw(
        `parent_id=${jobId}`,
        'image/png',
        png(1, 1, () => [0, 0, 0]),
      ),
      'parent_type',
    );
    assertInvalid(
      await raw(
        `parent_type=job&parent_id=${jobId}&foo=1`,
        'image/png',
        png(1, 1, () => [0, 0, 0]),
      ),
      'foo',
    );
  });

  test('another account’s parent, an unknown one and a malformed id are 422 on parent_id', async () => {
    const picture = png(1, 1, () => [0, 0, 0]);
    assertInvalid(
      await upload(
        { parent_type: 'client', parent_id: otherClientId },
        { filename: 'a.png', contentType: 'image/png', data: picture },
      ),
      'parent_id',
    );
    assertInvalid(await raw(`parent_type=client&parent_id=${otherClientId}`, 'image/png', picture), 'parent_id');
    assertInvalid(await raw(`parent_type=job&parent_id=${clientId}`, 'image/png', picture), 'parent_id');
    assertInvalid(await raw('parent_type=job&parent_id=nope', 'image/png', picture), 'parent_id');
  });

  test('filenames lose paths and controls, and gain the detected extension when theirs differs', async () => {
    const picture = jpegFixture();
    const cases: Array<[string, string]> = [
      ['a.html', 'a.html.jpg'],
      ['../../etc/passwd.jpg', 'passwd.jpg'],
      ['C:\\photos\\IMG_1.JPEG', 'IMG_1.JPEG'],
      ['tab\there.jpg', 'tabhere.jpg'],
    ];
    for (const [given, kept] of cases) {
      const response = await raw(
        `parent_type=job&parent_id=${jobId}&filename=${encodeURIComponent(given)}`,
        'image/jpeg',
        picture,
      );
      assert.equal(response.status, 201, response.text);
      assert.equal(response.body.data.filename, kept, given);
    }
  });
});

describe('the 25 MiB limit', () => {
  let port: number;

  before(async () => {
    await context.app.listen({ port: 0, host: '127.0.0.1' });
    port = (context.app.server.address() as AddressInfo).port;
  });

  /** Over a real socket, chunked (no Content-Length): the answer comes while the client is still sending. */
  function sendOver(contentType: string, urlPath: string, prefix: Buffer, total: number) {
    return new Promise<{ status: number; body: string }>((resolve, reject) => {
      let sent = 0;
      let answered = false;
      const request = http.request(
        {
          host: '127.0.0.1',
          port,
          path: urlPath,
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': contentType, 'transfer-encoding': 'chunked' },
        },
        (response) => {
          answered = true;
          let body = '';
          response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
          response.on('end', () => {
            request.destroy();
            resolve({ status: response.statusCode ?? 0, body });
          });
        },
      );
      request.on('error', (error) => {
        if (!answered) reject(error);
      });
      request.write(prefix);
      sent = prefix.length;
      const chunk = Buffer.alloc(256 * 1024, 0x41);
      const pump = () => {
        while (!answered && sent < total) {
          const piece = chunk.subarray(0, Math.min(chunk.length, total - sent));
          sent += piece.length;
          if (!request.write(piece)) return void request.once('drain', pump);
        }
        // The body is never ended: only an answer given mid-stream ends this test.
      };
      pump();
    });
  }

  test('a raw upload of 25 MiB + 1 byte is 413 before its body ends; nothing is left staged', async () => {
    const result = await sendOver(
      'image/jpeg',
      `/v1/attachments?parent_type=job&parent_id=${jobId}&filename=big.jpg`,
      jpegFixture(),
      25 * MiB + 1,
    );
    assert.equal(result.status, 413, result.body);
    assert.equal(JSON.parse(result.body).error.code, 'PAYLOAD_TOO_LARGE');
    const staging = path.join(context.directory, 'attachments', '.staging');
    assert.deepEqual(fs.existsSync(staging) ? fs.readdirSync(staging) : [], [], 'nothing staged is left');
  });

  test('a multipart upload whose file passes 25 MiB is 413 too, mid-stream', async () => {
    const boundary = 'bms-big-upload';
    const field = (name: string, value: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
    const prefix = Buffer.concat([
      Buffer.from(
        `${field('parent_type', 'job')}${field('parent_id', jobId)}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`,
      ),
      jpegFixture(),
    ]);
    const result = await sendOver(
      `multipart/form-data; boundary=${boundary}`,
      '/v1/attachments',
      prefix,
      prefix.length + 25 * MiB,
    );
    assert.equal(result.status, 413, result.body);
    assert.equal(JSON.parse(result.body).error.code, 'PAYLOAD_TOO_LARGE');
  });

  describe('at the limit, streamed (another account, so that no other test’s quota sees these bytes)', () => {
    let bigKey: string;
    let bigAccount: string;
    let bigClient: string;
    const staging = () => path.join(context.directory, 'attachments', '.staging');
    const stagedNames = () => (fs.existsSync(staging()) ? fs.readdirSync(staging()) : []);

    before(async () => {
      ({ key: bigKey, accountId: bigAccount } = await context.account('Big Uploads'));
      bigClient = (await context.request('POST', '/v1/clients', { key: bigKey, body: { name: 'Big' } })).body.data.id;
    });

    /**
     * Exactly `size` bytes of UTF-8 text whose characters are 1 to 4 bytes long (é, €, 😀), so that the socket's
     * chunks cut sequences; `tail` replaces its last bytes.
     */
    function text(size: number, tail = Buffer.alloc(0)): Buffer {
      const line = Buffer.from('date,note\n2026-11-28,é € 😀 ok\t1\r\n', 'utf8');
      const body = Buffer.alloc(size, 0x20);
      for (let at = 0; at + line.length <= size; at += line.length) line.copy(body, at);
      tail.copy(body, size - tail.length);
      return body;
    }

    /** Sends `body` over a socket in uneven pieces (Content-Length set); `abortAt` bytes in, the client goes away. */
    function send(body: Buffer, contentType: string, abortAt?: number) {
      return new Promise<{ status: number; body: string } | 'aborted'>((resolve, reject) => {
        const request = http.request(
          {
            host: '127.0.0.1',
            port,
            path: `/v1/attachments?parent_type=client&parent_id=${bigClient}&filename=readings.csv`,
            method: 'POST',
            headers: { authorization: `Bearer ${bigKey}`, 'content-type': contentType, 'content-length': body.length },
          },
          (response) => {
            let answer = '';
            response.setEncoding('utf8').on('data', (chunk: string) => (answer += chunk));
            response.on('end', () => resolve({ status: response.statusCode ?? 0, body: answer }));
          },
        );
        request.on('error', (error) => (abortAt === undefined ? reject(error) : resolve('aborted')));
        request.on('close', () => abortAt !== undefined && resolve('aborted'));
        let sent = 0;
        const pump = () => {
          while (sent < body.length) {
            if (abortAt !== undefined && sent >= abortAt) {
              // Gone only once the server has staged what came: the staged file must then be removed.
              const waitForStaged = () => {
                if (stagedNames().length > 0) request.destroy();
                else setTimeout(waitForStaged, 5);
              };
              return waitForStaged();
            }
            const piece = body.subarray(sent, Math.min(body.length, sent + 100_003));
            sent += piece.length;
            if (!request.write(piece)) return void request.once('drain', pump);
          }
          request.end();
        };
        pump();
      });
    }

    async function nothingStaged() {
      const deadline = Date.now() + 10_000;
      while (stagedNames().length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.deepEqual(stagedNames(), [], 'nothing staged is left');
    }

    test('a 25 MiB text upload completes: its sha256 and the stored file’s are the bytes sent; nothing is left staged', async () => {
      const body = text(25 * MiB);
      assert.equal(body.length, 26_214_400);
      const result = await send(body, 'text/csv');
      assert.ok(result !== 'aborted');
      assert.equal(result.status, 201, result.body);
      const attachment = JSON.parse(result.body).data;
      assert.equal(attachment.size_bytes, 26_214_400);
      assert.equal(attachment.content_type, 'text/csv');
      assert.equal(attachment.sha256, sha256(body));
      const stored = fs.readFileSync(path.join(context.directory, 'attachments', bigAccount, attachment.sha256));
      assert.equal(sha256(stored), sha256(body));
      await nothingStaged();
    });

    test('a control character or a cut sequence deep in a large text is 422 on file; nothing is left staged', async () => {
      const cases: Array<[Buffer, RegExp]> = [
        [text(3 * MiB, Buffer.from('bell \u0007 at the end\n')), /control/],
        [text(3 * MiB, Buffer.from('next line \u0085 (C1)\n')), /control/],
        [text(3 * MiB, Buffer.from([0x61, 0xe2, 0x82])), /UTF-8/],
        [text(3 * MiB, Buffer.from([0x61, 0xc0, 0xaf, 0x62])), /UTF-8/],
      ];
      for (const [body, reason] of cases) {
        const result = await send(body, 'text/plain');
        assert.ok(result !== 'aborted');
        assert.equal(result.status, 422, result.body);
        const detail = JSON.parse(result.body).error.details[0];
        assert.equal(detail.field, 'file');
        assert.match(detail.message, reason);
      }
      await nothingStaged();
    });

    test('a client that goes away mid-upload leaves nothing staged, and no row', async () => {
      const before = await context.request('GET', `/v1/attachments?parent_type=client&parent_id=${bigClient}`, {
        key: bigKey,
      });
      assert.equal(await send(text(25 * MiB), 'text/csv', 5 * MiB), 'aborted');
      await nothingStaged();
      const after = await context.request('GET', `/v1/attachments?parent_type=client&parent_id=${bigClient}`, {
        key: bigKey,
      });
      assert.equal(after.body.data.length, before.body.data.length);
    });
  });
});

describe('download', () => {
  let attachmentId: string;
  let stored: Buffer;

  before(async () => {
    stored = jpegFixture();
    const response = await raw(
      `parent_type=job&parent_id=${jobId}&filename=${encodeURIComponent('façade été "1".jpg')}`,
      'image/jpeg',
      stored,
    );
    assert.equal(response.status, 201, response.text);
    attachmentId = response.body.data.id;
  });

  test('headers exactly as the contract lists them', async () => {
    const response = await context.request('GET', `/v1/attachments/${attachmentId}/content`, { key });
    assert.equal(response.status, 200);
    assert.equal(response.headers['content-type'], 'image/jpeg');
    assert.equal(response.headers['content-length'], String(stored.length));
    assert.equal(response.headers.etag, `"${sha256(stored)}"`);
    assert.equal(
      response.headers['content-disposition'],
      `attachment; filename="fa_ade _t_ _1_.jpg"; filename*=UTF-8''fa%C3%A7ade%20%C3%A9t%C3%A9%20%221%22.jpg`,
    );
    assert.equal(response.headers['x-content-type-options'], 'nosniff');
    assert.equal(response.headers['content-security-policy'], "default-src 'none'");
    assert.equal(response.headers['cache-control'], 'private, no-store');
    assert.deepEqual(response.raw, stored);
  });

  test('?disposition=inline for an image; never for text', async () => {
    const inline = await context.request('GET', `/v1/attachments/${attachmentId}/content?disposition=inline`, { key });
    assert.match(String(inline.headers['content-disposition']), /^inline; filename="/);
    const text = await raw(`parent_type=job&parent_id=${jobId}&filename=notes.txt`, 'text/plain', Buffer.from('hello'));
    const answer = await context.request('GET', `/v1/attachments/${text.body.data.id}/content?disposition=inline`, {
      key,
    });
    assert.equal(answer.headers['content-disposition'], `attachment; filename="notes.txt"; filename*=UTF-8''notes.txt`);
  });

  test('one Range answers 206 with Content-Range; a range past the end is 416', async () => {
    const first = await context.request('GET', `/v1/attachments/${attachmentId}/content`, {
      key,
      headers: { range: 'bytes=0-9' },
    });
    assert.equal(first.status, 206);
    assert.equal(first.headers['content-range'], `bytes 0-9/${stored.length}`);
    assert.equal(first.headers['content-length'], '10');
    assert.deepEqual(first.raw, stored.subarray(0, 10));
    const last = await context.request('GET', `/v1/attachments/${attachmentId}/content`, {
      key,
      headers: { range: 'bytes=-5' },
    });
    assert.equal(last.status, 206);
    assert.deepEqual(last.raw, stored.subarray(stored.length - 5));
    const open = await context.request('GET', `/v1/attachments/${attachmentId}/content`, {
      key,
      headers: { range: `bytes=${stored.length - 3}-` },
    });
    assert.deepEqual(open.raw, stored.subarray(stored.length - 3));
    const past = await context.request('GET', `/v1/attachments/${attachmentId}/content`, {
      key,
      headers: { range: `bytes=${stored.length}-` },
    });
    assert.equal(past.status, 416);
    assert.equal(past.headers['content-range'], `bytes */${stored.length}`);
    assert.equal(past.body.error.code, 'RANGE_NOT_SATISFIABLE');
  });

  test('another account’s attachment is 404, its content too', async () => {
    assert.equal((await context.request('GET', `/v1/attachments/${attachmentId}`, { key: otherKey })).status, 404);
    assert.equal(
      (await context.request('GET', `/v1/attachments/${attachmentId}/content`, { key: otherKey })).status,
      404,
    );
  });
});

describe('the object: list, update, delete, events', () => {
  test('list needs parent_type; filters by parent; PUT changes the four fields, never the bytes; delete', async () => {
    assertInvalid(await context.request('GET', '/v1/attachments', { key }), 'parent_type');
    const client = await context.request('POST', '/v1/clients', { key, body: { name: 'Listed' } });
    const parent = client.body.data.id;
    const made = [];
    for (const name of ['one.txt', 'two.txt']) {
      const response = await raw(
        `parent_type=client&parent_id=${parent}&filename=${name}`,
        'text/plain',
        Buffer.from(name),
      );
      made.push(response.body.data);
    }
    const listed = await context.request(
      'GET',
      `/v1/attachments?parent_type=client&parent_id=${parent}&sort=created_at`,
      {
        key,
      },
    );
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(
      listed.body.data.map((item: { id: string }) => item.id),
      made.map((item) => item.id),
    );

    const updated = await context.request('PUT', `/v1/attachments/${made[0].id}`, {
      key,
      body: { filename: 'renamed', caption: 'Permit', visible_on_hub: true, metadata: { a: 'b' } },
    });
    assert.equal(updated.status, 200, updated.text);
    assert.equal(updated.body.data.filename, 'renamed.txt');
    assert.equal(updated.body.data.caption, 'Permit');
    assert.equal(updated.body.data.visible_on_hub, true);
    assertInvalid(
      await context.request('PUT', `/v1/attachments/${made[0].id}`, { key, body: { sha256: 'x' } }),
      'sha256',
    );

    const deleted = await context.request('DELETE', `/v1/attachments/${made[1].id}`, { key });
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.body.data, { id: made[1].id, deleted: true });
    assert.equal((await context.request('GET', `/v1/attachments/${made[1].id}`, { key })).status, 404);

    const events = await context.request('GET', `/v1/events?type=attachment.*&resource_id=${made[0].id}`, { key });
    assert.deepEqual(
      events.body.data.map((event: { type: string }) => event.type),
      ['attachment.updated', 'attachment.created'],
    );
    assert.deepEqual(events.body.data[0].data.previous_attributes.caption, null);
    const gone = await context.request('GET', `/v1/events?type=attachment.deleted&resource_id=${made[1].id}`, { key });
    assert.equal(gone.body.data.length, 1);
    assert.equal(gone.body.data[0].data.object.filename, 'two.txt');
  });

  test('at most 200 on one object: the 201st is 422 on parent_id', async () => {
    const client = await context.request('POST', '/v1/clients', { key, body: { name: 'Full' } });
    const parent = client.body.data.id;
    for (let index = 0; index < 200; index += 1) {
      const response = await raw(
        `parent_type=client&parent_id=${parent}&filename=${index}.txt`,
        'text/plain',
        Buffer.from('x'),
      );
      assert.equal(response.status, 201, response.text);
    }
    assertInvalid(
      await raw(`parent_type=client&parent_id=${parent}&filename=201.txt`, 'text/plain', Buffer.from('x')),
      'parent_id',
      /200/,
    );
  });
});

describe('the quota', () => {
  test('each upload counts at its own size; past the quota 422 on file; the account answers attachment_storage', async () => {
    const business = await context.account('Quota Business');
    const client = await context.request('POST', '/v1/clients', { key: business.key, body: { name: 'Q' } });
    const parent = client.body.data.id;
    const fresh = await context.request('GET', '/v1/account', { key: business.key });
    assert.deepEqual(fresh.body.data.attachment_storage, { used_bytes: 0, quota_bytes: 5368709120 });
    await setAccountLimits(context.database.db, business.accountId, { attachmentBytes: 1000 });
    const bytes = Buffer.alloc(400, 0x61);
    for (let index = 0; index < 2; index += 1) {
      // The same bytes twice: stored once, counted twice.
      const response = await raw(
        `parent_type=client&parent_id=${parent}&filename=a.txt`,
        'text/plain',
        bytes,
        business.key,
      );
      assert.equal(response.status, 201, response.text);
    }
    const account = await context.request('GET', '/v1/account', { key: business.key });
    assert.deepEqual(account.body.data.attachment_storage, { used_bytes: 800, quota_bytes: 1000 });
    const over = await raw(
      `parent_type=client&parent_id=${parent}&filename=b.txt`,
      'text/plain',
      Buffer.alloc(201, 0x62),
      business.key,
    );
    assertInvalid(over, 'file', /quota/);
    const files = fs.readdirSync(path.join(context.directory, 'attachments', business.accountId));
    assert.equal(files.length, 2, 'the refused file is kept until the sweeper takes it; the two same files are one');
    const listed = await context.request('GET', `/v1/attachments?parent_type=client&parent_id=${parent}`, {
      key: business.key,
    });
    await context.request('DELETE', `/v1/attachments/${listed.body.data[0].id}`, { key: business.key });
    const after = await context.request('GET', '/v1/account', { key: business.key });
    assert.deepEqual(after.body.data.attachment_storage, { used_bytes: 400, quota_bytes: 1000 });
  });
});

describe('scopes', () => {
  test('every operation needs its own scope and the parent’s read scope', async () => {
    const picture = png(1, 1, () => [0, 0, 0]);
    const made = await raw(`parent_type=job&parent_id=${jobId}&filename=s.png`, 'image/png', picture);
    const id = made.body.data.id;
    const noJobs = (await context.key(accountId, ['attachments:read', 'attachments:write', 'attachments:delete'])).key;
    const forbidden = async (response: ApiResponse, scope: string) => {
      assert.equal(response.status, 403, response.text);
      assert.equal(response.body.error.code, 'INSUFFICIENT_SCOPE');
      assert.match(String(response.headers['www-authenticate']), new RegExp(`scope="${scope}"`));
    };
    await forbidden(await raw(`parent_type=job&parent_id=${jobId}`, 'image/png', picture, noJobs), 'jobs:read');
    await forbidden(
      await upload(
        { parent_type: 'job', parent_id: jobId },
        { filename: 'a.png', contentType: 'image/png', data: picture },
        noJobs,
      ),
      'jobs:read',
    );
    await forbidden(await context.request('GET', `/v1/attachments?parent_type=job`, { key: noJobs }), 'jobs:read');
    await forbidden(await context.request('GET', `/v1/attachments/${id}`, { key: noJobs }), 'jobs:read');
    await forbidden(await context.request('GET', `/v1/attachments/${id}/content`, { key: noJobs }), 'jobs:read');
    await forbidden(await context.request('DELETE', `/v1/attachments/${id}`, { key: noJobs }), 'jobs:read');

    const readOnly = (await context.key(accountId, ['attachments:read', 'jobs:read'])).key;
    await forbidden(
      await raw(`parent_type=job&parent_id=${jobId}`, 'image/png', picture, readOnly),
      'attachments:write',
    );
    await forbidden(await context.request('DELETE', `/v1/attachments/${id}`, { key: readOnly }), 'attachments:delete');
    assert.equal((await context.request('GET', `/v1/attachments/${id}/content`, { key: readOnly })).status, 200);
    // A client's and a property's files take clients:read.
    const clientsOnly = (await context.key(accountId, ['attachments:write', 'clients:read'])).key;
    assert.equal(
      (await raw(`parent_type=client&parent_id=${clientId}`, 'image/png', picture, clientsOnly)).status,
      201,
    );
  });
});

describe('the hub', () => {
  test('a quote’s page lists the visible files of the quote, its job and the job’s visits, never the client’s', async () => {
    const client = await context.request('POST', '/v1/clients', { key, body: { name: 'Hub Client' } });
    const quote = await context.request('POST', '/v1/quotes', {
      key,
      body: {
        client_id: client.body.data.id,
        title: 'New gutters',
        line_items: [{ description: 'Gutters', quantity: 1, unit_amount: 50000 }],
      },
    });
    const sent = await context.request('PUT', `/v1/quotes/${quote.body.data.id}`, { key, body: { status: 'sent' } });
    assert.equal(sent.status, 200, sent.text);
    const hubUrl = new URL(sent.body.data.hosted_url);
    const put = async (
      parentType: string,
      parentId: string,
      filename: string,
      visible: boolean,
      data: Buffer,
      type: string,
    ) => {
      const response = await upload(
        {
          parent_type: parentType,
          parent_id: parentId,
          visible_on_hub: String(visible),
          caption: `Caption of ${filename}`,
        },
        { filename, contentType: type, data },
      );
      assert.equal(response.status, 201, response.text);
      return response.body.data;
    };
    const photo = await put(
      'quote',
      quote.body.data.id,
      'roof-before.png',
      true,
      png(64, 48, (x) => [x * 4, 120, 200]),
      'image/png',
    );
    const permit = await put(
      'quote',
      quote.body.data.id,
      'permit.pdf',
      true,
      Buffer.from('%PDF-1.4\n%\u00e2\u00e3\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n', 'latin1'),
      'application/pdf',
    );
    const hidden = await put(
      'quote',
      quote.body.data.id,
      'internal-notes.txt',
      false,
      Buffer.from('crew only'),
      'text/plain',
    );
    const clientFile = await put(
      'client',
      client.body.data.id,
      'client-id.png',
      true,
      png(2, 2, () => [0, 0, 0]),
      'image/png',
    );

    const page = await context.request('GET', hubUrl.pathname);
    assert.equal(page.status, 200);
    assert.match(page.text, /roof-before\.png|Caption of roof-before\.png/);
    assert.match(page.text, new RegExp(`/files/${photo.id}\\?disposition=inline`));
    assert.match(page.text, /permit\.pdf/);
    assert.doesNotMatch(page.text, /internal-notes/);
    assert.doesNotMatch(page.text, new RegExp(clientFile.id));

    const file = await context.request('GET', `${hubUrl.pathname}/files/${permit.id}`);
    assert.equal(file.status, 200);
    assert.equal(file.headers['content-type'], 'application/pdf');
    assert.equal(file.headers['content-disposition'], `attachment; filename="permit.pdf"; filename*=UTF-8''permit.pdf`);
    assert.equal(file.headers['x-content-type-options'], 'nosniff');
    assert.equal(file.headers['content-security-policy'], "default-src 'none'");
    assert.equal(file.headers['cache-control'], 'private, no-store');
    const inline = await context.request('GET', `${hubUrl.pathname}/files/${photo.id}?disposition=inline`);
    assert.match(String(inline.headers['content-disposition']), /^inline;/);
    assert.equal((await context.request('GET', `${hubUrl.pathname}/files/${hidden.id}`)).status, 404);
    assert.equal((await context.request('GET', `${hubUrl.pathname}/files/${clientFile.id}`)).status, 404);

    // The job made from the quote, and its visit: their visible files join the page.
    await context.request('PUT', `/v1/quotes/${quote.body.data.id}`, { key, body: { status: 'approved' } });
    const job = await context.request('POST', '/v1/jobs', { key, body: { quote_id: quote.body.data.id } });
    assert.equal(job.status, 201, job.text);
    const visit = await context.request('POST', '/v1/visits', { key, body: { job_id: job.body.data.id } });
    assert.equal(visit.status, 201, visit.text);
    const after = await put(
      'visit',
      visit.body.data.id,
      'after.png',
      true,
      png(2, 2, () => [9, 9, 9]),
      'image/png',
    );
    const jobFile = await put('job', job.body.data.id, 'job-sheet.txt', true, Buffer.from('done'), 'text/plain');
    const again = await context.request('GET', hubUrl.pathname);
    assert.match(again.text, new RegExp(after.id));
    assert.match(again.text, new RegExp(jobFile.id));
  });
});

describe('a parent’s delete', () => {
  test('deletes the parent’s attachments (its properties’ and visits’ too) with their events, gives their bytes back, and the sweeper removes their files once no row names them', async () => {
    const business = await context.account('Deleting Parents');
    const api = (method: string, url: string, body?: unknown) =>
      context.request(method, url, { key: business.key, ...(body === undefined ? {} : { body }) });
    const lines = [{ description: 'Gutters', quantity: 1, unit_amount: 50000 }];
    const client = (await api('POST', '/v1/clients', { name: 'Leaving Client' })).body.data;
    const property = (
      await api('POST', '/v1/properties', { client_id: client.id, address: { line1: '1 Main Street', country: 'US' } })
    ).body.data;
    const other = (await api('POST', '/v1/clients', { name: 'Staying Client' })).body.data;
    const job = (await api('POST', '/v1/jobs', { client_id: other.id, title: 'Roof' })).body.data;
    const visit = (await api('POST', '/v1/visits', { job_id: job.id })).body.data;
    const quote = (await api('POST', '/v1/quotes', { client_id: other.id, line_items: lines })).body.data;
    const invoice = (await api('POST', '/v1/invoices', { client_id: other.id, line_items: lines })).body.data;
    const file = async (parentType: string, parentId: string, text: string) => {
      const response = await upload(
        { parent_type: parentType, parent_id: parentId },
        { filename: `${text}.txt`, contentType: 'text/plain', data: Buffer.from(text) },
        business.key,
      );
      assert.equal(response.status, 201, response.text);
      return response.body.data;
    };
    const made = {
      client: await file('client', client.id, 'client file'),
      property: await file('property', property.id, 'property file'),
      job: await file('job', job.id, 'job file'),
      visit: await file('visit', visit.id, 'visit file'),
      quote: await file('quote', quote.id, 'quote file'),
      invoice: await file('invoice', invoice.id, 'invoice file'),
      // The same bytes on a parent that stays: their file stays too.
      shared: await file('client', other.id, 'job file'),
    };
    const used = async () => (await api('GET', '/v1/account')).body.data.attachment_storage.used_bytes;
    assert.equal(await used(), 72);

    for (const [url, expected] of [
      [`/v1/clients/${client.id}`, 200],
      [`/v1/invoices/${invoice.id}`, 200],
      [`/v1/quotes/${quote.id}`, 200],
      [`/v1/jobs/${job.id}`, 200],
    ] as const)
      assert.equal((await api('DELETE', url)).status, expected, url);
    for (const name of ['client', 'property', 'job', 'visit', 'quote', 'invoice'] as const)
      assert.equal((await api('GET', `/v1/attachments/${made[name].id}`)).status, 404, name);
    assert.equal((await api('GET', `/v1/attachments/${made.shared.id}`)).status, 200);
    assert.equal(await used(), 8);
    const events = (await api('GET', '/v1/events?type=attachment.deleted&limit=100')).body.data;
    assert.deepEqual(
      events.map((event: { data: { object: { id: string } } }) => event.data.object.id).sort(),
      ['client', 'property', 'job', 'visit', 'quote', 'invoice'].map((name) => made[name as 'job'].id).sort(),
    );

    // The files: young ones wait (an upload of the same bytes may be in flight), then go; a named one stays.
    const folder = path.join(context.directory, 'attachments', business.accountId);
    const stored = () => fs.readdirSync(folder).sort();
    assert.equal(stored().length, 6);
    const store = new LocalStore(path.join(context.directory, 'attachments'));
    await sweepOrphans(context.database.db, store, new Date());
    assert.equal(stored().length, 6);
    await sweepOrphans(context.database.db, store, new Date(Date.now() + 11 * 60 * 1000));
    assert.deepEqual(stored(), [sha256(Buffer.from('job file'))]);
    assert.deepEqual(
      await context.database.db
        .selectFrom('attachment_removals')
        .selectAll()
        .where('account_id', '=', business.accountId)
        .execute(),
      [],
    );
    // An upload deleted alone is queued the same way.
    assert.equal((await api('DELETE', `/v1/attachments/${made.shared.id}`)).status, 200);
    await sweepOrphans(context.database.db, store, new Date(Date.now() + 11 * 60 * 1000));
    assert.deepEqual(stored(), []);
  });
});
