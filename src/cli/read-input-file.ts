import { createReadStream } from 'node:fs';
import { open, readFile, stat } from 'node:fs/promises';
import { CliError } from './cli-error.ts';

/**
 * The most a command reads from a named file. The file travels to a running service inside
 * one control-channel request (1 MB, base64 adds a third), and no command needs more: a
 * logo, the only such file, may be 200 kB, so the command can still say by how much one is over.
 */
export const MAX_INPUT_FILE_BYTES = 512 * 1024;

const REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'it is a directory',
};

/** Reads the file an option names, in this process, or says in one line why it cannot. */
export async function readInputFile(option: string, path: string): Promise<Buffer> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw Object.assign(new Error('directory'), { code: 'EISDIR' });
    if (info.size > MAX_INPUT_FILE_BYTES) {
      throw new CliError(
        `--${option} ${path}: the file is ${Math.ceil(info.size / 1024)} kB, more than the ${MAX_INPUT_FILE_BYTES / 1024} kB a command reads`,
      );
    }
    return await readFile(path);
  } catch (err) {
    if (err instanceof CliError) throw err;
    const code = (err as NodeJS.ErrnoException).code ?? '';
    throw new CliError(`cannot read --${option} ${path}: ${REASONS[code] ?? (err as Error).message}`);
  }
}

/**
 * A file a command reads as a stream (`streamed`), checked here, in this process, so that one
 * that cannot be read says why in one line before anything runs: its bytes when it is small
 * enough to travel to a running service, and always a way to open it again as a stream.
 */
export async function openStreamedFile(
  name: string,
  path: string,
): Promise<{ file?: Buffer; stream: () => AsyncIterable<Uint8Array> }> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw Object.assign(new Error('directory'), { code: 'EISDIR' });
    // Readable now, or the reason why (permission denied), not halfway through the command.
    await (await open(path, 'r')).close();
    const stream = () => createReadStream(path, { highWaterMark: 64 * 1024 });
    return info.size <= MAX_INPUT_FILE_BYTES ? { file: await readFile(path), stream } : { stream };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? '';
    throw new CliError(`cannot read ${name} ${path}: ${REASONS[code] ?? (err as Error).message}`);
  }
}
