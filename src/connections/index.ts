export { type ConnectionLimits, type GateEvents, gateConnections } from './connection-gate.ts';
export { plainAddress, proxyPeers } from './proxy-peers.ts';
