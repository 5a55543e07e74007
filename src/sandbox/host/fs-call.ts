// What the filesystem host holds for one call: each mount's pinned root (opened when the guest
// first asks, closed when the call ends) and the count of fds held by guest descriptors.
import fs from 'node:fs';
import { errorMessage } from '../../core/errors.ts';
import type { CallContext, CallResource } from './context.ts';
import type { QuotaMount } from './fs-quota.ts';
import { closeQuietly, type MountRoot, openMountRoot } from './fs-walk.ts';

/** Descriptors one call may hold at once (each is a host fd; the process shares one table). */
export const MAX_OPEN_PER_CALL = 1024;

/** A mount for the length of one call; its root fd is closed when the call ends. */
export class CallMount implements MountRoot, QuotaMount, CallResource {
  /** Bytes in the mount as the quota counts them; measured at the call's first write. */
  usage: number | undefined;
  /** Names in the mount as the quota counts them; measured with `usage`. */
  entries: number | undefined;

  constructor(
    readonly guest: string,
    readonly readOnly: boolean,
    readonly realRoot: string,
    private fd: number,
  ) {}

  rootFd(): number {
    return this.fd;
  }

  close(): void {
    const fd = this.fd;
    this.fd = -1;
    if (fd >= 0) fs.closeSync(fd);
  }
}

/** The filesystem's state for one call. */
export interface CallFs {
  readonly mounts: readonly CallMount[];
  /** Guest descriptors currently open. */
  open: number;
}

const calls = new WeakMap<CallContext, CallFs>();

/** The call's mounts, opened on first use (instances exist before their call does). */
export function callFs(ctx: CallContext): CallFs {
  const known = calls.get(ctx);
  if (known) return known;
  const mounts: CallMount[] = [];
  for (const m of ctx.mounts) {
    let root: { realRoot: string; fd: number };
    try {
      root = openMountRoot(m.host);
    } catch (e) {
      for (const opened of mounts) closeQuietly(opened.rootFd());
      // A grant naming a missing directory is the host's mistake: fail the call loudly.
      throw new Error(`mount ${m.guest} is unavailable: ${(e as NodeJS.ErrnoException).code ?? errorMessage(e)}`);
    }
    mounts.push(new CallMount(m.guest, m.readOnly, root.realRoot, root.fd));
  }
  for (const mount of mounts) ctx.track(mount);
  const state: CallFs = { mounts, open: 0 };
  calls.set(ctx, state);
  return state;
}

/** One host fd held for a guest descriptor; `fd` is -1 once closed, so a stale number is never used. */
export class FdHandle implements CallResource {
  constructor(
    private readonly state: CallFs,
    public fd: number,
  ) {
    state.open++;
  }

  close(): void {
    const fd = this.fd;
    if (fd < 0) return;
    this.fd = -1;
    this.state.open--;
    fs.closeSync(fd);
  }
}
