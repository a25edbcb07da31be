// A real HTTP server that receives webhooks: it records every request (headers, body, when) and answers
// as the test tells it, request by request: a status, a delay, a redirect, or no answer at all.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { patient } from './patience.js';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Answer {
  status?: number;
  delayMs?: number;
  headers?: Record<string, string>;
  body?: string;
  /** Never answer (the connection stays open until the client gives up). */
  hang?: boolean;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Answers to give, in order; after they run out, `fallback`. */
  answers: Answer[];
  fallback: Answer;
  /** Resolves once `count` requests have arrived (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(fallback: Answer = { status: 200, body: 'ok' }): Promise<Receiver> {
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  const hanging = new Set<http.ServerResponse>();
  const receiver: Partial<Receiver> = { received, answers: [], fallback };
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      for (const wake of waiters.splice(0)) wake();
      const answer = receiver.answers!.shift() ?? receiver.fallback!;
      if (answer.hang) {
        hanging.add(response);
        return;
      }
      setTimeout(() => {
        response.writeHead(answer.status ?? 200, answer.headers ?? {});
        response.end(answer.body ?? '');
      }, answer.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}/hooks`,
    async waitFor(count: number, timeoutMs = 15_000) {
      // Scaled by the machine's load: a wait ends when the count is reached, so a fast machine loses nothing.
      const deadline = Date.now() + patient(timeoutMs);
      while (received.length < count) {
        if (Date.now() > deadline)
          throw new Error(`expected ${count} webhook requests within ${patient(timeoutMs)} ms, got ${received.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return received;
    },
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  }) as Receiver;
}
