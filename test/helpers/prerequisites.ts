import { spawnSync } from 'node:child_process';
import { connect } from 'node:net';

// A test that needs something outside Node (a Redis server, nginx) is skipped, with the reason,
// where that thing is missing: `{ skip: await redisMissing(url) }`. CI installs and starts all
// of them (.ci/run), so there a skip line means its set-up is broken.

/** Why the Redis server at `url` cannot be used, or false when it answers PING. */
export async function redisMissing(url: string): Promise<string | false> {
  const { hostname, port } = new URL(url);
  const answered = await new Promise<boolean>((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || 6379) });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(2000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => {
      reply += d;
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
  return answered ? false : `no Redis server answers at ${url} (set TEST_REDIS_URL, or start one)`;
}

/** Why `command` cannot be run, or false when `command args` exits 0. */
export function commandMissing(command: string, args: readonly string[] = ['-v']): string | false {
  const r = spawnSync(command, args, { stdio: 'ignore' });
  return r.error || r.status !== 0 ? `${command} is not installed (Debian: apt-get install ${command})` : false;
}
