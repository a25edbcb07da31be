// The deployment guide's example, run: nginx from Debian's packages with TLS, configured by the very block
// in docs/deploying.md (ports, certificate and log paths replaced), in front of two BMS instances with
// TRUST_PROXY=1 sharing one database and one Redis. Each client's own address reaches the rate limiter
// (and a forged X-Forwarded-For does not), hub links carry PUBLIC_BASE_URL, /metrics stays private, both
// instances serve, and stopping one (SIGTERM) loses no request.
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import http from 'node:http';
import path from 'node:path';
import { after, test } from 'node:test';
import { temporaryDirectory } from './helpers/context.js';
import { createTestDatabase } from './helpers/database.js';
import { freePorts, ROOT, runBms, startServer, type ServerProcess } from './helpers/processes.js';
import { startRedis } from './helpers/redis.js';

const NGINX = '/usr/sbin/nginx';
const METRICS_TOKEN = 'deploy-test-metrics-token-0123456789abcdef';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One request on its own connection, from the loopback address `from` (each client its own address). */
function request(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown; from?: string; ca?: Buffer } = {},
): Promise<Answer> {
  const target = new URL(url);
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  const transport = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const outgoing = transport.request(
      target,
      {
        method: options.method ?? 'GET',
        headers: { ...(body ? { 'content-type': 'application/json' } : {}), ...options.headers },
        localAddress: options.from ?? '127.0.0.1',
        agent: false,
        ...(options.ca ? { ca: options.ca, servername: 'localhost' } : {}),
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
      },
    );
    outgoing.on('error', reject);
    // A hang is a failure with a message, not a stuck suite.
    outgoing.setTimeout(30_000, () =>
      outgoing.destroy(new Error(`no answer in 30 s: ${options.method ?? 'GET'} ${url}`)),
    );
    outgoing.end(body);
  });
}

/** docs/deploying.md's nginx block, each placeholder replaced exactly once (a changed guide fails here). */
function nginxSiteFromGuide(replacements: Array<[string, string]>): string {
  const guide = fs.readFileSync(path.join(ROOT, 'docs/deploying.md'), 'utf8');
  const blocks = [...guide.matchAll(/```nginx\n([\s\S]*?)```/g)];
  assert.equal(blocks.length, 1, 'the guide has one nginx example');
  let site = blocks[0]![1]!;
  for (const [from, to] of replacements) {
    assert.equal(site.split(from).length - 1, 1, `the guide's nginx example has "${from}" once`);
    site = site.replace(from, to);
  }
  return site;
}

async function startNginx(directory: string, site: string): Promise<{ child: ChildProcess; stop(): Promise<void> }> {
  if (!fs.existsSync(NGINX)) throw new Error('nginx is not installed: run `apt-get install -y nginx` (.ci/run does)');
  const temporary = path.join(directory, 'temp');
  fs.mkdirSync(temporary);
  const conf = [
    // As root, the workers would run as nobody, who cannot enter this test's private folder.
    process.getuid?.() === 0 ? 'user root;' : '',
    'daemon off;',
    'worker_processes 1;',
    `pid ${path.join(directory, 'nginx.pid')};`,
    `error_log ${path.join(directory, 'error.log')} warn;`,
    'events { worker_connections 256; }',
    'http {',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
      (kind) => `  ${kind}_temp_path ${path.join(temporary, kind)};`,
    ),
    site,
    '}',
  ].join('\n');
  const file = path.join(directory, 'nginx.conf');
  fs.writeFileSync(file, conf);
  execFileSync(NGINX, ['-t', '-q', '-e', path.join(directory, 'error.log'), '-p', directory, '-c', file], {
    stdio: 'pipe',
  });
  const child = spawn(NGINX, ['-e', path.join(directory, 'error.log'), '-p', directory, '-c', file], {
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

test("nginx with TLS in front of two instances (TRUST_PROXY=1): the guide's example works as it says", async () => {
  const directory = temporaryDirectory('bms-deploy-');
  cleanups.push(() => fs.rmSync(directory, { recursive: true, force: true }));
  const redis = await startRedis();
  cleanups.push(() => redis.stop());
  const database = await createTestDatabase(directory);
  cleanups.push(() => database.drop());

  // A certificate for localhost, from a throwaway authority the test trusts (as a browser trusts Let's Encrypt).
  const cert = path.join(directory, 'cert.pem');
  const key = path.join(directory, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { stdio: 'pipe' },
  );
  const ca = fs.readFileSync(cert);

  // Two different ports: two freePort calls in a row may be given the same one (nginx then refused the site).
  const [httpsPort, httpPort] = (await freePorts(2)) as [number, number];
  const origin = `https://localhost:${httpsPort}`;
  const env = {
    DATABASE_URL: database.url,
    REDIS_URL: redis.url,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    TRUST_PROXY: '1',
    PUBLIC_BASE_URL: origin,
    METRICS_TOKEN,
    OUTBOX_DIR: path.join(directory, 'outbox'),
  };
  const account = JSON.parse(runBms(['accounts', 'create', '--name', 'Deployed Plumbing', '--json'], env).stdout);
  const apiKey = JSON.parse(
    runBms(['keys', 'create', '--account', account.id, '--name', 'site', '--scopes', 'all', '--json'], env).stdout,
  ).key as string;
  const instances: ServerProcess[] = [await startServer(env), await startServer(env)];
  const stopInstance = async (instance: ServerProcess) => {
    if (instance.child.exitCode === null) instance.child.kill('SIGTERM');
    const timer = setTimeout(() => instance.child.kill('SIGKILL'), 30_000);
    const code = await instance.exited;
    clearTimeout(timer);
    return code;
  };
  cleanups.push(() => Promise.all(instances.map(stopInstance)));

  const accessLog = path.join(directory, 'access.log');
  const site = nginxSiteFromGuide([
    ['server 127.0.0.1:3001', `server ${new URL(instances[0]!.baseUrl).host}`],
    ['server 127.0.0.1:3002', `server ${new URL(instances[1]!.baseUrl).host}`],
    ['listen 80;', `listen 127.0.0.1:${httpPort};`],
    ['listen 443 ssl http2;', `listen 127.0.0.1:${httpsPort} ssl http2;`],
    ['/etc/letsencrypt/live/billing.example.com/fullchain.pem', cert],
    ['/etc/letsencrypt/live/billing.example.com/privkey.pem', key],
    ['/var/log/nginx/bms.access.log', accessLog],
  ]).replaceAll('billing.example.com', 'localhost');
  const nginx = await startNginx(directory, site);
  cleanups.push(() => nginx.stop());
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      if ((await request(`${origin}/health`, { ca })).status === 200) break;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  // Plain HTTP is sent to HTTPS; TLS is verified against the certificate nginx was given.
  const plain = await request(`http://127.0.0.1:${httpPort}/v1/clients`, { headers: { host: 'localhost' } });
  assert.equal(plain.status, 301);
  assert.equal(plain.headers.location, 'https://localhost/v1/clients');
  const auth = { authorization: `Bearer ${apiKey}` };
  assert.equal((await request(`${origin}/v1/clients`, { ca, headers: auth })).status, 200);

  // Failed authentication is limited per client address: nginx's own address would lock everyone out.
  const wrong = { authorization: `Bearer bms_${'x'.repeat(40)}` };
  const attacker = '127.0.0.2';
  // 20 in a row, then one more every 3 seconds: on a loaded machine the 21 requests can take longer than 3 s,
  // so the failures are sent until the first 429 and counted against the time they took.
  const statuses: number[] = [];
  const started = Date.now();
  while (statuses.at(-1) !== 429 && statuses.length < 200)
    statuses.push((await request(`${origin}/v1/clients`, { ca, from: attacker, headers: wrong })).status);
  const refilled = Math.floor((Date.now() - started) / 3_000);
  assert.deepEqual(
    [...new Set(statuses.slice(0, -1))],
    [401],
    'failures answer 401 until the address is refused, across both instances (Redis)',
  );
  assert.equal(statuses.at(-1), 429, 'the address is refused');
  assert.ok(
    statuses.length >= 21 && statuses.length <= 21 + refilled,
    `refused after 20 failures and the ${refilled} the ${Date.now() - started} ms refilled, not after ${statuses.length - 1}`,
  );
  const forged = await request(`${origin}/v1/clients`, {
    ca,
    from: attacker,
    headers: { ...wrong, 'x-forwarded-for': '198.51.100.7' },
  });
  assert.equal(forged.status, 429, 'an address the client writes into X-Forwarded-For is not believed');
  assert.equal(
    (await request(`${origin}/v1/clients`, { ca, from: attacker, headers: auth })).status,
    429,
    'even with a valid key, until the bucket refills',
  );
  const bystander = '127.0.0.3';
  assert.equal(
    (await request(`${origin}/v1/clients`, { ca, from: bystander, headers: wrong })).status,
    401,
    'another client is not affected',
  );
  assert.equal((await request(`${origin}/v1/clients`, { ca, from: bystander, headers: auth })).status, 200);

  // Links BMS issues carry PUBLIC_BASE_URL, and open through the proxy.
  const client = JSON.parse(
    (
      await request(`${origin}/v1/clients`, {
        ca,
        method: 'POST',
        headers: auth,
        body: { name: 'Jane', email: 'jane@example.com' },
      })
    ).body,
  ).data;
  const invoice = JSON.parse(
    (
      await request(`${origin}/v1/invoices`, {
        ca,
        method: 'POST',
        headers: auth,
        body: {
          client_id: client.id,
          line_items: [{ description: 'Boiler service', quantity: 1, unit_amount: 12000 }],
        },
      })
    ).body,
  ).data;
  const sent = JSON.parse(
    (await request(`${origin}/v1/invoices/${invoice.id}/send`, { ca, method: 'POST', headers: auth })).body,
  ).data;
  assert.ok(sent.hosted_url.startsWith(`${origin}/hub/`), sent.hosted_url);
  const page = await request(sent.hosted_url, { ca });
  assert.equal(page.status, 200);
  assert.match(String(page.headers['content-type']), /^text\/html/);
  assert.match(page.body, /Boiler service/);

  // /metrics: hidden by the proxy even with the token; each instance answers its scraper directly.
  assert.equal(
    (await request(`${origin}/metrics`, { ca, headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status,
    404,
  );
  let refusedByIp = 0;
  for (const instance of instances) {
    const scraped = await request(`${instance.baseUrl}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    assert.equal(scraped.status, 200);
    for (const match of scraped.body.matchAll(
      /^bms_rate_limit_rejections_total\{route="\/v1\/clients",limit="client_ip"\} (\d+)$/gm,
    ))
      refusedByIp += Number(match[1]);
  }
  assert.equal(refusedByIp, 3, 'the three 429s, counted by the instances that gave them');

  // Both instances served, and nginx's log line carries the request id BMS gave each answer.
  const answered = await request(`${origin}/v1/clients?limit=1`, { ca, headers: auth });
  const lines = fs.readFileSync(accessLog, 'utf8').trim().split('\n');
  const upstreams = new Set(
    lines.map((line) => /upstream=(\S+)/.exec(line)?.[1]).filter((value) => value && value !== '-'),
  );
  assert.deepEqual([...upstreams].sort(), instances.map((instance) => new URL(instance.baseUrl).host).sort());
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.ok(
    fs.readFileSync(accessLog, 'utf8').includes(`request_id=${answered.headers['x-request-id']}`),
    "nginx logs BMS's request id",
  );
  assert.ok(fs.readFileSync(accessLog, 'utf8').includes(attacker), "and the client's address");

  // SIGTERM one instance: it exits 0, and the other serves everything sent meanwhile and after.
  const stopping = stopInstance(instances[0]!);
  const during = await Promise.all(
    Array.from({ length: 20 }, (_, index) =>
      request(`${origin}/v1/clients`, { ca, method: 'POST', headers: auth, body: { name: `During ${index}` } }),
    ),
  );
  assert.equal(await stopping, 0);
  const afterwards = await Promise.all(
    Array.from({ length: 10 }, () => request(`${origin}/v1/clients?limit=1`, { ca, headers: auth })),
  );
  assert.deepEqual(
    [...new Set(during.map((answer) => answer.status))],
    [201],
    during.map((answer) => answer.body).find((text) => !text.includes('"data"')),
  );
  assert.deepEqual([...new Set(afterwards.map((answer) => answer.status))], [200]);
});
