// @ts-check
// The `core` component: the workspace file tools (read, glob, grep, ls, write, edit) and
// js_exec, sharing one JavaScript runtime. The host runs it under each tool's name (argv[0]);
// each keeps its own help, permission level and grant.
import { multiCall } from '../lib/cli.js';
import * as edit from './edit.js';
import * as glob from './glob.js';
import * as grep from './grep.js';
import * as jsExec from './js-exec.js';
import * as ls from './ls.js';
import * as read from './read.js';
import * as write from './write.js';

export const run = multiCall({ read, glob, grep, ls, write, edit, js_exec: jsExec });
