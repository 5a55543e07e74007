// The sandbox's public contract (README, "The security model, in plain words"): what a call is granted and
// what it returns. Everything here is plain data so it can cross worker boundaries.

/** A host directory made visible to the guest at `guest` (guest '/' is the work dir). */
export interface Mount {
  host: string;
  guest: string;
  readOnly: boolean;
}

/** Outbound network the guest may use; with `allow` empty it has none. */
export interface NetworkGrant {
  /** Host patterns, Spin style: `https://api.example.com`, `https://*.example.com`, `*://*.x.com:*`. */
  allow: string[];
  /** CIDRs, single addresses, or `"private"` (loopback, RFC 1918, link-local, CGNAT, ULA, ...). */
  block: string[];
}

/** Resource limits of one call. */
export interface SandboxLimits {
  timeoutMs: number;
  /** Deterministic instruction budget; undefined = unmetered. */
  fuel?: number;
  maxMemoryBytes: number;
  /** Cap on stdout + stderr together. */
  maxOutputBytes: number;
  /** Bytes the guest may write to files in one call; past it writes fail with ENOSPC and the result has trap `disk`. */
  maxWriteBytes?: number;
  /** Size a writable mount (a workspace) may reach through guest writes; past it as above. */
  maxDiskBytes?: number;
  /** Names (files, directories, links) a writable mount may hold; past it creating one fails as above. */
  maxEntries?: number;
  /** HTTP response body bytes one call may receive in all; past it the request fails. */
  maxResponseBytes?: number;
}

/** Exactly what one call of a tool may see and use; nothing else exists for it. */
export interface SandboxGrant {
  /** Arguments after the program name (the host supplies argv[0]). */
  args: string[];
  /** All the guest sees of an environment; nothing is inherited. */
  env: Record<string, string>;
  mounts: Mount[];
  network: NetworkGrant;
  limits: SandboxLimits;
  stdin?: Uint8Array;
}

/** Which limit or failure ended a call early. */
export type TrapKind = 'timeout' | 'fuel' | 'memory' | 'stack' | 'output' | 'disk' | 'crash';

/** The outcome of one call. */
export interface SandboxResult {
  exitCode: number;
  stdout: Uint8Array;
  stderr: Uint8Array;
  durationMs: number;
  trap?: { kind: TrapKind; message: string };
}

/** Defaults used when a caller does not say otherwise (config can override). */
export const DEFAULT_LIMITS: SandboxLimits = {
  timeoutMs: 30_000,
  // Metered per straight-line segment; a shell interpreted by JS interpreted by SpiderMonkey
  // needs ~10^6 instructions per loop iteration, so the fuel bound sits near the time bound.
  fuel: 50_000_000_000,
  maxMemoryBytes: 256 * 1024 * 1024,
  maxOutputBytes: 1024 * 1024,
  maxWriteBytes: 64 * 1024 * 1024,
  maxDiskBytes: 1024 * 1024 * 1024,
  maxEntries: 100_000,
  maxResponseBytes: 16 * 1024 * 1024,
};
