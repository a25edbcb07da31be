// An install of a new app, made as a browser and the app would (contract §25): the install link opened, the
// consent page approved, the code redeemed, all through the app's own HTTP handling. For suites that need an
// app's tokens without driving the flow (apps-oauth.test.ts drives it in a browser).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { TestContext } from './context.js';

export interface InstalledApp {
  app: { id: string; client_secret: string };
  access_token: string;
  refresh_token: string;
  install_id: string;
  scope: string;
}

const REDIRECT = 'https://app.example.test/callback';

export async function installApp(
  context: TestContext,
  key: string,
  options: { app?: { id: string; client_secret: string }; scopes?: string[] } = {},
): Promise<InstalledApp> {
  const api = async (method: string, url: string, body?: unknown) => {
    const answer = await context.request(method, url, { key, body });
    assert.ok(answer.status < 300, `${method} ${url}: ${answer.status} ${answer.text}`);
    return answer.body.data;
  };
  const app =
    options.app ??
    (await api('POST', '/v1/apps', {
      name: 'Test app',
      redirect_uris: [REDIRECT],
      install_url: 'https://app.example.test/install',
      scopes: options.scopes ?? ['clients:read', 'clients:write'],
    }));
  const link = await api('POST', '/v1/app-install-links', { app_id: app.id });
  const opened = await context.request('GET', new URL(link.url).pathname);
  const cookie = String(opened.headers['set-cookie']).split(';')[0]!;
  const verifier = 'v'.repeat(43);
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: app.id,
    redirect_uri: REDIRECT,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  const page = await context.request('GET', `/oauth/authorize?${query}`, { headers: { cookie } });
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(page.text)![1]!;
  const formHeaders = { 'content-type': 'application/x-www-form-urlencoded' };
  const approved = await context.request('POST', '/oauth/authorize', {
    rawBody: new URLSearchParams({ grant: field('grant'), csrf: field('csrf'), decision: 'approve' }).toString(),
    headers: { ...formHeaders, cookie },
  });
  const code = new URL(String(approved.headers.location)).searchParams.get('code')!;
  const tokens = await context.request('POST', '/oauth/token', {
    rawBody: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: app.id,
      client_secret: app.client_secret,
    }).toString(),
    headers: formHeaders,
  });
  assert.equal(tokens.status, 200, tokens.text);
  return { app, ...tokens.body };
}
