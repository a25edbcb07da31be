// What reaches the server that is not a well-formed, timely HTTP request: answered in the error envelope
// with a request id like every other error (not Node's or Fastify's own bodies), a slow sender cut off,
// and one address held to its share of connections.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { createTestContext, type TestContext } from './helpers/context.js';

let context: TestContext;
let port: number;

before(async () => {
  context = await createTestContext({ env: { REQUEST_TIMEOUT_MS: '1000', MAX_CONNECTIONS_PER_IP: '5' } });
  const address = await context.app.listen({ port: 0, host: '127.0.0.1' });
  port = Number(new URL(address).port);
});
after(() => context.close());

/** Sends raw bytes and collects everything until the server closes (or `waitMs` passes). */
function raw(bytes: string | Buffer, options: { waitMs?: number; keepOpen?: boolean } = {}): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(received);
    }, options.waitMs ?? 5000);
    socket.on('data', (chunk) => (received += String(chunk)));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
    socket.on('error', () => {});
    socket.write(bytes);
  });
}

function parse(response: string) {
  const [head, body] = response.split('\r\n\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head ?? '')?.[1]);
  const requestId = /x-request-id: (\S+)/i.exec(head ?? '')?.[1];
  return { status, requestId, body: JSON.parse(body ?? '{}') };
}

test('malformed requests get the envelope and a request id: 400, and 431 for oversized headers', async () => {
  const cases: Array<[string, number, string]> = [
    [
      'GET /v1/clients HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n',
      400,
      'BAD_REQUEST',
    ],
    ['GET /v1/clients HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0001b\r\n\r\n', 400, 'BAD_REQUEST'],
    ['NOT HTTP AT ALL\r\n\r\n', 400, 'BAD_REQUEST'],
    [`GET /v1/clients HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'HEADERS_TOO_LARGE'],
  ];
  for (const [request, status, code] of cases) {
    const response = parse(await raw(request));
    assert.equal(response.status, status, request.slice(0, 60));
    assert.equal(response.body.error.code, code);
    assert.match(response.requestId ?? '', /^req_[0-9a-f]{32}$/);
    assert.equal(response.body.meta.request_id, response.requestId);
  }
});

test('a request whose headers or body trickle in is answered 408 after REQUEST_TIMEOUT_MS, not held', async () => {
  const { key } = await context.account();
  const started = Date.now();
  const response = parse(
    await raw(
      `POST /v1/clients HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na`,
      { waitMs: 8000 },
    ),
  );
  const elapsed = Date.now() - started;
  assert.equal(response.status, 408);
  assert.equal(response.body.error.code, 'REQUEST_TIMEOUT');
  assert.ok(elapsed >= 900 && elapsed < 4000, `cut off after ${elapsed} ms`);
  const headers = parse(await raw('GET /v1/clients HTTP/1.1\r\nHost: x\r\nX-Slow: a', { waitMs: 8000 }));
  assert.equal(headers.status, 408, 'headers that never end, too');
  // Refused before its body was read (no key), the request is answered once, then its connection closed.
  const refused = await raw(
    'POST /v1/clients HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na',
    { waitMs: 8000 },
  );
  assert.equal((refused.match(/HTTP\/1\.1 /g) ?? []).length, 1, refused);
  assert.match(refused, /^HTTP\/1\.1 401/);
});

test('one address may hold only MAX_CONNECTIONS_PER_IP connections', async () => {
  const sockets = await Promise.all(
    Array.from(
      { length: 5 },
      () =>
        new Promise<net.Socket>((resolve) => {
          const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
        }),
    ),
  );
  const refused = await new Promise<boolean>((resolve) => {
    const extra = net.connect(port, '127.0.0.1');
    extra.on('close', () => resolve(true));
    extra.on('error', () => {});
    setTimeout(() => {
      extra.destroy();
      resolve(false);
    }, 1500);
  });
  assert.ok(refused, 'the sixth connection is closed at once');
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => setTimeout(resolve, 100));
  const again = await fetch(`http://127.0.0.1:${port}/health`);
  assert.equal(again.status, 200, 'connections freed, the address is served again');
});
