// What one running instance owns beside its HTTP service, shared by `serve` and the CLI: the
// lock on a PGlite data directory, the control channel through which CLI commands reach the
// service that holds it, and what the first start of a development instance creates.
export {
  type CommandHandler,
  type CommandResult,
  type ControlServer,
  sendToService,
  socketPathFor,
  startControlServer,
} from './control-channel.ts';
export { DataDirBusyError, type DataDirLock, type LockHolder, tryLock } from './data-dir-lock.ts';
export { createDemoDataOnce, type DemoData, demoBanner, withSecretKey } from './first-start.ts';
