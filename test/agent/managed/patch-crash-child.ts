// A process that applies an executor's patch (the workspace against the copy beside it) and is killed at a given
// moment: `commit` just before the journal's commit point, or after step N of the plan. `wait` hangs before the
// commit point instead (a writer still alive). Usage: patch-crash-child.ts <workspace> <copy> <commit|wait|N>
import { applyPatch, diffFolder, snapshot } from '../../../src/agent/managed/patch.ts';

const [workspace, copy, when] = process.argv.slice(2) as [string, string, string];
const die = () => process.kill(process.pid, 'SIGKILL');
const patch = await diffFolder(await snapshot(workspace), copy, { id: 'patch-1', executor: 'writer' });
await applyPatch(patch, workspace, {
  beforeCommit: async () => {
    if (when === 'commit') die();
    if (when === 'wait') {
      // A timer keeps the process alive: a bare unsettled promise would let Node exit (code 13) at once, and the
      // test would race the exit.
      setInterval(() => {}, 60_000);
      process.stdout.write('staged\n');
      await new Promise(() => {});
    }
  },
  afterStep: (i) => {
    if (String(i) === when) die();
  },
});
process.stdout.write('applied\n');
