// @ts-check
// `bash`: a POSIX-style shell interpreted inside the component by just-bash, over the tool's
// workspace mount. No host process exists for it to spawn: every command (ls, grep, sed, awk,
// jq, ...) is JavaScript in this component, and files are reached only through wasi:filesystem.
import { getEnvironment } from 'wasi:cli/environment@0.2.12';
import { ToolError } from '../lib/cli.js';
import { WorkspaceFs } from './workspace-fs.js';

/** Most characters kept of stdout and of stderr (the start and the end are kept). */
const MAX_STREAM_CHARS = 60_000;

/** just-bash commands that need what a component lacks (WebAssembly, zlib). */
const UNAVAILABLE = new Set([
  'sqlite3',
  'gzip',
  'gunzip',
  'zcat',
  'python',
  'python3',
  'js-exec',
  'node',
  'curl',
  'wget',
]);

export const spec = {
  name: 'bash',
  version: '0.1.0',
  about: 'Run a shell script (bash syntax) in the workspace, inside the sandbox',
  long: `Runs --command with a bash-compatible interpreter: pipes, redirects (>, >>, 2>&1, <, here-docs),
&& and ||, variables, $(...), arithmetic, if/for/while/case, functions and globbing work. The
shell's '/' is the workspace and the start directory is --workdir (default '/'). Each call is
a fresh shell: variables and the directory do not carry over, files do.

Built-in commands: cat ls grep egrep fgrep rg sed awk head tail wc sort uniq cut tr paste
join comm find xargs tee mkdir rmdir rm cp mv touch ln pwd basename dirname readlink stat du
tree echo printf seq expr date sleep env test diff jq yq base64 md5sum sha1sum sha256sum od
strings file fold nl rev tac column split tar html-to-markdown, and bash/sh for scripts.
There are no other programs: nothing outside the workspace exists, no host process can be
started, there is no network, and symbolic or hard links cannot be created. Use read/grep/glob
for simple look-ups; use bash for pipelines, bulk file operations and text processing.

The result holds stdout, then stderr under "[stderr]", and the exit code when it is not 0
(also in the metadata as shellExitCode); a non-zero exit code makes the result an error.`,
  keywords: ['bash', 'shell', 'sh', 'command', 'terminal', 'script', 'run', 'exec', 'pipe', 'sed', 'awk', 'jq'],
  permission: 'Execute',
  options: [
    {
      long: 'command',
      short: 'c',
      value: 'COMMAND',
      required: true,
      help: 'The script to run, e.g. "grep -rn TODO src | head -20"',
    },
    {
      long: 'workdir',
      short: 'w',
      value: 'DIR',
      default: '/',
      help: 'Directory the script starts in, relative to the workspace root',
    },
  ],
};

/** Keeps the start and the end of a long stream. */
function cap(text) {
  if (text.length <= MAX_STREAM_CHARS) return { text, cut: 0 };
  const half = MAX_STREAM_CHARS / 2;
  const cut = text.length - MAX_STREAM_CHARS;
  return { text: `${text.slice(0, half)}\n[… ${cut} characters cut …]\n${text.slice(-half)}`, cut };
}

/** @param {{ command: string, workdir: string }} v */
export async function handler(v) {
  // Loaded on first use: evaluating just-bash's module graph at build time (Wizer) is not possible.
  const { Bash, defineCommand, getCommandNames } = await import('just-bash/browser');
  const workspace = new WorkspaceFs();
  const cwd = workspace.norm(v.workdir);
  const st = await workspace.stat(cwd).catch(() => undefined);
  if (!st?.isDirectory) throw new ToolError(`--workdir ${v.workdir} is not a directory of the workspace`);
  const commands = getCommandNames().filter((c) => !UNAVAILABLE.has(c));
  const bash = new Bash({
    fs: /** @type {any} */ (workspace),
    cwd,
    commands: /** @type {any} */ (commands),
    customCommands: [...UNAVAILABLE].map((name) =>
      defineCommand(name, async () => ({
        stdout: '',
        stderr:
          `bash: ${name}: command not found (the sandboxed shell runs only its built-in ` +
          `commands${name === 'node' || name === 'js-exec' ? '; use the js_exec tool for JavaScript' : ''})\n`,
        exitCode: 127,
      })),
    ),
    // The guest's environment is exactly what the grant gave (`tool run --env`); the shell's
    // variables start from it, over defaults a script expects to find.
    env: {
      HOME: '/',
      PATH: '/usr/bin:/bin',
      USER: 'user',
      LANG: 'C.UTF-8',
      TMPDIR: '/tmp',
      ...Object.fromEntries(getEnvironment()),
    },
  });
  let r;
  try {
    r = await bash.exec(v.command);
  } catch (e) {
    // just-bash lets some file system failures escape the script (e.g. a redirect into a
    // read-only workspace); report them like a shell would, as the script's last error.
    const message = e instanceof Error ? e.message : String(e);
    r = {
      stdout: '',
      stderr: `bash: ${message}\n(the script stopped here; its earlier output is lost)\n`,
      exitCode: 1,
    };
  }
  const out = cap(String(r.stdout ?? ''));
  const err = cap(String(r.stderr ?? ''));
  const parts = [];
  if (out.text) parts.push(out.text.replace(/\n$/, ''));
  if (err.text) parts.push(`[stderr]\n${err.text.replace(/\n$/, '')}`);
  if (r.exitCode !== 0) parts.push(`[exit code ${r.exitCode}]`);
  const content = parts.length ? parts.join('\n') : '(no output)';
  const metadata = {
    shellExitCode: r.exitCode,
    stdoutChars: String(r.stdout ?? '').length,
    stderrChars: String(r.stderr ?? '').length,
    ...(out.cut || err.cut ? { cutChars: out.cut + err.cut } : {}),
  };
  if (r.exitCode !== 0) throw new ToolError(content, metadata);
  return { content, metadata };
}
