import { createHash } from 'node:crypto';
import { chmodSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** What a command invocation printed and how it ended: the same whichever process ran it. */
export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * The local channel through which a CLI command reaches the service that holds a PGlite data
 * directory: HTTP over a Unix socket in the directory, usable by its owner only.
 * The CLI sends its argv; the service runs the very same command and returns what it printed.
 */
export const SOCKET_FILE = 'payreq.sock';
/** Where the socket went when the directory's own path is too long for one. */
export const SOCKET_RECORD_FILE = 'payreq.sock.path';
// sun_path holds 108 bytes on Linux, 104 on macOS, both with the final NUL.
const MAX_SOCKET_PATH = 103;
const MAX_REQUEST_BYTES = 1024 * 1024;

/** The socket the service on `dir` would listen on, chosen the same way by both sides. */
export function preferredSocketPath(dir: string): string {
  const inDir = path.join(dir, SOCKET_FILE);
  if (Buffer.byteLength(inDir) <= MAX_SOCKET_PATH) return inDir;
  const hash = createHash('sha256').update(dir).digest('hex').slice(0, 16);
  return path.join(tmpdir(), `payreq-${hash}.sock`);
}

/** The socket a client should try: the one recorded in `dir` when it is elsewhere. */
export function socketPathFor(dir: string): string {
  const inDir = path.join(dir, SOCKET_FILE);
  if (Buffer.byteLength(inDir) <= MAX_SOCKET_PATH) return inDir;
  try {
    // The service's TMPDIR may differ from ours: trust what it wrote down.
    return readFileSync(path.join(dir, SOCKET_RECORD_FILE), 'utf8').trim();
  } catch {
    return preferredSocketPath(dir);
  }
}

function isResult(v: unknown): v is CommandResult {
  const r = v as CommandResult;
  return (
    typeof v === 'object' &&
    v !== null &&
    Number.isInteger(r.exitCode) &&
    typeof r.stdout === 'string' &&
    typeof r.stderr === 'string'
  );
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {}
}

export interface ControlServer {
  readonly socketPath: string;
  close(): Promise<void>;
}

export type CommandHandler = (argv: readonly string[], stdin?: string, file?: Buffer) => Promise<CommandResult>;

/**
 * Listens on the directory's control socket. The caller must hold the directory's lock: a
 * socket file already there is then a leftover of a process that died, and is replaced.
 */
export async function startControlServer(dir: string, handle: CommandHandler): Promise<ControlServer> {
  const socketPath = preferredSocketPath(dir);
  const record = path.join(dir, SOCKET_RECORD_FILE);
  unlinkQuietly(socketPath);
  if (socketPath !== path.join(dir, SOCKET_FILE)) writeFileSync(record, `${socketPath}\n`, { mode: 0o600 });

  const server = http.createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
      res.end(JSON.stringify(body));
    };
    if (req.method !== 'POST' || req.url !== '/run') return reply(404, { error: 'Not found' });
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_REQUEST_BYTES) req.destroy();
      else chunks.push(c);
    });
    req.on('end', () => {
      let argv: unknown;
      let stdin: unknown;
      let file: unknown;
      try {
        ({ argv, stdin, file } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          argv?: unknown;
          stdin?: unknown;
          file?: unknown;
        });
      } catch {}
      if (
        !Array.isArray(argv) ||
        !argv.every((a) => typeof a === 'string') ||
        (stdin !== undefined && typeof stdin !== 'string') ||
        (file !== undefined && typeof file !== 'string')
      ) {
        return reply(400, { error: 'expected {"argv": [string, ...], "stdin"?: string, "file"?: base64 string}' });
      }
      handle(argv, stdin, file === undefined ? undefined : Buffer.from(file, 'base64')).then(
        (result) => reply(200, result),
        (err: unknown) => reply(200, { exitCode: 1, stdout: '', stderr: `error: ${(err as Error).message}\n` }),
      );
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // Created under the umask (others cannot write, hence cannot connect), then owner only.
  chmodSync(socketPath, 0o600);

  return {
    socketPath,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      unlinkQuietly(socketPath);
      unlinkQuietly(record);
    },
  };
}

/**
 * Sends argv (and the standard input a command read, a secret for --password-stdin) to the
 * service listening on `socketPath`. Returns undefined when nobody
 * answers there (no socket, or a leftover one): the caller then opens the directory itself.
 * Once the command has been sent, a failure is an error, never a silent second run.
 */
export function sendToService(
  socketPath: string,
  argv: readonly string[],
  stdin?: string,
  file?: Buffer,
): Promise<CommandResult | undefined> {
  const body = JSON.stringify({ argv, stdin, file: file?.toString('base64') });
  return new Promise((resolve, reject) => {
    let connected = false;
    const req = http.request(
      {
        socketPath,
        method: 'POST',
        path: '/run',
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          } catch {}
          if (res.statusCode === 200 && isResult(parsed)) resolve(parsed);
          else reject(new Error(`the running service answered its control channel with status ${res.statusCode}`));
        });
      },
    );
    req.on('socket', (s) => s.once('connect', () => (connected = true)));
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (!connected && ['ENOENT', 'ECONNREFUSED', 'ENOTSOCK'].includes(err.code ?? '')) resolve(undefined);
      else reject(new Error(`the running service did not answer the command (${err.message})`));
    });
    req.end(body);
  });
}
