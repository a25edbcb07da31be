// Documents under load (issue 15's target): while 20 sends of 200-line invoices render, and rounds of 20
// simultaneous GETs of their PDFs keep the pool busy for the whole window, the latency of GET /v1/clients/:id from another account, against the same load with
// nothing rendering. The load is a fixed rate (autocannon -R) so both phases ask the same of the server;
// the server runs with its production defaults (overload gate at 200 ms, PDF pool of cores - 1 threads).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { api, bms, load, peakRssMb, prepare, startBms, stop, work, type Load } from './lib.js';

const RATE = Number(process.env.BENCH_DOCUMENT_RATE ?? 200);
const SECONDS = 10;

export interface DocumentsResult {
  quiet: Load;
  rendering: Load;
  rate: number;
  rendered: { sends: number; delivered: number; pdfs: number; pdfSeconds: number };
  peakRssMb: number;
}

/**
 * Rounds of 20 PDF GETs at once, from a separate process (this one runs the load generator meanwhile), until
 * `seconds` have passed: rendering lasts the whole measured window.
 */
function fetchPdfs(base: string, key: string, ids: string[], seconds: number) {
  const source = `const started = Date.now(); let ok = 0, rounds = 0;
    const round = () => Promise.all(${JSON.stringify(ids)}.map((id) => fetch('${base}/v1/invoices/' + id + '/pdf', { headers: { authorization: 'Bearer ${key}' } }).then(async (r) => { await r.arrayBuffer(); if (r.status === 200) ok += 1; })));
    (async () => { while (Date.now() - started < ${seconds * 1000}) { await round(); rounds += 1; } console.log(JSON.stringify({ ok, rounds, seconds: (Date.now() - started) / 1000 })); })();`;
  const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  return new Promise<{ ok: number; rounds: number; seconds: number }>((resolve) =>
    child.on('exit', () => resolve(JSON.parse(output || '{"ok":0,"rounds":0,"seconds":0}'))),
  );
}

export async function documentRows(): Promise<DocumentsResult> {
  const env = {
    DATABASE_URL: `sqlite:${path.join(work, 'documents.sqlite')}`,
    OUTBOX_DIR: path.join(work, 'outbox'),
    OUTBOX_POLL_MS: '50',
  };
  const renderer = await prepare(env);
  const other = bms(['accounts', 'create', '--name', 'Another Business'], env);
  const otherKey = bms(
    [
      'keys',
      'create',
      '--account',
      other.id,
      '--name',
      'bench',
      '--scopes',
      'all',
      '--per-minute',
      '900000000',
      '--burst',
      '900000000',
      '--per-day',
      '900000000',
    ],
    env,
  ).key as string;
  const server = await startBms(env);
  const otherClient = (
    await api(server.url, otherKey, 'POST', '/v1/clients', { name: 'Other client', email: 'other@example.com' })
  ).json.data.id as string;
  const client = (
    await api(server.url, renderer.key, 'POST', '/v1/clients', {
      name: 'Jane Doe',
      email: 'jane@example.com',
      address: { line1: '12 Elm Street', city: 'Springfield', country: 'US' },
    })
  ).json.data.id as string;
  const lines = Array.from({ length: 200 }, (_, index) => ({
    description: `Line ${index + 1}: ${'Replaced the corroded supply pipe under the kitchen sink and tested for leaks. '.repeat(7).slice(0, 480)}`,
    quantity: 1,
    unit_amount: 12_000,
    tax_rate: 8.875,
  }));
  const invoices: string[] = [];
  for (let index = 0; index < 20; index += 1)
    invoices.push(
      (await api(server.url, renderer.key, 'POST', '/v1/invoices', { client_id: client, line_items: lines })).json.data
        .id,
    );
  const url = `${server.url}/v1/clients/${otherClient}`;

  const quiet = load(url, { key: otherKey, rate: RATE, duration: SECONDS });
  console.log(`documents, quiet: p50 ${quiet.p50} ms, p99 ${quiet.p99} ms, non-2xx ${quiet.non2xx}`);

  await Promise.all(invoices.map((id) => api(server.url, renderer.key, 'POST', `/v1/invoices/${id}/send`)));
  const pdfs = fetchPdfs(server.url, renderer.key, invoices, SECONDS);
  const rendering = load(url, { key: otherKey, rate: RATE, duration: SECONDS });
  const fetched = await pdfs;
  let delivered = 0;
  for (const id of invoices)
    if ((await api(server.url, renderer.key, 'GET', `/v1/invoices/${id}`)).json.data.delivery_status === 'delivered')
      delivered += 1;
  console.log(
    `documents, 20 sends + 20 PDF GETs rendering: p50 ${rendering.p50} ms, p99 ${rendering.p99} ms, non-2xx ${rendering.non2xx}; ${fetched.ok} PDFs downloaded in ${fetched.seconds} s, ${delivered} of 20 e-mails delivered by the end`,
  );
  const result = {
    quiet,
    rendering,
    rate: RATE,
    rendered: { sends: invoices.length, delivered, pdfs: fetched.ok, pdfSeconds: fetched.seconds },
    peakRssMb: Math.round(peakRssMb(server.process.pid as number)),
  };
  await stop(server.process);
  return result;
}
