// @ts-check
// The `shell` component: `bash`, a just-bash interpreter over the workspace mount. It is its
// own component because just-bash triples the runtime's size; the file tools stay small.
import { multiCall } from '../lib/cli.js';
import * as bash from './bash.js';

export const run = multiCall({ bash });
