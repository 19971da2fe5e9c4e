/**
 * A crowd of idle keep-alive sockets from one address, run as a child process (its own file
 * descriptor budget): `node idle-crowd.ts <port> <local address> <sockets>`. Each socket
 * connects, sends one keep-alive request and stays idle; whenever the service closes one (or
 * refuses it) it is opened again at once, until stdin closes. It prints `ramped` once every
 * socket has been opened at least once, then, at the end, one JSON line of counts.
 */
import { connect } from 'node:net';

const [portText, localAddress, socketsText] = process.argv.slice(2);
const port = Number(portText);
const target = Number(socketsText);
const request = 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n';

const counts = { opened: 0, connected: 0, closedByService: 0, failed: 0, answered: 0, mostOpenAtOnce: 0 };
let open = 0;
let stopping = false;
let ramped = false;

function openOne(): void {
  if (stopping) return;
  counts.opened++;
  const socket = connect({ port, host: '127.0.0.1', ...(localAddress ? { localAddress } : {}) });
  let connected = false;
  socket.on('connect', () => {
    connected = true;
    counts.connected++;
    open++;
    counts.mostOpenAtOnce = Math.max(counts.mostOpenAtOnce, open);
    socket.write(request);
  });
  socket.on('data', () => {
    counts.answered++;
  });
  socket.on('error', () => {
    if (!connected) counts.failed++;
  });
  socket.on('close', () => {
    if (connected) {
      open--;
      counts.closedByService++;
    }
    // Reopened as soon as it closes; a failed connect (a full backlog) waits a moment.
    if (connected) setImmediate(openOne);
    else setTimeout(openOne, 10);
  });
}

for (let i = 0; i < target; i++) openOne();
const rampCheck = setInterval(() => {
  if (!ramped && counts.connected >= target) {
    ramped = true;
    process.stdout.write('ramped\n');
    clearInterval(rampCheck);
  }
}, 50);

process.stdin.resume();
process.stdin.on('end', () => {
  stopping = true;
  process.stdout.write(`${JSON.stringify({ ...counts, openAtEnd: open })}\n`);
  process.exit(0);
});
