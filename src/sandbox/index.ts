// Public names of the sandbox: run WASI tools with exactly the capabilities granted.

export { clearCompiledCache, type PreparedComponent, prepare } from './compile.ts';
export { SandboxError, type SandboxErrorCode } from './errors.ts';
export { mountConflict, type ProtectedPaths, realPathOf } from './protected-paths.ts';
export { createSandbox, type Sandbox, type SandboxOptions } from './sandbox.ts';
export {
  DEFAULT_LIMITS,
  type Mount,
  type NetworkGrant,
  type SandboxGrant,
  type SandboxLimits,
  type SandboxResult,
  type TrapKind,
} from './types.ts';
export {
  readWorkspaceFile,
  type WorkspaceRead,
  type WorkspaceWrite,
  writeWorkspaceFile,
} from './workspace-file.ts';
