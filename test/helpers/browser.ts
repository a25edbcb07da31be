// Debian's Chromium, driven by playwright-core, for the tests of pages in a real browser; and a test app listening
// on a free port with PUBLIC_BASE_URL pointing at it, so the pages' links lead back to it.
import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { createTestContext, type TestContext } from './context.js';
import { freePort } from './processes.js';

export const CHROMIUM = '/usr/bin/chromium';
export const chromiumInstalled = fs.existsSync(CHROMIUM);

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
  });
}

/** A test app listening on 127.0.0.1 at a free port, its PUBLIC_BASE_URL that address. */
export async function listeningContext(): Promise<TestContext> {
  const port = await freePort();
  const context = await createTestContext({ env: { PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } });
  await context.app.listen({ port, host: '127.0.0.1' });
  return context;
}
