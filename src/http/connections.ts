// The HTTP server under the app: how long a request may take to arrive, how many connections one client
// address may hold, and malformed requests answered in the error envelope with a request id, like every
// other error, instead of Node's or Fastify's own bodies.
import { randomFillSync } from 'node:crypto';
import http from 'node:http';
import type { Socket } from 'node:net';
import type { Config } from '../config.js';
import { systemClock, timestampOf } from '../core/deps.js';
import { ERROR_STATUS, type ErrorCode } from '../core/errors.js';

const ID_BYTES = 16;
/** Random bytes for 256 ids, drawn at once: one call into the CSPRNG per 256 requests, not one per request. */
const idPool = Buffer.allocUnsafe(ID_BYTES * 256);
let idOffset = idPool.length;

/**
 * `req_` and 32 hex digits: 128 bits from the CSPRNG (as many as a UUID held, and unguessable like it), read
 * from a pool refilled every 256 ids, and formatted in one call instead of a UUID's dashes taken out again.
 */
export function newRequestId(): string {
  if (idOffset === idPool.length) {
    randomFillSync(idPool);
    idOffset = 0;
  }
  const start = idOffset;
  idOffset += ID_BYTES;
  return `req_${idPool.toString('hex', start, idOffset)}`;
}

/**
 * Node's http server with the request time limit (checked every second, so a slow sender is cut off on
 * time) and, when no proxy is trusted (behind one, every client shares its address), a cap on open
 * connections per client address.
 */
export function serverFactory(config: Pick<Config, 'requestTimeoutMs' | 'maxConnectionsPerIp' | 'trustProxy'>) {
  return (handler: http.RequestListener) => {
    const server = http.createServer(
      {
        requestTimeout: config.requestTimeoutMs,
        headersTimeout: Math.min(20_000, config.requestTimeoutMs),
        connectionsCheckingInterval: Math.min(1000, config.requestTimeoutMs),
      },
      handler,
    );
    // Longer than load balancers' idle timeouts (as Fastify's own default), so they close first.
    server.keepAliveTimeout = 72_000;
    if (config.maxConnectionsPerIp > 0 && config.trustProxy === false) {
      const open = new Map<string, number>();
      server.on('connection', (socket: Socket) => {
        const address = socket.remoteAddress ?? '';
        const count = (open.get(address) ?? 0) + 1;
        if (count > config.maxConnectionsPerIp) {
          socket.destroy();
          return;
        }
        open.set(address, count);
        socket.once('close', () => {
          const left = (open.get(address) ?? 1) - 1;
          if (left === 0) open.delete(address);
          else open.set(address, left);
        });
      });
    }
    return server;
  };
}

const CLIENT_ERRORS: Record<string, [ErrorCode, string]> = {
  HPE_HEADER_OVERFLOW: ['HEADERS_TOO_LARGE', 'The request headers are too large.'],
  ERR_HTTP_REQUEST_TIMEOUT: ['REQUEST_TIMEOUT', 'The request took too long to arrive.'],
};

/** A request Node could not parse (or that arrived too slowly): the envelope, a request id, and the connection closed. */
export function clientErrorHandler(error: Error & { code?: string }, socket: Socket): void {
  // A connection that already carried an answer (the API refused the request before reading its slow
  // body, say) gets no second one: it is closed.
  if (!socket.writable || socket.bytesWritten > 0) {
    socket.destroy();
    return;
  }
  const [code, message] = CLIENT_ERRORS[error.code ?? ''] ?? ['BAD_REQUEST', 'The request is not valid HTTP.'];
  const status = ERROR_STATUS[code];
  const requestId = newRequestId();
  const body = JSON.stringify({
    error: { code, message },
    meta: { request_id: requestId, timestamp: timestampOf(systemClock) },
  });
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\n` +
      `x-request-id: ${requestId}\r\nx-content-type-options: nosniff\r\nconnection: close\r\n\r\n${body}`,
  );
}
