// Public names of the sandbox: run WASI tools with exactly the capabilities granted.
export { createSandbox, type Sandbox, type SandboxOptions } from './sandbox.ts';
export { SandboxError, type SandboxErrorCode } from './errors.ts';
export { mountConflict, realPathOf, type ProtectedPaths } from './protected-paths.ts';
export { readWorkspaceFile, type WorkspaceRead } from './workspace-file.ts';
export { prepare, clearCompiledCache, type PreparedComponent } from './compile.ts';
export {
  DEFAULT_LIMITS,
  type Mount,
  type NetworkGrant,
  type SandboxGrant,
  type SandboxLimits,
  type SandboxResult,
  type TrapKind,
} from './types.ts';
