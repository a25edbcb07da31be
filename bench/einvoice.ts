// E-invoice validation under load (contract §31, §32): one account validates a 200-line invoice (XSD and the
// EN 16931 Schematron, in the rendering pool) back to back while other tenants read their invoices. Measured in
// the same run: the other tenants' GET /v1/invoices/:id latency without and with the validations running. The
// pool is warmed first (each syntax's first validation compiles its schemas: reported apart), and the reads with
// validation go on until at least EINVOICE_VALIDATIONS validations have run, so the steady cost is measured.
// Target: their p99 with validation ≤ 2× without.
// `npm run bench:einvoice`; EINVOICE_LINES (≤ 200), EINVOICE_REQUESTS, EINVOICE_TENANTS, EINVOICE_VALIDATIONS,
// SCALE_ENGINE.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { api, bms, onEachEngine, prepare, ROOT, startBms, stop } from './lib.js';

const LINES = Math.min(200, Number(process.env.EINVOICE_LINES ?? 200));
const REQUESTS = Number(process.env.EINVOICE_REQUESTS ?? 200);
const TENANTS = Number(process.env.EINVOICE_TENANTS ?? 4);
const VALIDATIONS = Number(process.env.EINVOICE_VALIDATIONS ?? 20);

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] as number;
const round = (value: number, places = 2) => Math.round(value * 10 ** places) / 10 ** places;

/** The validating account: a full seller profile, a client, a 19 % rate and a sent invoice of LINES lines. */
async function seedSeller(base: string, key: string): Promise<string> {
  await api(base, key, 'PUT', '/v1/account', {
    currency: 'EUR',
    legal_name: 'Bench Haustechnik GmbH',
    address: { line1: 'Lindenstraße 5', city: 'Berlin', postal_code: '10969', country: 'DE' },
    vat_id: 'DE123456789',
    payment_account: { iban: 'DE89370400440532013000' },
  });
  const client = (
    await api(base, key, 'POST', '/v1/clients', {
      name: 'Buyer',
      address: { city: 'Lyon', country: 'FR' },
      vat_id: 'FR40303265045',
    })
  ).json.data.id as string;
  const rate = (await api(base, key, 'POST', '/v1/tax-rates', { name: 'MwSt', percentage: 19, tax_category: 'S' })).json
    .data.id as string;
  const invoice = (
    await api(base, key, 'POST', '/v1/invoices', {
      client_id: client,
      rounding: 'per_document',
      line_items: Array.from({ length: LINES }, (_, index) => ({
        description: `Part ${index + 1}`,
        quantity: 1 + (index % 4),
        unit_amount: 1000 + index,
        tax_rate_ids: [rate],
      })),
    })
  ).json.data.id as string;
  await api(base, key, 'PUT', `/v1/invoices/${invoice}`, { status: 'sent' });
  return invoice;
}

/** Another tenant: its own account, key and one invoice it reads. */
async function seedTenant(base: string, env: Record<string, string>, index: number) {
  const account = bms(['accounts', 'create', '--name', `Tenant ${index}`], env);
  const key = bms(
    [
      'keys',
      'create',
      '--account',
      account.id,
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
  const client = (await api(base, key, 'POST', '/v1/clients', { name: 'Reader' })).json.data.id as string;
  const invoice = (
    await api(base, key, 'POST', '/v1/invoices', {
      client_id: client,
      line_items: [{ description: 'Labour', quantity: 2, unit_amount: 6000, tax_rate: 8.875 }],
    })
  ).json.data.id as string;
  return { key, url: `/v1/invoices/${invoice}` };
}

/** REQUESTS reads (and on until `enough`) spread over the tenants, TENANTS at a time: their latencies, sorted. */
async function reads(
  base: string,
  tenants: Array<{ key: string; url: string }>,
  enough: () => boolean = () => true,
): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  await Promise.all(
    tenants.map(async (tenant) => {
      while (next < REQUESTS || !enough()) {
        next++;
        const started = performance.now();
        const response = await fetch(`${base}${tenant.url}`, { headers: { authorization: `Bearer ${tenant.key}` } });
        await response.arrayBuffer();
        latencies.push(performance.now() - started);
        if (response.status !== 200) throw new Error(`GET ${tenant.url}: ${response.status}`);
      }
    }),
  );
  return latencies.sort((a, b) => a - b);
}

async function runEngine(engine: 'SQLite' | 'PostgreSQL', env: Record<string, string>) {
  const seeded = await prepare(env);
  const server = await startBms(env);
  const invoice = await seedSeller(server.url, seeded.key);
  const tenants = [];
  for (let index = 0; index < TENANTS; index++) tenants.push(await seedTenant(server.url, env, index));
  const validate = async (format: 'ubl' | 'cii') => {
    const started = performance.now();
    const answer = await api(server.url, seeded.key, 'POST', `/v1/invoices/${invoice}/einvoice/validate`, { format });
    if (answer.json.data?.valid !== true) throw new Error(`not valid: ${JSON.stringify(answer.json)}`);
    return performance.now() - started;
  };
  // Warm: the reads' paths, then each syntax's first validation (the pool's thread, the SEF files and the XSDs
  // compiled: reported apart) and a few more, so that what follows is the steady cost.
  await reads(server.url, tenants);
  const firstUbl = await validate('ubl');
  const firstCii = await validate('cii');
  for (let index = 0; index < 4; index++) await validate(index % 2 === 0 ? 'ubl' : 'cii');
  const without = await reads(server.url, tenants);
  let validating = true;
  const validationTimes: number[] = [];
  const validator = (async () => {
    while (validating) validationTimes.push(await validate(validationTimes.length % 2 === 0 ? 'ubl' : 'cii'));
  })();
  const started = performance.now();
  const during = await reads(server.url, tenants, () => validationTimes.length >= VALIDATIONS);
  const window = performance.now() - started;
  validating = false;
  await validator;
  await stop(server.process);
  const validations = validationTimes.length;
  const steady = [...validationTimes].sort((a, b) => a - b);
  const result = {
    engine,
    without: { p50: round(percentile(without, 50)), p99: round(percentile(without, 99)) },
    during: { p50: round(percentile(during, 50)), p99: round(percentile(during, 99)), reads: during.length },
    firstValidation: { ubl: round(firstUbl), cii: round(firstCii) },
    validations,
    validationP50: round(percentile(steady, 50)),
    validationMean: round(steady.reduce((sum, time) => sum + time, 0) / Math.max(1, validations)),
    /** The share of the window a validation was running: near 1 means back to back throughout. */
    validationBusy: round(validationTimes.reduce((sum, time) => sum + time, 0) / window),
    ratioP99: round(percentile(during, 99) / percentile(without, 99)),
  };
  console.log(JSON.stringify(result));
  return result;
}

async function main() {
  const machine = { cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, node: process.version };
  const runs = await onEachEngine('einvoice', runEngine);
  const text = [
    '# E-invoice validation benchmark',
    '',
    `${new Date().toISOString()} · ${JSON.stringify(machine)}`,
    '',
    `One account validates a ${LINES}-line invoice back to back (UBL and CII in turn, the pool warm) while ${TENANTS} other tenants make ${REQUESTS} GET /v1/invoices/:id (more while fewer than ${VALIDATIONS} validations have run). Target: their p99 during ≤ 2× without. The first validation of each syntax compiles its schemas and is reported apart.`,
    '',
    '| engine | without p50 / p99 ms | during p50 / p99 ms (reads) | p99 ratio | steady validations: count, p50 / mean ms, busy | first UBL / CII ms |',
    '|---|---:|---:|---:|---:|---:|',
    ...runs.map(
      (run) =>
        `| ${run.engine} | ${run.without.p50} / ${run.without.p99} | ${run.during.p50} / ${run.during.p99} (${run.during.reads}) | ${run.ratioP99} | ${run.validations}, ${run.validationP50} / ${run.validationMean}, ${run.validationBusy} | ${run.firstValidation.ubl} / ${run.firstValidation.cii} |`,
    ),
    '',
  ].join('\n');
  if (LINES === 200 && REQUESTS >= 200 && VALIDATIONS >= 20)
    fs.writeFileSync(path.join(ROOT, 'bench/results/einvoice-latest.md'), text);
  console.log(text);
}

await main();
process.exit(0);
