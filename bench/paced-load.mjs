// The steady-rate load generator, in its own process. autocannon's --overallRate sends each
// second's quota as a burst and then waits, so its "70% of peak" is full load 70% of the time.
// This one sends at evenly spaced instants (open loop) over a keep-alive pool, and times each
// request from the instant it was due: a request held back by a slow answer counts that wait
// (no coordinated omission). Same plan and result shape as load-generator.mjs.
import { randomBytes } from 'node:crypto';
import net from 'node:net';

const plan = JSON.parse(process.argv[2]);
const run = randomBytes(4).toString('hex');
const url = new URL(plan.url);
const latencies = [];
const statusCodes = {};
let ok = 0;
let non2xx = 0;
let errors = 0;
let n = 0;

// Node's http client costs several times what the server spends per request on this small
// machine; raw keep-alive sockets and a minimal response reader leave the cores to the server.
function requestBytes() {
  n += 1;
  const tag = `${run}-${n}`;
  const path = plan.paths[n % plan.paths.length];
  const headers = { ...plan.headers[n % plan.headers.length] };
  if (plan.unique) headers['idempotency-key'] = `bench-${tag}`;
  const body = plan.body === undefined ? '' : plan.unique ? plan.body.replaceAll('__N__', tag) : plan.body;
  const lines = [`${plan.method} ${plan.unique ? path.replaceAll('__N__', tag) : path} HTTP/1.1`, `host: ${url.host}`];
  for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
  lines.push(`content-length: ${Buffer.byteLength(body)}`, '', body);
  return lines.join('\r\n');
}

/** One keep-alive connection, one request at a time. */
function connection() {
  const socket = net.connect({ host: url.hostname, port: Number(url.port) });
  socket.setNoDelay(true);
  let buf = Buffer.alloc(0);
  let current;
  const c = {
    busy: false,
    send(job) {
      c.busy = true;
      current = job;
      socket.write(job.bytes);
    },
  };
  socket.on('data', (chunk) => {
    buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
    const head = buf.indexOf('\r\n\r\n');
    if (head < 0) return;
    const text = buf.subarray(0, head).toString('latin1');
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text)?.[1] ?? 0);
    if (buf.length < head + 4 + length) return;
    buf = buf.subarray(head + 4 + length);
    const status = Number(text.slice(9, 12));
    latencies.push(performance.now() - current.dueAt);
    statusCodes[status] = (statusCodes[status] ?? 0) + 1;
    if (status >= 200 && status < 300) ok += 1;
    else non2xx += 1;
    c.busy = false;
    current.done();
    next(c);
  });
  socket.on('error', () => {
    errors += 1;
    if (current) current.done();
  });
  return c;
}

const pool = Array.from({ length: plan.connections }, connection);
const waiting = [];
function next(c) {
  const job = waiting.shift();
  if (job) c.send(job);
}
function send(dueAt) {
  return new Promise((done) => {
    const job = { dueAt, bytes: requestBytes(), done };
    const idle = pool.find((c) => !c.busy);
    if (idle) idle.send(job);
    else waiting.push(job);
  });
}

const interval = 1000 / plan.overallRate;
const start = performance.now();
const end = start + plan.duration * 1000;
const inFlight = new Set();
let sent = 0;
await new Promise((resolve) => {
  const timer = setInterval(() => {
    const now = performance.now();
    if (now >= end) {
      clearInterval(timer);
      resolve();
      return;
    }
    // Every request whose instant has come, each timed from its own instant.
    while (start + sent * interval <= now) {
      const p = send(start + sent * interval);
      inFlight.add(p);
      p.then(() => inFlight.delete(p));
      sent += 1;
    }
  }, 1);
});
await Promise.all(inFlight);
const seconds = (performance.now() - start) / 1000;

latencies.sort((a, b) => a - b);
const at = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
const round = (v) => Math.round(v * 100) / 100;
process.stdout.write(
  `${JSON.stringify({
    ok,
    non2xx,
    errors,
    timeouts: 0,
    seconds,
    rps: ok / seconds,
    latency: {
      mean: round(latencies.reduce((a, b) => a + b, 0) / Math.max(1, latencies.length)),
      p50: round(at(50)),
      p99: round(at(99)),
      max: round(at(100)),
    },
    statusCodes,
  })}\n`,
  // The keep-alive sockets would hold the process open.
  () => process.exit(0),
);
