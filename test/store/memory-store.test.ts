// The store contract against the memory backend (its state Map plays the data directory).
import { createMemoryState, createMemoryStore } from '../../src/store/index.ts';
import { adminSessionsContract } from './admin-sessions-contract.ts';
import { channelLogContract } from './channel-log-contract.ts';
import { type StoreHarness, storeContract } from './contract.ts';
import { hookDeliveriesContract } from './hook-deliveries-contract.ts';
import { memoriesContract } from './memories-contract.ts';
import { webDisplayContract } from './web-display-contract.ts';
import { webSessionsContract } from './web-sessions-contract.ts';

const harness = async (): Promise<StoreHarness> => {
  const state = createMemoryState();
  return {
    open: (opts) => createMemoryStore({ ...opts, state }),
    listRaw: async () => [...state.keys()],
    readRaw: async (path) => state.get(path),
    writeRaw: async (path, text) => void state.set(path, text),
    cleanup: async () => state.clear(),
  };
};
storeContract('memory', harness);
memoriesContract('memory', harness);
hookDeliveriesContract('memory', harness);
webSessionsContract('memory', harness);
adminSessionsContract('memory', harness);
webDisplayContract('memory', harness);
channelLogContract('memory', harness);
