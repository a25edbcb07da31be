// An app's logo (contract §25: `has_logo`, `PUT`/`DELETE /v1/apps/:id/logo` as §10's account logo), shown on
// the consent page beside the business's own logo, each served from the authorization server (the page's CSP
// allows images from itself alone); the business's only to the holder of its consent cookie.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from './helpers/context.js';
import { installApp } from './helpers/app-install.js';
import { jpegFixture, logoPng } from './helpers/images.js';

const REDIRECT = 'https://app.example.test/callback';

describe('app logos', () => {
  let context: TestContext;
  let publisher: { accountId: string; key: string };
  let business: { accountId: string; key: string };
  let appId: string;
  let appSecret: string;

  const call = (key: string, method: string, url: string, body?: unknown) =>
    context.request(method, url, { key, body });

  before(async () => {
    context = await createTestContext();
    publisher = await context.account('Route Planner Ltd');
    business = await context.account('Acme Plumbing');
    const made = await call(publisher.key, 'POST', '/v1/apps', {
      name: 'Route planner',
      redirect_uris: [REDIRECT],
      install_url: 'https://app.example.test/install',
      scopes: ['clients:read'],
      visibility: 'public',
    });
    assert.equal(made.status, 201, made.text);
    assert.equal(made.body.data.has_logo, false);
    appId = made.body.data.id;
    appSecret = made.body.data.client_secret;
  });
  after(() => context.close());

  test('PUT takes a real PNG or JPEG and answers the app with has_logo; app.updated says so', async () => {
    const put = await call(publisher.key, 'PUT', `/v1/apps/${appId}/logo`, {
      content_type: 'image/png',
      data: logoPng().toString('base64'),
    });
    assert.equal(put.status, 200, put.text);
    assert.equal(put.body.data.has_logo, true);
    assert.equal((await call(publisher.key, 'GET', `/v1/apps/${appId}`)).body.data.has_logo, true);
    const events = await call(publisher.key, 'GET', `/v1/events?type=app.updated&resource_id=${appId}`);
    assert.deepEqual(events.body.data[0].data.previous_attributes.has_logo, false);
    const jpeg = await call(publisher.key, 'PUT', `/v1/apps/${appId}/logo`, {
      content_type: 'image/jpeg',
      data: jpegFixture().toString('base64'),
    });
    assert.equal(jpeg.status, 200, jpeg.text);
  });

  test('what is not an image of the stated type is 422 on data; another account’s app is 404', async () => {
    const notPng = await call(publisher.key, 'PUT', `/v1/apps/${appId}/logo`, {
      content_type: 'image/png',
      data: jpegFixture().toString('base64'),
    });
    assert.equal(notPng.status, 422, notPng.text);
    assert.equal(notPng.body.error.details[0].field, 'data');
    const notBase64 = await call(publisher.key, 'PUT', `/v1/apps/${appId}/logo`, {
      content_type: 'image/png',
      data: 'not base64!',
    });
    assert.equal(notBase64.status, 422);
    const gif = await call(publisher.key, 'PUT', `/v1/apps/${appId}/logo`, { content_type: 'image/gif', data: 'R0lG' });
    assert.equal(gif.status, 422);
    const foreign = await call(business.key, 'PUT', `/v1/apps/${appId}/logo`, {
      content_type: 'image/png',
      data: logoPng().toString('base64'),
    });
    assert.equal(foreign.status, 404);
    assert.equal((await call(business.key, 'DELETE', `/v1/apps/${appId}/logo`)).status, 404);
  });

  test('the consent page shows both logos, each served from /oauth; the business’s only with its cookie', async () => {
    await call(publisher.key, 'PUT', `/v1/apps/${appId}/logo`, {
      content_type: 'image/png',
      data: logoPng().toString('base64'),
    });
    const businessLogo = logoPng();
    assert.equal(
      (
        await call(business.key, 'PUT', '/v1/account/logo', {
          content_type: 'image/png',
          data: businessLogo.toString('base64'),
        })
      ).status,
      200,
    );
    const link = await call(business.key, 'POST', '/v1/app-install-links', { app_id: appId });
    const opened = await context.request('GET', new URL(link.body.data.url).pathname);
    const cookie = String(opened.headers['set-cookie']).split(';')[0]!;
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: appId,
      redirect_uri: REDIRECT,
      code_challenge: createHash('sha256').update('v'.repeat(43)).digest('base64url'),
      code_challenge_method: 'S256',
    });
    const page = await context.request('GET', `/oauth/authorize?${query}`, { headers: { cookie } });
    assert.equal(page.status, 200, page.text);
    assert.match(page.text, /<img class="logo" src="\/oauth\/authorize\/logo" alt="Acme Plumbing">/);
    assert.match(page.text, new RegExp(`<img class="app-logo" src="/oauth/apps/${appId}/logo" alt="Route planner">`));

    const appLogo = await context.request('GET', `/oauth/apps/${appId}/logo`);
    assert.equal(appLogo.status, 200);
    assert.equal(appLogo.headers['content-type'], 'image/png');
    assert.deepEqual(appLogo.raw, logoPng());
    const mine = await context.request('GET', '/oauth/authorize/logo', { headers: { cookie } });
    assert.equal(mine.status, 200);
    assert.deepEqual(mine.raw, businessLogo);
    const noCookie = await context.request('GET', '/oauth/authorize/logo');
    assert.equal(noCookie.status, 404);
    assert.equal(noCookie.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal((await context.request('GET', '/oauth/apps/not-an-id/logo')).status, 404);
  });

  test('an install names its app’s has_logo; DELETE removes it, twice without error', async () => {
    const installed = await installApp(context, business.key, { app: { id: appId, client_secret: appSecret } });
    const read = async () =>
      (await call(business.key, 'GET', `/v1/app-installs/${installed.install_id}`)).body.data.app.has_logo;
    assert.equal(await read(), true);
    const removed = await call(publisher.key, 'DELETE', `/v1/apps/${appId}/logo`);
    assert.equal(removed.status, 200, removed.text);
    assert.equal(removed.body.data.has_logo, false);
    assert.equal(await read(), false);
    const again = await call(publisher.key, 'DELETE', `/v1/apps/${appId}/logo`);
    assert.equal(again.status, 200);
    assert.equal((await context.request('GET', `/oauth/apps/${appId}/logo`)).status, 404);
  });
});
