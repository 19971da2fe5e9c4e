// Runs an older checkout's TypeScript benchmark driver on this tree's node_modules, which no
// longer hold tsx (the older code's runner), with no install:
//   node --import /abs/bench/reference-loader.ts bench/daily-job-main.ts ...
// That code imports its sibling modules as `./x.js` while the files are `./x.ts`, and leans on
// what tsx allowed (parameter properties, type imports without `import type`): Node's own type
// stripping takes neither. As tsx did, each .ts module is compiled by esbuild as it is loaded.
// Only the driver goes through here: the job it times runs the older checkout's own build (dist/).
import { readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';

const TARGET = `node${process.versions.node.split('.')[0]}`;

function isMissing(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'ERR_MODULE_NOT_FOUND';
}

registerHooks({
  resolve(specifier, context, nextResolve) {
    try {
      return nextResolve(specifier, context);
    } catch (error) {
      // A relative `./x.js` that is not there: the `./x.ts` beside it, as TypeScript's NodeNext resolves it.
      const relative = specifier.startsWith('./') || specifier.startsWith('../');
      if (relative && specifier.endsWith('.js') && isMissing(error)) {
        return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
      }
      throw error;
    }
  },
  load(url, context, nextLoad) {
    if (!url.startsWith('file:') || !url.endsWith('.ts')) return nextLoad(url, context);
    const file = fileURLToPath(url);
    const { code } = transformSync(readFileSync(file, 'utf8'), {
      loader: 'ts',
      format: 'esm',
      target: TARGET,
      sourcefile: file,
      sourcemap: 'inline',
      // What tsx did with the older tsconfig: imports used only as types are dropped.
      tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: false } },
    });
    return { format: 'module', source: code, shortCircuit: true };
  },
});
