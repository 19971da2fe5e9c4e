// What runs in the background of `serve`: the loop the scheduler and the queue's worker turn in.
export { type PollingLoop, type PollingLoopOptions, startPollingLoop } from './polling-loop.ts';
