// A replica for the crash test: joins the election on the database at argv[2] with the default
// lease timing and prints `lead <fence>` / `follow` as its role changes.

import { silentLogger } from '../../src/core/log.ts';
import { createLeadership } from '../../src/gateway/leadership.ts';
import { openPostgresStore } from '../../src/store/postgres/index.ts';

const store = await openPostgresStore(process.argv[2] as string);
const leadership = createLeadership({
  leases: store.leases!,
  holder: `child-${process.pid}`,
  onLead: async (fence) => void process.stdout.write(`lead ${fence}\n`),
  onFollow: async () => void process.stdout.write('follow\n'),
  log: silentLogger,
});
await leadership.start();
process.stdout.write('ready\n');
setInterval(() => {}, 1 << 30); // lives until killed
