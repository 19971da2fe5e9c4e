import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** nginx from PATH, or where Debian puts it (sbin is not on every user's PATH). */
export const NGINX = process.env.NGINX_BIN ?? (process.env.PATH?.includes('/usr/sbin') ? 'nginx' : '/usr/sbin/nginx');

const SAMPLE = fileURLToPath(new URL('../../docs/nginx.conf.example', import.meta.url));

/** A self-signed certificate for 127.0.0.1, made with openssl into `dir`. */
export function selfSignedCertificate(dir: string): { cert: string; key: string } {
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

export interface SiteValues {
  /** The instances' ports on 127.0.0.1, in the sample's order. */
  instances: [number, number];
  httpsPort: number;
  httpPort: number;
  cert: string;
  key: string;
}

/**
 * docs/nginx.conf.example with the sample's addresses and paths replaced by the test's, and
 * only loopback listeners. Each replaced text must be found once: if the sample changes, this
 * fails instead of testing something else.
 */
export function renderSite(v: SiteValues): string {
  let text = readFileSync(SAMPLE, 'utf8');
  const swap = (from: string, to: string) => {
    assert.equal(text.split(from).length, 2, `docs/nginx.conf.example should contain "${from}" once`);
    text = text.replace(from, to);
  };
  swap('server 127.0.0.1:8001 ', `server 127.0.0.1:${v.instances[0]} `);
  swap('server 127.0.0.1:8002 ', `server 127.0.0.1:${v.instances[1]} `);
  swap('listen 443 ssl;', `listen 127.0.0.1:${v.httpsPort} ssl;`);
  swap('listen 80;', `listen 127.0.0.1:${v.httpPort};`);
  swap('/etc/ssl/certs/pay.example.com.pem', v.cert);
  swap('/etc/ssl/private/pay.example.com.key', v.key);
  return text;
}

/** One line of the access log: when it ended, how long it took, what answered. */
export interface AccessEntry {
  end: number;
  seconds: number;
  status: number;
  upstream: string;
  method: string;
  uri: string;
}

export interface Nginx {
  stop(): Promise<void>;
  accessLog(): AccessEntry[];
}

/** nginx in the foreground, everything it writes under `dir`, serving the rendered site. */
export async function startNginx(dir: string, site: string, httpsPort: number, ca: string): Promise<Nginx> {
  mkdirSync(path.join(dir, 'temp'), { recursive: true });
  writeFileSync(path.join(dir, 'payreq.conf'), site);
  const conf = path.join(dir, 'nginx.conf');
  const accessLog = path.join(dir, 'access.log');
  writeFileSync(
    conf,
    `daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 512; }
http {
  log_format timing '$msec $request_time $status "$upstream_addr" $request_method $uri';
  access_log ${accessLog} timing;
  client_body_temp_path ${dir}/temp/body;
  proxy_temp_path ${dir}/temp/proxy;
  fastcgi_temp_path ${dir}/temp/fastcgi;
  uwsgi_temp_path ${dir}/temp/uwsgi;
  scgi_temp_path ${dir}/temp/scgi;
  include ${dir}/payreq.conf;
}
`,
  );
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-c', conf, '-e', path.join(dir, 'error.log')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  let gone = false;
  void exited.then(() => (gone = true));
  const client = httpsClient(`https://127.0.0.1:${httpsPort}`, ca);
  // Ready when it answers over TLS (a 502 is fine: the instances may not listen yet).
  for (const deadline = Date.now() + 20_000; ; ) {
    if (gone) throw new Error(`nginx exited: ${stderr}${readFileSync(path.join(dir, 'error.log'), 'utf8')}`);
    const ok = await client.call('GET', '/healthz').then(
      () => true,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`nginx did not answer on ${httpsPort}: ${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  client.close();
  return {
    async stop() {
      if (!gone) child.kill('SIGTERM');
      await exited;
    },
    accessLog: () =>
      readFileSync(accessLog, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const m = /^(\S+) (\S+) (\d+) "([^"]*)" (\S+) (\S+)$/.exec(line);
          assert.ok(m, `access log line: ${line}`);
          return {
            end: Number(m[1]),
            seconds: Number(m[2]),
            status: Number(m[3]),
            upstream: m[4] as string,
            method: m[5] as string,
            uri: m[6] as string,
          };
        }),
  };
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  ms: number;
}

/** HTTPS to nginx with kept-alive connections, trusting only the test's certificate. */
export function httpsClient(base: string, ca: string, maxSockets = 16) {
  const agent = new Agent({ keepAlive: true, maxSockets, ca: readFileSync(ca) });
  const origin = new URL(base);
  return {
    call(method: string, pathAndQuery: string, body?: string, headers: Record<string, string> = {}): Promise<Answer> {
      const t0 = performance.now();
      return new Promise((resolve, reject) => {
        const req = request(
          {
            agent,
            host: origin.hostname,
            port: origin.port,
            method,
            path: pathAndQuery,
            headers: { ...(body !== undefined ? { 'content-length': Buffer.byteLength(body) } : {}), ...headers },
            timeout: 30_000,
          },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (d) => (text += d));
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, ms: performance.now() - t0 }),
            );
            res.on('error', reject);
          },
        );
        req.on('timeout', () => req.destroy(new Error(`${method} ${pathAndQuery} timed out`)));
        req.on('error', reject);
        req.end(body);
      });
    },
    close: () => agent.destroy(),
  };
}
