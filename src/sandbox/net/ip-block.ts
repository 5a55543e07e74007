// Blocked networks: CIDRs, single addresses, "private" and "none". Every address is
// normalized first, and IPv4 addresses embedded in IPv6 (mapped, compatible, NAT64) are
// checked as the IPv4 address they reach.
import { BlockList, isIP } from 'node:net';

const PRIVATE_V4 = [
  '127.0.0.0/8',
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '169.254.0.0/16',
  '100.64.0.0/10',
  '0.0.0.0/8',
  '224.0.0.0/4',
  '240.0.0.0/4',
];
const PRIVATE_V6 = ['::1/128', '::/128', 'fe80::/10', 'fc00::/7', 'ff00::/8'];

/** A compiled block list. */
export interface NetBlockList {
  list: BlockList;
}

function addEntry(list: BlockList, entry: string): void {
  const [addr, bits] = entry.split('/');
  const family = isIP(addr ?? '');
  if (!family)
    throw new Error(`bad block entry ${JSON.stringify(entry)}: expected a CIDR, an address, "private" or "none"`);
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (bits === undefined) list.addAddress(addr!, type);
  else {
    const n = Number(bits);
    if (!Number.isInteger(n) || n < 0 || n > (family === 4 ? 32 : 128))
      throw new Error(`bad block entry ${JSON.stringify(entry)}: bad prefix length`);
    list.addSubnet(addr!, n, type);
  }
}

/** Parses block entries; throws naming a bad one. */
export function parseBlockList(entries: string[]): NetBlockList {
  const list = new BlockList();
  for (const e of entries) {
    if (e === 'none') continue;
    if (e === 'private') {
      for (const c of [...PRIVATE_V4, ...PRIVATE_V6]) addEntry(list, c);
      continue;
    }
    addEntry(list, e);
  }
  return { list };
}

/** The IPv4 address an IPv6 address embeds (mapped, compatible or NAT64), if any. */
export function embeddedV4(v6: string): string | undefined {
  const groups = expandV6(v6);
  if (!groups) return undefined;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zero5 = groups.slice(0, 5).every((g) => g === 0);
  if (zero5 && groups[5] === 0xffff) return v4(groups[6]!, groups[7]!);
  if (zero5 && groups[5] === 0 && (groups[6] !== 0 || groups[7]! > 1)) return v4(groups[6]!, groups[7]!);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0))
    return v4(groups[6]!, groups[7]!);
  return undefined;
}

function expandV6(addr: string): number[] | undefined {
  let a = addr
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .split('%')[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (dotted) {
    const p = dotted[1]!.split('.').map(Number);
    const hex = (hi: number, lo: number) => ((hi << 8) | lo).toString(16);
    a = `${a.slice(0, -dotted[1]!.length)}${hex(p[0]!, p[1]!)}:${hex(p[2]!, p[3]!)}`;
  }
  const [head, tail] = a.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined ? (tail ? tail.split(':') : []) : [];
  const fill = tail !== undefined ? 8 - h.length - t.length : 0;
  const all = [...h, ...Array(fill).fill('0'), ...t];
  if (all.length !== 8) return undefined;
  return all.map((g) => parseInt(g, 16));
}

/** Whether `address` (as connected to) is blocked. */
export function isBlocked(address: string, blocked: NetBlockList): boolean {
  const a = address.replace(/^\[|\]$/g, '');
  const family = isIP(a);
  if (family === 4) return blocked.list.check(a, 'ipv4');
  if (family === 6) {
    if (blocked.list.check(a, 'ipv6')) return true;
    const v4 = embeddedV4(a);
    return v4 !== undefined && blocked.list.check(v4, 'ipv4');
  }
  return true;
}
