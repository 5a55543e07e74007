// The built-in `skill_run` tool: runs one of a skill's scripts inside the sandbox, never on the
// host. JavaScript goes to the bundled skill_js runtime (js_exec's engine with file helpers and
// fetch over wasi:http, in the `web` component), shell scripts to the bundled bash; the skill's
// files are checked against the approved hash, copied to a fresh folder and mounted read-only at
// /skill, the conversation's workspace at / as its policy grants, the policy's network (whatever
// the skill claims; the sandbox host checks every request), and no host variable at all. Python
// has no WASI runtime here (docs/skills.md says what was checked), so Python scripts are refused.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { errorMessage } from '../../core/errors.ts';
import type { Sandbox } from '../../sandbox/index.ts';
import type { BuiltinTool } from '../tools/builtin.ts';
import type { ToolPolicy } from '../tools/grants.ts';
import { invokeTool, type ToolCallGrant } from '../tools/invoke.ts';
import { type ToolResult, toolResultOf } from '../tools/output.ts';
import type { RegisteredTool } from '../tools/registry.ts';
import { readSkillFolder, type SkillFile } from './folder.ts';
import type { SkillCatalog } from './load.ts';
import type { Skill } from './skill.ts';

/** Why a Python script does not run (README, docs/skills.md). */
export const PYTHON_REFUSED =
  'Python scripts are refused: boxbot has no Python runtime the sandbox can run (no WASI command build of ' +
  "CPython is in Debian; npm's python-wasm and @cowasm/cpython need their own host-side kernel and linker), " +
  'and skill scripts never run on the host. Do the step another way (a JavaScript or shell script) or without it.';

/** Scripts the sandbox has no runtime for, each with why (what `boxbot skill add` says). */
export function unrunnableScripts(paths: string[]): string[] {
  return paths
    .filter((p) => p.startsWith('scripts/') && p.endsWith('.py'))
    .map((p) => `${p}: refused when run (boxbot has no Python runtime the sandbox can run)`);
}

/**
 * The bundled runtime of each kind of script: the registered tool whose component carries it, and the
 * program name the component answers to. skill_js is never registered itself (the model is not offered
 * it), so it runs from web_fetch's component, the one bundled component that imports wasi:http.
 */
const RUNTIMES = {
  js: { carrier: 'web_fetch', program: 'skill_js' },
  bash: { carrier: 'bash', program: 'bash' },
} as const;

/** Which bundled runtime runs a script, by its extension. */
function runtimeOf(script: string): keyof typeof RUNTIMES | { refused: string } {
  if (/\.(m?js|cjs)$/.test(script)) return 'js';
  if (/\.(sh|bash)$/.test(script)) return 'bash';
  if (/\.py$/.test(script)) return { refused: PYTHON_REFUSED };
  return { refused: `${script} is not a script skill_run can run (JavaScript .js/.mjs or shell .sh/.bash)` };
}

/** Runs a JavaScript file with skill_js; the guest reads it from the read-only /skill mount. */
async function runJs(
  sandbox: Sandbox,
  blob: string,
  path: string,
  args: string[],
  grant: ToolCallGrant,
  signal?: AbortSignal,
): Promise<ToolResult> {
  try {
    const r = await sandbox.run(
      blob,
      {
        args: ['--script', path, '--', ...args],
        env: {},
        mounts: grant.mounts,
        network: grant.network,
        limits: grant.limits,
      },
      { name: RUNTIMES.js.program, ...(signal ? { signal } : {}) },
    );
    return toolResultOf(r);
  } catch (e) {
    return { content: `${path} could not run: ${errorMessage(e)}`, isError: true, metadata: {} };
  }
}

/** One shell word, quoted. */
const shellWord = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** A skill's untrusted-content label: an installed skill came from outside, a bundled one did not. */
export function skillTaint(skill: Skill): string | undefined {
  return skill.installed ? `skill ${skill.name} (installed from ${skill.installed.source})` : undefined;
}

/** Options of createSkillRunTool. */
export interface SkillRunOptions {
  catalog: Pick<SkillCatalog, 'list' | 'get'>;
  registry: { get(name: string): RegisteredTool | undefined };
  sandbox: Sandbox;
  policy: Pick<ToolPolicy, 'workspace' | 'network' | 'limits' | 'access'>;
}

/** The skill's files as approved, or why not (changed since approval, unreadable). */
function approvedFiles(skill: Skill): SkillFile[] | string {
  if (!skill.dir) return `skill ${skill.name} has no folder`;
  let content: ReturnType<typeof readSkillFolder>;
  try {
    content = readSkillFolder(skill.dir);
  } catch (e) {
    return `skill ${skill.name} cannot be read: ${errorMessage(e)}`;
  }
  if (skill.installed && content.sha256 !== skill.installed.sha256)
    return `skill ${skill.name} changed since it was approved; it runs again after boxbot skill approve ${skill.name}`;
  return content.files;
}

/** Creates `skill_run` (level Execute: it runs code the skill brought, so approvals for Execute apply). */
export function createSkillRunTool(o: SkillRunOptions): BuiltinTool {
  return {
    name: 'skill_run',
    description:
      "Run one of a skill's scripts (listed when the skill is loaded) inside the sandbox. The skill's folder is " +
      "read-only at /skill and the conversation's workspace is at /. JavaScript runs like js_exec with the " +
      'arguments in the global `args`, plus readFile, writeFile, listDir, exists and fetch (only hosts the ' +
      'conversation allows); shell scripts run in the sandboxed bash (arguments as $1, $2, ...).',
    inputSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', description: 'The skill' },
        script: { type: 'string', description: 'The script, e.g. scripts/report.sh' },
        args: { type: 'array', items: { type: 'string' }, description: 'Arguments for the script' },
      },
      required: ['name', 'script'],
      additionalProperties: false,
    },
    permissionLevel: 'Execute',
    writesWorkspace: true,
    // What the approver sees: the workspace as the policy grants it, the skill's own folder read-only (its
    // approved copy is what is mounted) and the policy's hosts, whatever the skill claims.
    reach(input) {
      const skill = o.catalog.get(String(input.name ?? ''));
      return {
        folders: [
          { path: o.policy.workspace, readOnly: o.policy.access !== 'full' },
          ...(skill?.dir ? [{ path: skill.dir, readOnly: true }] : []),
        ],
        hosts: [...o.policy.network.allow],
      };
    },
    async run(input, ctx) {
      const skill = o.catalog.get(String(input.name ?? ''));
      if (!skill) return { content: `there is no skill named ${JSON.stringify(input.name)}`, isError: true };
      const script = String(input.script ?? '');
      const scripts = skill.resources?.scripts ?? [];
      if (!scripts.includes(script))
        return {
          content:
            `skill ${skill.name} has no script ${JSON.stringify(script)}; ` +
            `its scripts: ${scripts.join(', ') || '(none)'}`,
          isError: true,
        };
      const runtime = runtimeOf(script);
      if (typeof runtime !== 'string') return { content: runtime.refused, isError: true };
      const { carrier, program } = RUNTIMES[runtime];
      const tool = o.registry.get(carrier);
      if (tool?.source !== 'bundled')
        return { content: `the bundled ${program} runtime is not available, so ${script} cannot run`, isError: true };
      const files = approvedFiles(skill);
      if (typeof files === 'string') return { content: files, isError: true };
      const args = Array.isArray(input.args) ? input.args.map(String) : [];
      const stage = mkdtempSync(join(tmpdir(), 'boxbot-skill-run-'));
      try {
        // Exactly the bytes that were checked are what the guest sees.
        for (const f of files) {
          const path = join(stage, ...f.path.split('/'));
          mkdirSync(dirname(path), { recursive: true });
          writeFileSync(path, f.bytes, { mode: 0o444 });
        }
        const grant: ToolCallGrant = {
          mounts: [
            { host: o.policy.workspace, guest: '/', readOnly: o.policy.access !== 'full' },
            { host: stage, guest: '/skill', readOnly: true },
          ],
          network: { allow: [...o.policy.network.allow], block: [...o.policy.network.block] },
          limits: o.policy.limits,
        };
        const r =
          runtime === 'bash'
            ? await invokeTool(
                o.sandbox,
                tool,
                { command: `bash ${shellWord(`/skill/${script}`)} ${args.map(shellWord).join(' ')}`.trim() },
                grant,
                undefined,
                ctx.signal,
              )
            : await runJs(o.sandbox, tool.blob, `/skill/${script}`, args, grant, ctx.signal);
        const taint = skillTaint(skill);
        return {
          content: r.content,
          isError: r.isError,
          ...(taint ? { untrusted: `the output of ${script} of ${taint}` } : {}),
        };
      } finally {
        rmSync(stage, { recursive: true, force: true });
      }
    },
  };
}
