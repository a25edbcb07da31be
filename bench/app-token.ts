// An app's access token against an API key (contract §25): the same GET /v1/clients/{id}, through a production-
// configured server, with a key and with a token of an install, in the same run. Target: the token's requests
// per second ≥ 0.9× the key's (a token is looked up by hash and kept 2 s, as a key is).
// `npm run bench:app-token`; BENCH_DURATION (seconds per measure, default 8), BENCH_CONNECTIONS.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { openDatabase } from '../src/db/database.js';
import { api, load, prepare, startBms, stop, work } from './lib.js';

const REDIRECT = 'https://bench-app.example.test/callback';

/** Install link → consent → code → tokens, as a browser and the app would, over HTTP. */
async function installApp(base: string, key: string) {
  const app = (
    await api(base, key, 'POST', '/v1/apps', {
      name: 'Bench app',
      redirect_uris: [REDIRECT],
      install_url: 'https://bench-app.example.test/install',
      scopes: ['clients:read'],
    })
  ).json.data;
  const link = (await api(base, key, 'POST', '/v1/app-install-links', { app_id: app.id })).json.data;
  const opened = await fetch(link.url.replace(/^https?:\/\/[^/]+/, base), { redirect: 'manual' });
  const cookie = (opened.headers.get('set-cookie') ?? '').split(';')[0]!;
  const verifier = 'b'.repeat(43);
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: app.id,
    redirect_uri: REDIRECT,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  const page = await (await fetch(`${base}/oauth/authorize?${query}`, { headers: { cookie } })).text();
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(page)![1]!;
  const approved = await fetch(`${base}/oauth/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant: field('grant'), csrf: field('csrf'), decision: 'approve' }),
  });
  const code = new URL(approved.headers.get('location')!).searchParams.get('code')!;
  const tokens = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: app.id,
      client_secret: app.client_secret,
    }),
  });
  return (await tokens.json()) as { access_token: string; install_id: string };
}

async function main() {
  const file = path.join(work, 'app-token.sqlite');
  const env = { DATABASE_URL: `sqlite:${file}` };
  const seeded = await prepare(env);
  const server = await startBms(env);
  try {
    const client = (await api(server.url, seeded.key, 'POST', '/v1/clients', { name: 'Bench client' })).json.data;
    const tokens = await installApp(server.url, seeded.key);
    // The install's limits raised as the key's are (`bms apps set-limits` is the operator's way), before the
    // token's first request, so that the limiter runs on every request but caps neither side.
    const database = openDatabase({ kind: 'sqlite', path: file });
    await database.db
      .updateTable('app_installs')
      .set({ rate_limit_per_minute: 900_000_000, rate_limit_per_day: 900_000_000, rate_limit_burst: 900_000_000 })
      .where('id', '=', tokens.install_id)
      .execute();
    await database.close();
    const url = `${server.url}/v1/clients/${client.id}`;
    load(url, { key: seeded.key, duration: 2 }); // warm-up
    const withKey = load(url, { key: seeded.key });
    const withToken = load(url, { key: tokens.access_token });
    const ratio = Math.round((withToken.requestsPerSecond / withKey.requestsPerSecond) * 1000) / 1000;
    console.log(
      JSON.stringify(
        {
          scenario: 'GET /v1/clients/{id}: an app token against an API key',
          key: withKey,
          token: withToken,
          ratio,
          target: 0.9,
        },
        null,
        2,
      ),
    );
    if (withKey.non2xx > 0 || withToken.non2xx > 0) throw new Error('non-2xx answers: see statusCodes');
  } finally {
    await stop(server.process);
  }
}

await main();
