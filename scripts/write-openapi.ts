// Writes the OpenAPI document the service serves to a file, for the typed client's generator
// (clients/typescript): `node scripts/write-openapi.ts OUT.json`. It builds the
// real app on an in-memory database, so the file is exactly what /api/openapi.json answers.
import { writeFile } from 'node:fs/promises';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config/index.ts';
import { migrate, openDatabase } from '../src/db/index.ts';

const out = process.argv[2];
if (!out) throw new Error('usage: write-openapi.ts OUT.json');
const db = await openDatabase({ engine: 'pglite', dir: undefined });
await migrate(db);
const config = loadConfig({
  NODE_ENV: 'test',
  DATABASE_URL: 'pglite://memory',
  PUBLIC_BASE_URL: 'https://payreq.example.com',
  LOG_LEVEL: 'silent',
});
const app = await buildApp({ config, db });
await app.ready();
const doc = (await app.inject({ method: 'GET', url: '/api/openapi.json' })).json();
await writeFile(out, `${JSON.stringify(doc, null, 2)}\n`);
await app.close();
await db.close();
