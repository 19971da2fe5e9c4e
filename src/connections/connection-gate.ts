import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server, Socket } from 'node:net';
import { plainAddress } from './proxy-peers.ts';

export interface ConnectionLimits {
  /** Open connections the instance holds at most. */
  maxConnections: number;
  /** Open connections one client address holds at most (proxies excepted). */
  maxPerAddress: number;
  /** A trusted proxy's connections carry many clients: only the instance's cap applies to them. */
  isProxy: (address: string) => boolean;
}

/** Why a connection was closed: refused at accept, or an idle one closed to make room. */
export interface GateEvents {
  refused(cap: 'instance' | 'address'): void;
  evicted(cap: 'instance' | 'address'): void;
}

/** One address's open connections, and which of them are idle, oldest idle first. */
interface AddressBook {
  count: number;
  idle: Set<Socket>;
}

interface Tracked {
  book: AddressBook | undefined;
  /** Requests read and not yet answered: 0 is idle (between requests, or before the first). */
  inFlight: number;
  /** When it last became idle (accepted, or its last response sent). */
  idleSince: number;
}

/**
 * How long a connection must have been idle before its own address's new connection may close
 * it: a new connection gets a moment to send its first request (a client reopening sockets in
 * a loop cannot close the one its neighbour just opened), and a crowd from one address has its
 * new sockets refused at accept, which costs the instance nothing, instead of served.
 */
export const ADDRESS_IDLE_GRACE_MS = 1000;

/**
 * Fair connections. Each accepted connection is counted for the instance and for its peer
 * address; a connection with no request in flight is idle. When a cap is reached, the
 * connection idle longest (of that address, or of the whole instance) is closed to admit the
 * new one; the new one is refused only when none is idle (under the address's cap: none idle
 * for ADDRESS_IDLE_GRACE_MS). So one client holds at most `maxPerAddress` connections, a crowd
 * of idle sockets never locks another client out, and a probe gets in whenever anything is idle.
 *
 * Cost at accept: two map lookups and set insertions (no scan); eviction takes the first entry
 * of an insertion-ordered set.
 *
 * `closeIdle`, as the instance stops: closes every connection with no request in flight. Node's
 * own close does that only for connections that have sent a request: one that connected and
 * never sent a byte (a peer gone without a FIN, a probe that hangs) would hold the close, and
 * the stop, for ever, since Node stops checking its headers' timeout once the server closes.
 */
export function gateConnections(
  server: Server,
  connectionEvent: 'connection' | 'secureConnection',
  limits: ConnectionLimits,
  events: GateEvents,
): { open(): number; closeIdle(): void } {
  const tracked = new Map<Socket, Tracked>();
  /** Every idle connection, oldest idle first (a Set keeps insertion order). */
  const idle = new Set<Socket>();
  const books = new Map<string, AddressBook>();

  const markIdle = (socket: Socket, t: Tracked) => {
    t.idleSince = Date.now();
    idle.add(socket);
    t.book?.idle.add(socket);
  };
  const markBusy = (socket: Socket, t: Tracked) => {
    idle.delete(socket);
    t.book?.idle.delete(socket);
  };
  const forget = (socket: Socket, address: string) => {
    const t = tracked.get(socket);
    if (!t) return;
    tracked.delete(socket);
    markBusy(socket, t);
    if (t.book && --t.book.count === 0) books.delete(address);
  };
  /** Closes the connection of `pool` idle longest, if idle for `minIdleMs`; false when none is. */
  const evictFrom = (pool: Set<Socket>, cap: 'instance' | 'address', minIdleMs = 0): boolean => {
    const victim = pool.values().next().value;
    if (victim === undefined) return false;
    const since = tracked.get(victim)?.idleSince ?? 0;
    if (minIdleMs > 0 && Date.now() - since < minIdleMs) return false;
    forget(victim, plainAddress(victim.remoteAddress ?? ''));
    victim.destroy();
    events.evicted(cap);
    return true;
  };

  server.on(connectionEvent, (socket: Socket) => {
    const address = plainAddress(socket.remoteAddress ?? '');
    let book: AddressBook | undefined;
    if (!limits.isProxy(address)) {
      book = books.get(address);
      if (book && book.count >= limits.maxPerAddress && !evictFrom(book.idle, 'address', ADDRESS_IDLE_GRACE_MS)) {
        socket.destroy();
        events.refused('address');
        return;
      }
    }
    if (tracked.size >= limits.maxConnections && !evictFrom(idle, 'instance')) {
      socket.destroy();
      events.refused('instance');
      return;
    }
    if (!limits.isProxy(address)) {
      // Looked up again: the eviction above may have emptied and removed this address's book.
      book = books.get(address) ?? { count: 0, idle: new Set() };
      books.set(address, book);
      book.count++;
    }
    const t: Tracked = { book, inFlight: 0, idleSince: 0 };
    tracked.set(socket, t);
    markIdle(socket, t);
    socket.once('close', () => forget(socket, address));
  });

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const socket = request.socket;
    const t = tracked.get(socket);
    if (!t) return;
    if (t.inFlight++ === 0) markBusy(socket, t);
    response.once('close', () => {
      // Idle again once the last request in flight is answered; moved to the end (newest idle).
      if (--t.inFlight === 0 && tracked.get(socket) === t) markIdle(socket, t);
    });
  });

  return {
    open: () => tracked.size,
    closeIdle: () => {
      for (const socket of [...idle]) socket.destroy();
    },
  };
}
