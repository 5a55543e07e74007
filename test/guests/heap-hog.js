// @imports wasi:clocks/monotonic-clock@0.2.12
// Keeps every pollable it asks the host for: each is a host object in the worker's JS heap,
// so the worker's heap fills in small steps (the host must end only this call).
import { subscribeDuration } from 'wasi:clocks/monotonic-clock@0.2.12';

const kept = [];
export const run = {
  run() {
    for (;;) kept.push(subscribeDuration(1000000000n));
  },
};
