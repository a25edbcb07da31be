// `npm run sdk:generate`: writes the SDKs' generated files (and the READMEs' tables of methods) from the
// API's own OpenAPI document, taken from the app built in memory over a throwaway SQLite file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { generateSdkSources, type OpenApiDocument, READMES } from '../sdks/generate.js';

const sdks = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../sdks');
const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'bms-sdk-'));
const config = loadConfig({
  NODE_ENV: 'test',
  DATABASE_URL: `sqlite:${path.join(directory, 'bms.db')}`,
  LOG_LEVEL: 'silent',
});
const database = openDatabase(config.database);
const app = await buildApp(config, { database });
try {
  const document = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as OpenApiDocument;
  const readmes = Object.fromEntries(READMES.map((file) => [file, fs.readFileSync(path.join(sdks, file), 'utf8')]));
  for (const [file, text] of Object.entries(generateSdkSources(document, readmes))) {
    fs.writeFileSync(path.join(sdks, file), text);
    console.log(`wrote sdks/${file}`);
  }
} finally {
  await app.close();
  await database.close();
  fs.rmSync(directory, { recursive: true, force: true });
}
