// Which addresses a request to a user-given URL may reach, and the allow list entries
// (`outbound_local_requests_whitelist`) that open exceptions.
import net from 'node:net';
import os from 'node:os';

/** Why an address is not a plain public unicast one; null when it is. */
export type AddressKind = 'localhost' | 'local_network' | 'link_local' | 'multicast' | 'broadcast' | null;

type Range = { net: string; bits: number; kind: Exclude<AddressKind, null> };

const V4_RANGES: Range[] = [
  { net: '0.0.0.0', bits: 8, kind: 'localhost' }, // "this network": 0.0.0.0 reaches the local host on Linux
  { net: '127.0.0.0', bits: 8, kind: 'localhost' },
  { net: '10.0.0.0', bits: 8, kind: 'local_network' },
  { net: '172.16.0.0', bits: 12, kind: 'local_network' },
  { net: '192.168.0.0', bits: 16, kind: 'local_network' },
  { net: '100.64.0.0', bits: 10, kind: 'local_network' }, // shared address space (carrier-grade NAT)
  { net: '169.254.0.0', bits: 16, kind: 'link_local' }, // with the cloud metadata address 169.254.169.254
  { net: '224.0.0.0', bits: 4, kind: 'multicast' },
  { net: '255.255.255.255', bits: 32, kind: 'broadcast' },
];
const V6_RANGES: Range[] = [
  { net: '::', bits: 128, kind: 'localhost' },
  { net: '::1', bits: 128, kind: 'localhost' },
  { net: 'fc00::', bits: 7, kind: 'local_network' }, // unique local
  { net: 'fec0::', bits: 10, kind: 'local_network' }, // deprecated site local
  { net: 'fe80::', bits: 10, kind: 'link_local' },
  { net: 'ff00::', bits: 8, kind: 'multicast' },
];

const blockLists = new Map<Exclude<AddressKind, null>, net.BlockList>();
for (const r of [...V4_RANGES, ...V6_RANGES]) {
  const list = blockLists.get(r.kind) ?? new net.BlockList();
  list.addSubnet(r.net, r.bits, net.isIPv4(r.net) ? 'ipv4' : 'ipv6');
  blockLists.set(r.kind, list);
}

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), or null. */
export function embeddedIPv4(v6: string): string | null {
  const words = expandIPv6(v6);
  if (!words) return null;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zeros = (n: number) => words.slice(0, n).every((w) => w === 0);
  if (zeros(5) && words[5] === 0xffff) return v4(words[6], words[7]); // ::ffff:a.b.c.d (mapped)
  if (zeros(6) && (words[6] !== 0 || words[7] > 1)) return v4(words[6], words[7]); // ::a.b.c.d (compatible)
  if (zeros(4) && words[4] === 0xffff && words[5] === 0) return v4(words[6], words[7]); // ::ffff:0:a.b.c.d (translated)
  if (words[0] === 0x64 && words[1] === 0xff9b && words.slice(2, 6).every((w) => w === 0)) return v4(words[6], words[7]); // NAT64
  if (words[0] === 0x2002) return v4(words[1], words[2]); // 6to4
  return null;
}

/** Eight 16-bit words, or null when the text is not an IPv6 address. */
function expandIPv6(addr: string): number[] | null {
  if (!net.isIPv6(addr)) return null;
  let text = addr.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const o = dotted[1].split('.').map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((o[0] << 8) | o[1]).toString(16)}:${((o[2] << 8) | o[3]).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, null];
  const part = (s: string) => (s === '' ? [] : s.split(':').map((w) => parseInt(w, 16)));
  const h = part(head);
  const t = tail === null ? [] : part(tail);
  return [...h, ...Array(8 - h.length - t.length).fill(0), ...t];
}

/**
 * Every address of this machine's own interfaces, read at each check (interfaces come and go),
 * as the reference's URL blocker counts them as localhost: a public address of the host reaches
 * services bound to 0.0.0.0 as surely as 127.0.0.1 does.
 */
function ownAddresses(): net.BlockList {
  const list = new net.BlockList();
  for (const addrs of Object.values(os.networkInterfaces())) {
    for (const a of addrs ?? []) {
      const address = a.address.replace(/%.*$/, '');
      if (net.isIPv4(address)) list.addAddress(address, 'ipv4');
      else if (net.isIPv6(address)) list.addAddress(address, 'ipv6');
    }
  }
  return list;
}

/** The kind of a literal IP address (checks an IPv6 form's embedded IPv4 address too). */
export function addressKind(ip: string): AddressKind {
  const family = net.isIPv4(ip) ? 'ipv4' : net.isIPv6(ip) ? 'ipv6' : null;
  if (!family) return 'localhost'; // not an address at all: never reachable
  if (ownAddresses().check(ip, family)) return 'localhost';
  for (const [kind, list] of blockLists) if (list.check(ip, family)) return kind;
  if (family === 'ipv6') {
    const v4 = embeddedIPv4(ip);
    if (v4) return addressKind(v4);
  }
  return null;
}

/** One entry of `outbound_local_requests_whitelist`: an IP, a CIDR range or a host name (`*.` wildcards), each with an optional port. */
export type AllowEntry =
  | { type: 'ip'; list: net.BlockList; port: number | null }
  | { type: 'host'; name: string; wildcard: boolean; port: number | null };

export function parseAllowEntry(raw: string): AllowEntry | null {
  let text = raw.trim().toLowerCase();
  if (!text) return null;
  let port: number | null = null;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (bracketed) {
    text = bracketed[1];
    port = bracketed[2] ? Number(bracketed[2]) : null;
  } else if (!net.isIPv6(text.split('/')[0])) {
    const withPort = /^(.*):(\d+)$/.exec(text);
    if (withPort) {
      text = withPort[1];
      port = Number(withPort[2]);
    }
  }
  const [addr, bits] = text.split('/');
  const family = net.isIPv4(addr) ? 'ipv4' : net.isIPv6(addr) ? 'ipv6' : null;
  if (family) {
    const list = new net.BlockList();
    const max = family === 'ipv4' ? 32 : 128;
    const prefix = bits === undefined ? max : Number(bits);
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > max) return null;
    list.addSubnet(addr, prefix, family);
    return { type: 'ip', list, port };
  }
  if (bits !== undefined) return null;
  const wildcard = text.startsWith('*.');
  const name = (wildcard ? text.slice(2) : text).replace(/\.$/, '');
  if (!/^[a-z0-9_.-]+$/.test(name)) return null;
  return { type: 'host', name, wildcard, port };
}

export const parseAllowList = (entries: readonly string[]): AllowEntry[] =>
  entries.map(parseAllowEntry).filter((e): e is AllowEntry => e !== null);

const portMatches = (e: AllowEntry, port: number) => e.port === null || e.port === port;

export function hostAllowed(list: AllowEntry[], host: string, port: number): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return list.some(
    (e) => e.type === 'host' && portMatches(e, port) && (e.wildcard ? name.endsWith(`.${e.name}`) : name === e.name),
  );
}

export function addressAllowed(list: AllowEntry[], ip: string, port: number): boolean {
  const family = net.isIPv4(ip) ? 'ipv4' : 'ipv6';
  return list.some((e) => e.type === 'ip' && portMatches(e, port) && e.list.check(ip, family));
}
