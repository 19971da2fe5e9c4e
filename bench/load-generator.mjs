// The load generator, in its own process so that it never shares an event loop with the server
// it measures. Reads one JSON plan from argv[2], drives autocannon, prints one JSON result.
//
// Plan: { url, connections, duration, overallRate?, method, paths: string[], headers: object[],
//         body?: string, unique?: boolean }
// Requests take paths[i % n] and headers[i % m]. With `unique`, every `__N__` in the path and
// the body becomes a value no other request of the run has, and the request carries its own
// Idempotency-Key: what a PMS sends.
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';

const plan = JSON.parse(process.argv[2]);
const run = randomBytes(4).toString('hex');
let n = 0;

function setupRequest(request) {
  n += 1;
  const tag = `${run}-${n}`;
  const path = plan.paths[n % plan.paths.length];
  const headers = { ...plan.headers[n % plan.headers.length] };
  if (plan.unique) headers['idempotency-key'] = `bench-${tag}`;
  if (plan.forwardedFor) headers['x-forwarded-for'] = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
  request.method = plan.method;
  request.path = plan.unique ? path.replaceAll('__N__', tag) : path;
  request.headers = headers;
  if (plan.body !== undefined) request.body = plan.unique ? plan.body.replaceAll('__N__', tag) : plan.body;
  return request;
}

const result = await autocannon({
  url: plan.url,
  connections: plan.connections,
  duration: plan.duration,
  ...(plan.overallRate ? { overallRate: plan.overallRate } : {}),
  requests: [{ setupRequest }],
});

let statusCodes = {};
if (result.statusCodeStats)
  statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([k, v]) => [k, v.count]));

process.stdout.write(
  `${JSON.stringify({
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    seconds: result.duration,
    rps: result['2xx'] / result.duration,
    latency: { mean: result.latency.mean, p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
    statusCodes,
  })}\n`,
);
