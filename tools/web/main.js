// @ts-check
// The `web` component: `web_fetch` and `web_search`, the only bundled tools that import wasi:http
// (so no other tool's component carries a network import it does not declare).
import { multiCall } from '../lib/cli.js';
import * as webFetch from './web-fetch.js';
import * as webSearch from './web-search.js';

export const run = multiCall({ web_fetch: webFetch, web_search: webSearch });
