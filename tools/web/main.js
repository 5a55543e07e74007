// @ts-check
// The `web` component: `web_fetch`, `web_search` and `skill_js` (a skill's JavaScript with files and
// fetch), the only bundled tools that import wasi:http (so no other tool's component carries a
// network import it does not declare). tool.json links only web_fetch and web_search: skill_js is
// run by skill_run alone, under the argv[0] name `skill_js`, never offered to the model.
import { multiCall } from '../lib/cli.js';
import * as skillJs from './skill-js.js';
import * as webFetch from './web-fetch.js';
import * as webSearch from './web-search.js';

export const run = multiCall({ web_fetch: webFetch, web_search: webSearch, skill_js: skillJs });
