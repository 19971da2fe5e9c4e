#!/usr/bin/env -S node --max-semi-space-size=16
// The `payreq` executable. V8's young generation is capped at 16 MB a semi-space, Node's size
// before it scaled them to the host's memory: on a 24 GiB host it otherwise grows to 128 MB, and
// the daily job, whose live heap stays between 16 and 25 MB, peaks at 230 MB resident instead of
// 150, no faster. `npm start` passes the same flag; any other way of starting payreq should too.
//
// It runs the TypeScript sources as they are: Node (24 and later) strips their types as it
// loads them, so there is no build and no loader to keep in step with the sources. Node's
// compile cache keeps each module's stripped and compiled code, keyed by its content, in the
// system's temporary directory (NODE_COMPILE_CACHE to choose another): a command then starts
// without stripping anything again or loading the stripper (`payreq --help`: 0.45 -> 0.21 s of
// CPU and 114 -> 89 MB resident, as the compiled dist/ used to).
//
// Everything below the version check is loaded by import(), not by a static import: Node links a
// module's static imports before it runs a line of it, so on an older Node (20 has no
// enableCompileCache, and cannot load .ts files) the user would get a raw SyntaxError instead of
// the sentence below. This file must therefore stay plain JavaScript that Node 20 parses.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(
    `payreq needs Node 24 (found ${major}); run it through npm, which uses the pinned one (npx payreq, npm start)\n`,
  );
  process.exit(1);
}
const { enableCompileCache } = await import('node:module');
enableCompileCache();
await import('../src/cli/main.ts');
