// Third-party apps and the OAuth 2.1 authorization server (docs/api-contract.md §25), over real HTTP: the whole
// flow in Debian's Chromium (install link → consent page → code) completed by oauth4webapi as the app's client,
// the token on /v1 and /mcp, and every security case of the section. Screenshots go to test-output/oauth/.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as oauth from 'oauth4webapi';
import { chromium, type Browser } from 'playwright-core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createTestContext, ManualClock, type TestContext } from './helpers/context.js';
import { freePort, ROOT } from './helpers/processes.js';

const CHROMIUM = '/usr/bin/chromium';
const OUTPUT = path.join(ROOT, 'test-output', 'oauth');
const installed = fs.existsSync(CHROMIUM);
const INSTALL_URL = 'https://routes.example.test/install';
const REDIRECT = 'http://127.0.0.1:9/callback';
const HTTPS_REDIRECT = 'https://routes.example.test/callback';

let context: TestContext;
let clock: ManualClock;
let base: string;
let publisher: { accountId: string; key: string };
let business: { accountId: string; key: string };

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

async function http(
  method: string,
  url: string,
  init: {
    key?: string;
    body?: unknown;
    form?: Record<string, string>;
    headers?: Record<string, string>;
    cookie?: string;
  } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.key) headers.authorization = `Bearer ${init.key}`;
  if (init.cookie) headers.cookie = init.cookie;
  let body: string | undefined;
  if (init.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.body);
  }
  if (init.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(init.form).toString();
  }
  const response = await fetch(`${base}${url}`, { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

async function createApp(fields: Record<string, unknown> = {}) {
  const created = await http('POST', '/v1/apps', {
    key: publisher.key,
    body: {
      name: 'Route Planner',
      website: 'https://routes.example.test',
      redirect_uris: [REDIRECT, HTTPS_REDIRECT],
      install_url: INSTALL_URL,
      scopes: ['clients:read', 'clients:write', 'invoices:read', 'events:read'],
      visibility: 'public',
      ...fields,
    },
  });
  assert.equal(created.status, 201, created.text);
  return created.json.data as { id: string; client_secret: string; scopes: string[] };
}

async function installLink(appId: string, scopes?: string[], key = business.key): Promise<string> {
  const link = await http('POST', '/v1/app-install-links', {
    key,
    body: { app_id: appId, ...(scopes ? { scopes } : {}) },
  });
  assert.equal(link.status, 201, link.text);
  return link.json.data.url as string;
}

/** Opens a link as a browser would: the consent cookie it sets. */
async function consentCookie(url: string): Promise<string> {
  const opened = await fetch(url, { redirect: 'manual' });
  assert.equal(opened.status, 303);
  assert.equal(opened.headers.get('location'), INSTALL_URL);
  const setCookie = opened.headers.get('set-cookie') ?? '';
  assert.match(setCookie, /HttpOnly/i);
  assert.match(setCookie, /SameSite=Lax/i);
  assert.match(setCookie, /Path=\/oauth/);
  return setCookie.split(';')[0]!;
}

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizeQuery(appId: string, challenge: string, extra: Record<string, string> = {}): string {
  return new URLSearchParams({
    response_type: 'code',
    client_id: appId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st-1',
    ...extra,
  }).toString();
}

/** The consent page's form fields. */
function formOf(page: string): { grant: string; csrf: string } {
  const grant = /name="grant" value="([^"]+)"/.exec(page)?.[1];
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
  assert.ok(grant && csrf, page);
  return { grant, csrf };
}

/** Install link → consent → Approve: the code's redirect. */
async function approvedCode(appId: string, options: { scopes?: string[]; query?: Record<string, string> } = {}) {
  const cookie = await consentCookie(await installLink(appId, options.scopes));
  const { verifier, challenge } = pkce();
  const page = await http('GET', `/oauth/authorize?${authorizeQuery(appId, challenge, options.query)}`, { cookie });
  assert.equal(page.status, 200, page.text);
  const approve = await http('POST', '/oauth/authorize', {
    cookie,
    form: { ...formOf(page.text), decision: 'approve' },
  });
  assert.equal(approve.status, 302, approve.text);
  const location = new URL(approve.headers.get('location')!);
  return { location, verifier, code: location.searchParams.get('code')! };
}

async function tokenRequest(app: { id: string; client_secret: string }, form: Record<string, string>) {
  const basic = Buffer.from(`${app.id}:${app.client_secret}`).toString('base64');
  return http('POST', '/oauth/token', { form, headers: { authorization: `Basic ${basic}` } });
}

async function tokens(app: { id: string; client_secret: string }, scopes?: string[]) {
  const { code, verifier } = await approvedCode(app.id, scopes ? { scopes } : {});
  const answer = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    redirect_uri: REDIRECT,
  });
  assert.equal(answer.status, 200, answer.text);
  return { ...answer.json, code, verifier } as {
    access_token: string;
    refresh_token: string;
    install_id: string;
    scope: string;
    code: string;
    verifier: string;
  };
}

before(async () => {
  const port = await freePort();
  clock = new ManualClock(new Date());
  context = await createTestContext({ clock, env: { PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } });
  await context.app.listen({ port, host: '127.0.0.1' });
  base = `http://127.0.0.1:${port}`;
  publisher = await context.account('Route Planner Ltd');
  business = await context.account('Cooper Plumbing');
});

after(async () => {
  await context?.close();
});

test('RFC 8414 metadata states S256 only, the grantable scopes and the endpoints; RFC 9728 names it for /mcp', async () => {
  const metadata = await http('GET', '/.well-known/oauth-authorization-server');
  assert.equal(metadata.status, 200);
  assert.equal(metadata.json.issuer, base);
  assert.deepEqual(metadata.json.code_challenge_methods_supported, ['S256']);
  assert.deepEqual(metadata.json.response_types_supported, ['code']);
  assert.deepEqual(metadata.json.grant_types_supported, ['authorization_code', 'refresh_token']);
  assert.equal(metadata.json.token_endpoint, `${base}/oauth/token`);
  assert.ok(metadata.json.scopes_supported.includes('clients:read'));
  for (const never of [
    'api_keys:read',
    'api_keys:write',
    'webhooks:read',
    'webhooks:write',
    'apps:read',
    'apps:write',
    'apps:install',
    'app_installs:read',
    'app_installs:write',
  ])
    assert.ok(!metadata.json.scopes_supported.includes(never), never);
  const resource = await http('GET', '/.well-known/oauth-protected-resource');
  assert.equal(resource.json.resource, `${base}/mcp`);
  assert.deepEqual(resource.json.authorization_servers, [base]);
  const mcp401 = await http('POST', '/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
  assert.equal(mcp401.status, 401);
  assert.equal(
    mcp401.headers.get('www-authenticate'),
    `Bearer realm="bms", resource_metadata="${base}/.well-known/oauth-protected-resource"`,
  );
});

test('publishing: redirect URIs, install URL and scopes are checked; secrets are answered once', async () => {
  const bad = await http('POST', '/v1/apps', {
    key: publisher.key,
    body: {
      name: 'Bad',
      redirect_uris: ['http://localhost:3000/cb', 'https://x.test/cb#frag', 'http://example.test/cb'],
      install_url: 'http://x.test/install',
      scopes: ['clients:read', 'api_keys:write', 'webhooks:read', 'apps:read', 'app_installs:write'],
    },
  });
  assert.equal(bad.status, 422);
  const fields = bad.json.error.details.map((detail: { field: string }) => detail.field).sort();
  assert.deepEqual(fields, [
    'install_url',
    'redirect_uris[0]',
    'redirect_uris[1]',
    'redirect_uris[2]',
    'scopes[1]',
    'scopes[2]',
    'scopes[3]',
    'scopes[4]',
  ]);
  const app = await createApp();
  assert.match(app.client_secret, /^bmscs_[0-9A-Za-z]{40}$/);
  const read = await http('GET', `/v1/apps/${app.id}`, { key: publisher.key });
  assert.equal(read.status, 200);
  assert.equal(read.json.data.client_secret, undefined);
  assert.equal(read.json.data.object, 'app');
  // Another account cannot read it.
  assert.equal((await http('GET', `/v1/apps/${app.id}`, { key: business.key })).status, 404);
  const events = await http('GET', '/v1/events?type=app.created', { key: publisher.key });
  assert.equal(events.json.data[0].data.object.id, app.id);
  assert.equal(JSON.stringify(events.json.data[0]).includes(app.client_secret), false);
});

describe('the whole flow in Chromium, completed by oauth4webapi', {
  skip: installed ? false : `${CHROMIUM} is not installed`,
}, () => {
  let browser: Browser;
  before(async () => {
    fs.mkdirSync(OUTPUT, { recursive: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
  });
  after(async () => {
    await browser?.close();
  });

  test('install link → consent page → code → tokens → /v1 and /mcp with the token; refresh, introspect, revoke', async () => {
    const app = await createApp({ name: 'Route Planner Pro' });
    const issuer = new URL(base);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', [oauth.allowInsecureRequests]: true }),
    );
    const client: oauth.Client = { client_id: app.id };
    const clientAuth = oauth.ClientSecretBasic(app.client_secret);
    const verifier = oauth.generateRandomCodeVerifier();
    const challenge = await oauth.calculatePKCECodeChallenge(verifier);
    const state = oauth.generateRandomState();
    const authorizationUrl = new URL(as.authorization_endpoint!);
    for (const [name, value] of Object.entries({
      response_type: 'code',
      client_id: app.id,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      scope: 'clients:read clients:write events:read',
      state,
      resource: `${base}/v1`,
    }))
      authorizationUrl.searchParams.set(name, value);

    const link = await installLink(app.id, ['clients:read', 'clients:write', 'events:read']);
    const browserContext = await browser.newContext({
      javaScriptEnabled: false,
      viewport: { width: 800, height: 900 },
    });
    const opener = await browserContext.newPage();
    // The app's install URL would start the authorization: the browser is sent there (with the consent cookie
    // set), then to the authorization URL, as the app's page would redirect it.
    const toInstallUrl = opener.waitForRequest((request) => request.url().startsWith(INSTALL_URL));
    await opener.goto(link).catch(() => undefined);
    await toInstallUrl;
    const page = await browserContext.newPage();
    const consent = await page.goto(authorizationUrl.toString());
    assert.equal(consent?.status(), 200);
    const headers = consent!.headers();
    assert.match(headers['content-security-policy'] ?? '', /frame-ancestors 'none'/);
    assert.match(headers['cache-control'] ?? '', /no-store/);
    assert.equal(headers['referrer-policy'], 'no-referrer');
    assert.match(headers['x-robots-tag'] ?? '', /noindex/);
    const text = await page.locator('main').innerText();
    assert.match(text, /Cooper Plumbing/);
    assert.match(text, /Route Planner Pro/);
    assert.match(text, /published by Route Planner Ltd/);
    assert.match(text, /127\.0\.0\.1:9/);
    assert.match(text, /See your clients and their properties\./);
    assert.match(text, /Create and change clients and their properties\./);
    assert.match(text, /See the history of changes in your account\./);
    await page.screenshot({ path: path.join(OUTPUT, 'consent.png'), fullPage: true });
    // The redirect URI receives the code (nothing listens on port 9: the request is all the test needs).
    const toCallback = page.waitForRequest((request) => request.url().startsWith(REDIRECT));
    await page
      .getByRole('button', { name: 'Approve' })
      .click()
      .catch(() => undefined);
    const callbackUrl = new URL((await toCallback).url());
    assert.equal(callbackUrl.searchParams.get('iss'), base);

    const parameters = oauth.validateAuthResponse(as, client, callbackUrl, state);
    const options = { [oauth.allowInsecureRequests]: true };
    const tokenSet = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, clientAuth, parameters, REDIRECT, verifier, options),
    );
    assert.match(tokenSet.access_token, /^bmsat_[0-9A-Za-z]{40}$/);
    assert.match(tokenSet.refresh_token!, /^bmsrt_[0-9A-Za-z]{40}$/);
    assert.equal(tokenSet.token_type, 'bearer');
    assert.equal(tokenSet.expires_in, 3600);
    assert.equal(tokenSet.scope, 'clients:read clients:write events:read');
    const installId = tokenSet.install_id as string;
    assert.equal(tokenSet.account_id, business.accountId);

    // /v1: the token acts as a key holding the install's scopes, in its own bucket.
    const made = await http('POST', '/v1/clients', { key: tokenSet.access_token, body: { name: 'Made by the app' } });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.headers.get('ratelimit-policy'), '"minute";q=60;w=60;bms-burst=100, "day";q=10000;w=86400');
    assert.equal(made.headers.get('x-ratelimit-limit'), '100');
    assert.equal(made.headers.get('x-ratelimit-remaining'), '99');
    const refused = await http('GET', '/v1/invoices', { key: tokenSet.access_token });
    assert.equal(refused.status, 403);
    assert.equal(refused.json.error.code, 'INSUFFICIENT_SCOPE');
    const events = await http('GET', `/v1/events?resource_id=${made.json.data.id}`, { key: business.key });
    assert.deepEqual(events.json.data[0].actor, { type: 'app', id: installId, app_id: app.id });
    const byApp = await http('GET', `/v1/events?app_id=${app.id}`, { key: business.key });
    assert.deepEqual(byApp.json.data.map((event: { type: string }) => event.type).sort(), [
      'app.installed',
      'client.created',
    ]);
    // The token reads events of the kinds its install reads (clients here) and its own install's app.*, never
    // the keys' or another install's (app-events.test.ts compares it with what the app's webhook hears of).
    const seen = await http('GET', '/v1/events?limit=100', { key: tokenSet.access_token });
    assert.equal(seen.status, 200);
    assert.ok(seen.json.data.length >= 1);
    assert.ok(
      seen.json.data.every(
        (event: { type: string; data: { object: { id: string } } }) =>
          event.type.startsWith('client.') || (event.type === 'app.installed' && event.data.object.id === installId),
      ),
      seen.text,
    );
    const installed = byApp.json.data.find((event: { type: string }) => event.type === 'app.installed');
    assert.equal((await http('GET', `/v1/events/${installed.id}`, { key: tokenSet.access_token })).status, 200);
    assert.equal((await http('GET', `/v1/events/${installed.id}`, { key: business.key })).status, 200);
    const current = await http('GET', '/v1/app-installs/current', { key: tokenSet.access_token });
    assert.equal(current.status, 200);
    assert.equal(current.json.data.id, installId);
    assert.deepEqual(current.json.data.scopes, ['clients:read', 'clients:write', 'events:read']);
    assert.equal(current.json.data.app.publisher_name, 'Route Planner Ltd');
    assert.equal((await http('GET', '/v1/app-installs/current', { key: business.key })).status, 404);

    // /mcp with the same token: its tools are those of its scopes.
    const mcp = new Client({ name: 'route-planner', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${tokenSet.access_token}` } },
      }),
    );
    const tools = (await mcp.listTools()).tools.map((tool) => tool.name);
    assert.ok(tools.includes('find_clients'), tools.join(', '));
    assert.ok(!tools.some((name) => name.includes('invoice')), tools.join(', '));
    await mcp.close();

    // Refresh: a new pair; introspection of the app's own token; revocation ends the family and the install.
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokenSet.refresh_token!, options),
    );
    assert.notEqual(refreshed.refresh_token, tokenSet.refresh_token);
    const introspected = await oauth.processIntrospectionResponse(
      as,
      client,
      await oauth.introspectionRequest(as, client, clientAuth, refreshed.access_token, options),
    );
    assert.equal(introspected.active, true);
    assert.equal(introspected.client_id, app.id);
    assert.equal(introspected.install_id, installId);
    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, clientAuth, refreshed.refresh_token!, options),
    );
    const after = await http('GET', '/v1/clients', { key: refreshed.access_token });
    assert.equal(after.status, 401);
    assert.equal(after.json.error.code, 'INVALID_API_KEY');
    const install = await http('GET', `/v1/app-installs/${installId}`, { key: business.key });
    assert.equal(install.json.data.status, 'uninstalled');
    assert.equal(install.json.data.uninstalled_reason, 'app');
  });
});

describe('security cases of section 25', () => {
  let app: { id: string; client_secret: string; scopes: string[] };
  before(async () => {
    app = await createApp({ name: 'Security Suite' });
  });

  test('plain or missing PKCE is refused with a redirect carrying invalid_request, state and iss', async () => {
    const cookie = await consentCookie(await installLink(app.id));
    const { challenge } = pkce();
    for (const extra of [{ code_challenge_method: 'plain' }, { code_challenge_method: '' }]) {
      const answer = await http('GET', `/oauth/authorize?${authorizeQuery(app.id, challenge, extra)}`, { cookie });
      assert.equal(answer.status, 302);
      const location = new URL(answer.headers.get('location')!);
      assert.equal(`${location.origin}${location.pathname}`, REDIRECT);
      assert.equal(location.searchParams.get('error'), 'invalid_request');
      assert.equal(location.searchParams.get('state'), 'st-1');
      assert.equal(location.searchParams.get('iss'), base);
    }
    const query = new URLSearchParams({ response_type: 'code', client_id: app.id, redirect_uri: REDIRECT, state: 's' });
    const missing = await http('GET', `/oauth/authorize?${query}`, { cookie });
    assert.equal(new URL(missing.headers.get('location')!).searchParams.get('error'), 'invalid_request');
  });

  test('a redirect URI differing by a trailing slash, case or non-loopback port is an HTML page, never a redirect', async () => {
    const cookie = await consentCookie(await installLink(app.id));
    const { challenge } = pkce();
    for (const uri of [
      `${HTTPS_REDIRECT}/`,
      'https://routes.example.test/Callback',
      'https://ROUTES.example.test/callback',
      'https://routes.example.test:8443/callback',
      'http://localhost:9/callback',
    ]) {
      const answer = await http('GET', `/oauth/authorize?${authorizeQuery(app.id, challenge, { redirect_uri: uri })}`, {
        cookie,
      });
      assert.equal(answer.status, 400, uri);
      assert.equal(answer.headers.get('location'), null, uri);
      assert.match(answer.headers.get('content-type') ?? '', /text\/html/);
    }
    const unknown = await http(
      'GET',
      `/oauth/authorize?${authorizeQuery('019a8f4e-7c1a-7d2b-9a3e-5b6c7d8e9f01', challenge)}`,
      { cookie },
    );
    assert.equal(unknown.status, 400);
    assert.equal(unknown.headers.get('location'), null);
    // A loopback redirect URI's port alone may vary (RFC 8252 §7.3).
    const loopback = await http(
      'GET',
      `/oauth/authorize?${authorizeQuery(app.id, challenge, { redirect_uri: 'http://127.0.0.1:51234/callback' })}`,
      { cookie },
    );
    assert.equal(loopback.status, 200);
  });

  test('a code used twice is invalid_grant and revokes what the first use issued', async () => {
    const first = await tokens(app);
    assert.equal((await http('GET', '/v1/clients', { key: first.access_token })).status, 200);
    const again = await tokenRequest(app, {
      grant_type: 'authorization_code',
      code: first.code,
      code_verifier: first.verifier,
    });
    assert.equal(again.status, 400);
    assert.equal(again.json.error, 'invalid_grant');
    assert.ok(again.json.meta.request_id);
    assert.equal((await http('GET', '/v1/clients', { key: first.access_token })).status, 401);
    const refresh = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: first.refresh_token });
    assert.equal(refresh.json.error, 'invalid_grant');
    const install = await http('GET', `/v1/app-installs/${first.install_id}`, { key: business.key });
    assert.equal(install.json.data.uninstalled_reason, 'token_reuse');
  });

  test('a wrong verifier is invalid_grant, a missing one invalid_request; other grant types are unsupported', async () => {
    const { code } = await approvedCode(app.id);
    assert.equal((await tokenRequest(app, { grant_type: 'authorization_code', code })).json.error, 'invalid_request');
    const wrong = await tokenRequest(app, { grant_type: 'authorization_code', code, code_verifier: pkce().verifier });
    assert.equal(wrong.json.error, 'invalid_grant');
    for (const grantType of ['password', 'client_credentials'])
      assert.equal((await tokenRequest(app, { grant_type: grantType })).json.error, 'unsupported_grant_type');
    const badClient = await http('POST', '/oauth/token', {
      form: { grant_type: 'refresh_token', refresh_token: 'x' },
      headers: { authorization: `Basic ${Buffer.from(`${app.id}:bmscs_${'x'.repeat(40)}`).toString('base64')}` },
    });
    assert.equal(badClient.status, 401);
    assert.equal(badClient.json.error, 'invalid_client');
    assert.equal(badClient.headers.get('www-authenticate'), 'Basic realm="bms"');
  });

  test('a refresh token reused within 60 s gets a pair and revokes the pair it replaced; after, the family ends and the app is uninstalled', async () => {
    const issued = await tokens(app);
    const second = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: issued.refresh_token });
    assert.equal(second.status, 200);
    clock.advance(30_000);
    const retry = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: issued.refresh_token });
    assert.equal(retry.status, 200, retry.text);
    assert.notEqual(retry.json.refresh_token, second.json.refresh_token);
    // The pair it replaced was never received: revoked.
    assert.equal((await http('GET', '/v1/clients', { key: second.json.access_token })).status, 401);
    assert.equal((await http('GET', '/v1/clients', { key: retry.json.access_token })).status, 200);
    clock.advance(31_000);
    const late = await tokenRequest(app, { grant_type: 'refresh_token', refresh_token: issued.refresh_token });
    assert.equal(late.status, 400);
    assert.equal(late.json.error, 'invalid_grant');
    assert.equal((await http('GET', '/v1/clients', { key: retry.json.access_token })).status, 401);
    const install = await http('GET', `/v1/app-installs/${issued.install_id}`, { key: business.key });
    assert.equal(install.json.data.status, 'uninstalled');
    assert.equal(install.json.data.uninstalled_reason, 'token_reuse');
  });

  test('a scope outside the link or the app is never granted, whatever the form posts', async () => {
    const cookie = await consentCookie(await installLink(app.id, ['clients:read']));
    const { verifier, challenge } = pkce();
    const page = await http(
      'GET',
      `/oauth/authorize?${authorizeQuery(app.id, challenge, { scope: 'clients:read invoices:read' })}`,
      { cookie },
    );
    assert.equal(page.status, 200);
    assert.match(page.text, /Not granted/);
    assert.match(page.text, /<ul class="denied"><li data-scope="invoices:read">/);
    const approve = await http('POST', '/oauth/authorize', {
      cookie,
      form: { ...formOf(page.text), decision: 'approve', scope: 'clients:read invoices:read clients:write' },
    });
    const code = new URL(approve.headers.get('location')!).searchParams.get('code')!;
    const answer = await tokenRequest(app, { grant_type: 'authorization_code', code, code_verifier: verifier });
    assert.equal(answer.json.scope, 'clients:read');
    assert.equal((await http('GET', '/v1/invoices', { key: answer.json.access_token })).status, 403);
    // Outside the app: invalid_scope, by redirect.
    const cookie2 = await consentCookie(await installLink(app.id));
    const outside = await http(
      'GET',
      `/oauth/authorize?${authorizeQuery(app.id, challenge, { scope: 'clients:read quotes:read' })}`,
      { cookie: cookie2 },
    );
    assert.equal(new URL(outside.headers.get('location')!).searchParams.get('error'), 'invalid_scope');
    // A link beyond the app: 422 on scopes[i]; beyond the key: 403.
    const beyondApp = await http('POST', '/v1/app-install-links', {
      key: business.key,
      body: { app_id: app.id, scopes: ['clients:read', 'quotes:read'] },
    });
    assert.equal(beyondApp.status, 422);
    assert.equal(beyondApp.json.error.details[0].field, 'scopes[1]');
    const weak = await context.key(business.accountId, ['apps:install', 'clients:read']);
    const beyondKey = await http('POST', '/v1/app-install-links', { key: weak.key, body: { app_id: app.id } });
    assert.equal(beyondKey.status, 403);
    assert.equal(beyondKey.json.error.code, 'INSUFFICIENT_SCOPE');
  });

  test('another account’s private app is refused', async () => {
    const privateApp = await createApp({ name: 'In-house', visibility: 'private' });
    const answer = await http('POST', '/v1/app-install-links', { key: business.key, body: { app_id: privateApp.id } });
    assert.equal(answer.status, 422);
    assert.equal(answer.json.error.details[0].field, 'app_id');
    // Its own account may install it.
    assert.equal(
      (await http('POST', '/v1/app-install-links', { key: publisher.key, body: { app_id: privateApp.id } })).status,
      201,
    );
  });

  test('a CSRF token missing or from another cookie is a 403 page; an install link opens once', async () => {
    const link = await installLink(app.id);
    const cookie = await consentCookie(link);
    assert.equal((await fetch(link, { redirect: 'manual' })).status, 404);
    const otherCookie = await consentCookie(await installLink(app.id));
    const { challenge } = pkce();
    const page = await http('GET', `/oauth/authorize?${authorizeQuery(app.id, challenge)}`, { cookie });
    const otherPage = await http('GET', `/oauth/authorize?${authorizeQuery(app.id, challenge)}`, {
      cookie: otherCookie,
    });
    const { grant } = formOf(page.text);
    const missing = await http('POST', '/oauth/authorize', { cookie, form: { grant, decision: 'approve' } });
    assert.equal(missing.status, 403);
    assert.match(missing.headers.get('content-type') ?? '', /text\/html/);
    const foreign = await http('POST', '/oauth/authorize', {
      cookie,
      form: { grant, csrf: formOf(otherPage.text).csrf, decision: 'approve' },
    });
    assert.equal(foreign.status, 403);
    const crossSite = await http('POST', '/oauth/authorize', {
      cookie,
      form: { ...formOf(page.text), decision: 'approve' },
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    assert.equal(crossSite.status, 403);
    // Without the cookie, the page only says how to get an install link.
    const none = await http('GET', `/oauth/authorize?${authorizeQuery(app.id, challenge)}`);
    assert.equal(none.status, 403);
    assert.match(none.text, /install link/);
    // Deny: access_denied, and the consent ends.
    const deny = await http('POST', '/oauth/authorize', { cookie, form: { ...formOf(page.text), decision: 'deny' } });
    assert.equal(deny.status, 302);
    assert.equal(new URL(deny.headers.get('location')!).searchParams.get('error'), 'access_denied');
  });

  test('introspection of another app’s token is active: false; revoking it does nothing', async () => {
    const other = await createApp({ name: 'Other App' });
    const mine = await tokens(app);
    const basic = Buffer.from(`${other.id}:${other.client_secret}`).toString('base64');
    const answer = await http('POST', '/oauth/introspect', {
      form: { token: mine.access_token },
      headers: { authorization: `Basic ${basic}` },
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.json.active, false);
    assert.deepEqual(Object.keys(answer.json).sort(), ['active', 'meta']);
    const revoked = await http('POST', '/oauth/revoke', {
      form: { token: mine.refresh_token },
      headers: { authorization: `Basic ${basic}` },
    });
    assert.equal(revoked.status, 200);
    assert.equal((await http('GET', '/v1/clients', { key: mine.access_token })).status, 200);
  });

  test('a token’s Idempotency-Key is kept per install: a repeat answers the first create', async () => {
    const issued = await tokens(app);
    const create = () =>
      http('POST', '/v1/clients', {
        key: issued.access_token,
        body: { name: 'Once' },
        headers: { 'idempotency-key': 'app-create-1' },
      });
    const first = await create();
    assert.equal(first.status, 201, first.text);
    const again = await create();
    assert.equal(again.json.data.id, first.json.data.id);
  });

  test('uninstall by the business: every token is 401 at the next request; again: unchanged', async () => {
    const issued = await tokens(app);
    const removed = await http('DELETE', `/v1/app-installs/${issued.install_id}`, { key: business.key });
    assert.equal(removed.status, 200);
    assert.equal(removed.json.data.uninstalled_reason, 'business');
    assert.equal((await http('GET', '/v1/clients', { key: issued.access_token })).status, 401);
    const again = await http('DELETE', `/v1/app-installs/${issued.install_id}`, { key: business.key });
    assert.equal(again.json.data.uninstalled_at, removed.json.data.uninstalled_at);
    const events = await http('GET', `/v1/events?type=app.uninstalled&resource_id=${issued.install_id}`, {
      key: business.key,
    });
    assert.equal(events.json.data.length, 1);
  });
});
