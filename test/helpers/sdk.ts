// Helpers the SDK suites share: a child process run without blocking the server the child calls, a
// webhook delivery signed by the independent Standard Webhooks library, and a scripted server.
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** Runs a child process without blocking this one, which serves the API the child calls. */
export function run(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += String(chunk)));
    child.stderr.on('data', (chunk) => (output += String(chunk)));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, output }));
  });
}

/** A delivery signed by the independent Standard Webhooks library, and variants that must fail. */
export function signedFixture() {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const payload = JSON.stringify({
    id: '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01',
    object: 'event',
    type: 'invoice.paid',
    data: { object: { id: 'x', amount_due: 0 } },
  });
  const id = '019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01';
  const sign = (at: Date, key = secret) => ({
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(key).sign(id, at, payload),
  });
  const other = 'whsec_' + Buffer.from('another secret of thirty-two bytes!').toString('base64');
  return {
    secret,
    payload,
    headers: sign(new Date()),
    rotated: {
      ...sign(new Date(), other),
      'webhook-signature': `${sign(new Date(), other)['webhook-signature']} ${sign(new Date())['webhook-signature']}`,
    },
    stale: sign(new Date(Date.now() - 301_000)),
    wrongSecret: sign(new Date(), other),
  };
}

/** A scripted server: each request gets the next reply (the last repeats); requests (their bodies too) are recorded. */
export async function scriptedServer(
  replies: Array<{ status: number; headers?: Record<string, string>; body?: string; trickleMs?: number }>,
) {
  const requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders; body: string }> = [];
  const server = http.createServer((request, response) => {
    let received = '';
    request.on('data', (chunk) => (received += String(chunk)));
    request.on('end', async () => {
      requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: received });
      const reply = replies[Math.min(requests.length, replies.length) - 1]!;
      const body = Buffer.from(reply.body ?? '');
      response.writeHead(reply.status, {
        'content-type': 'application/json',
        'content-length': String(body.length),
        ...reply.headers,
      });
      if (!reply.trickleMs) return response.end(body);
      for (const byte of body) {
        if (response.destroyed) return;
        response.write(Buffer.from([byte]));
        await new Promise((resolve) => setTimeout(resolve, reply.trickleMs));
      }
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
