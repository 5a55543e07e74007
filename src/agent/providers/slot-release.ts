// A provider whose streams give up the run's slot while they last: waiting on a model is waiting on the network,
// not work, so a stalled provider must not hold a slot that a new chat needs. The run takes a slot again before
// the stream's end reaches it, so what follows (tool calls) runs with one.
import type { Provider, StreamPart } from '../types.ts';

/** The run's hold on a slot of the caller's (the gateway's `gateway.concurrency`), lent to the run's waits. */
export interface RunSlot {
  /** Gives the slot up for one wait. */
  leave(): void;
  /** Ends that wait: resolves once the run holds a slot again. */
  back(): Promise<void>;
}

/** Wraps `provider` so each stream leaves `slot` when it starts and is back before it ends (however it ends). */
export function withSlotReleased(provider: Provider, slot: RunSlot): Provider {
  return {
    name: provider.name,
    async *stream(request, signal): AsyncGenerator<StreamPart> {
      slot.leave();
      try {
        yield* provider.stream(request, signal);
      } finally {
        await slot.back();
      }
    },
  };
}
