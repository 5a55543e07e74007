// @ts-check
// The `web` component: `web_fetch`, the only bundled tool that imports wasi:http (so no other
// tool's component carries a network import it does not declare). It imports no filesystem.
import { multiCall } from '../lib/cli.js';
import * as webFetch from './web-fetch.js';

export const run = multiCall({ web_fetch: webFetch });
