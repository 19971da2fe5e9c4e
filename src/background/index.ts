// What runs in the background of `serve`: the loop every worker turns in.
export { type PollingLoop, type PollingLoopOptions, startPollingLoop } from './polling-loop.js';
