#!/usr/bin/env node
// Runs the whole suite on embedded PGlite, then again on PostgreSQL when TEST_POSTGRES_URL is
// set, and ends with one line `N passed, N failed` summed over both runs (CI reads it).
// Usage: npm test [-- test/api/create.test.ts ...]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

function findTests(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) out.push(...findTests(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out.sort();
}

const files = process.argv.slice(2).length > 0 ? process.argv.slice(2) : findTests('test');
const engines = ['pglite', ...(process.env.TEST_POSTGRES_URL ? ['postgres'] : [])];
if (!process.env.TEST_POSTGRES_URL) console.log('TEST_POSTGRES_URL is not set: running on PGlite only.');

let passed = 0;
let failed = 0;
let skipped = 0;
for (const engine of engines) {
  console.log(`\n=== ${files.length} test files on ${engine} ===`);
  const tap = path.join(mkdtempSync(path.join(tmpdir(), 'payreq-test-')), 'report.tap');
  const r = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      '--test-concurrency=2',
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      '--test-reporter=tap',
      `--test-reporter-destination=${tap}`,
      ...files,
    ],
    { stdio: 'inherit', env: { ...process.env, TEST_DATABASE: engine, NODE_ENV: 'test' } },
  );
  let text = '';
  try {
    text = readFileSync(tap, 'utf8');
  } catch {}
  const count = (label) => sum(text, label);
  const p = count('pass');
  const f = count('fail') + count('cancelled');
  const s = count('skipped') + count('todo');
  // A crashed runner that reported nothing still fails the run.
  const crashed = r.status !== 0 && f === 0 ? 1 : 0;
  passed += p;
  failed += f + crashed;
  skipped += s;
  console.log(`${engine}: ${p} passed, ${f + crashed} failed${s ? `, ${s} skipped` : ''}`);
}

function sum(text, label) {
  let n = 0;
  for (const m of text.matchAll(new RegExp(`^# ${label} (\\d+)$`, 'gm'))) n = Number(m[1]);
  return n;
}

console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
