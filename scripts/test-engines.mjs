// Which test files scripts/run-tests.mjs runs again on PostgreSQL: those whose outcome can depend
// on the engine. A file depends on it when it reaches test/helpers/database.ts (the engine's test
// database and its name) through its imports, or when it or a module it imports reads the
// engine's name from the environment itself. A file may keep itself to PGlite with a line
// `// test-engines: pglite` and its reason (the browser tests: what a browser sees does not
// depend on the engine).
//
// The imports are esbuild's, resolved as a bundle would resolve them (static and literal dynamic
// imports, re-exports, `.js` names of `.ts` files), not read with a pattern
// (test/tooling/test-engines.test.ts).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

const ENGINE_DATABASE = 'test/helpers/database.ts';
const PGLITE_ONLY = /^\/\/ test-engines: pglite\b/m;
const READS_ENGINE = /\bprocess\.env\.TEST_DATABASE\b/;

/** The files of `files` (paths relative to `root`) that depend on the engine, in their order. */
export async function engineDependentFiles(root, files) {
  if (files.length === 0) return [];
  const { metafile } = await build({
    absWorkingDir: root,
    entryPoints: files,
    bundle: true,
    // Shared modules in chunks of their own: each is then written once, not once per test file.
    splitting: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    write: false,
    metafile: true,
    outdir: 'unwritten',
    logLevel: 'silent',
  });
  const imports = new Map(Object.entries(metafile.inputs).map(([file, input]) => [file, input.imports]));
  const readsEngine = new Map();
  const reads = (file) => {
    if (!readsEngine.has(file)) readsEngine.set(file, READS_ENGINE.test(readFileSync(path.join(root, file), 'utf8')));
    return readsEngine.get(file);
  };
  const depends = (file) => {
    const seen = new Set();
    const stack = [file];
    while (stack.length > 0) {
      const f = stack.pop();
      if (seen.has(f)) continue;
      seen.add(f);
      if (f === ENGINE_DATABASE || reads(f)) return true;
      for (const i of imports.get(f) ?? []) if (!i.external && imports.has(i.path)) stack.push(i.path);
    }
    return false;
  };
  return files.filter((f) => !PGLITE_ONLY.test(readFileSync(path.join(root, f), 'utf8')) && depends(toPosix(f)));
}

const toPosix = (f) => f.split(path.sep).join('/');
