// `payreq`: the process entry behind bin/payreq.js. Everything it does is in ./index.ts and
// ../server.ts; this file only wires argv, configuration and exit status.
import { loadConfig, loadDotEnv } from '../config/index.ts';
import { controlCommands } from './control-commands.ts';
import { errorLine, parseCommandLine, runCli } from './index.ts';
import { openStreamedFile, readInputFile } from './read-input-file.ts';

const MAX_STDIN_BYTES = 64 * 1024;

/** All of standard input (a password, a secret): small, and never echoed anywhere. */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > MAX_STDIN_BYTES) throw new Error(`standard input is over ${MAX_STDIN_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve) => (text === '' ? resolve() : stream.write(text, () => resolve())));
}

async function main(argv: readonly string[]): Promise<number> {
  // Usage and --help first: they need neither configuration nor a database.
  const parsed = parseCommandLine(argv);
  if (parsed.kind === 'help') {
    await write(process.stdout, parsed.text);
    return 0;
  }
  // Bad configuration stops with one clear line.
  loadDotEnv();
  const config = loadConfig();
  if (parsed.spec.needs === 'service') {
    // Loaded only here: the HTTP service's modules (Fastify, mail, Redis...) cost a short
    // command about a second of start-up for nothing.
    const { serve } = await import('../server.ts');
    await serve(config, controlCommands);
    return 0;
  }
  const { stdin, file, streamed } = parsed.spec;
  const path = file ? parsed.args.options[file] : undefined;
  const streamedPath = streamed
    ? parsed.args.positionals[(parsed.spec.positionals ?? []).indexOf(streamed)]
    : undefined;
  const args = {
    ...parsed.args,
    ...(stdin && parsed.args.options[stdin] === true ? { stdin: await readStdin() } : {}),
    ...(file && typeof path === 'string' ? { file: await readInputFile(file, path) } : {}),
    ...(streamed && streamedPath !== undefined ? await openStreamedFile(streamed, streamedPath) : {}),
  };
  const result = await runCli({ ...parsed, args }, argv, config, (chunk) => write(process.stdout, chunk));
  await write(process.stdout, result.stdout);
  await write(process.stderr, result.stderr);
  return result.exitCode;
}

let code: number;
try {
  code = await main(process.argv.slice(2));
} catch (err) {
  await write(process.stderr, errorLine(err));
  code = 1;
}
// Output is flushed; nothing left is worth waiting for (a Redis client, a pool's idle timer).
process.exit(code);
