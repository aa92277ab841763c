/**
 * Go's `net/netip` as the Kubernetes IP and CIDR libraries use it:
 * `ParseAddr`, `ParsePrefix`, `Addr.String`, the address classifiers, and the
 * `Prefix` operations (`Masked`, `Contains`, `Overlaps`), with Go's error
 * messages word for word (Go 1.26 source, the toolchain Kubernetes 1.36
 * builds with).
 *
 * Go scans strings byte by byte; every delimiter here is ASCII, so scanning
 * UTF-16 code units splits at the same places and yields the same substrings.
 */
import { goQuote } from "../ext/go-format.js";

/** A parse failure, carrying Go's `err.Error()` text. */
export class GoParseError extends Error {
  override readonly name = "GoParseError";
}

/**
 * `netip.Addr`: an IPv4 address (32-bit value) or an IPv6 address (128-bit
 * value, optionally with a zone). IPv4-mapped IPv6 addresses stay IPv6, as in Go.
 */
export class Addr {
  private constructor(
    readonly is4: boolean,
    /** The address as an unsigned integer: 32 bits for IPv4, 128 for IPv6. */
    readonly value: bigint,
    /** IPv6 zone; always "" for IPv4. */
    readonly zone: string,
  ) {}

  static from4(value: bigint): Addr {
    return new Addr(true, value & 0xffff_ffffn, "");
  }

  static from16(value: bigint, zone = ""): Addr {
    return new Addr(false, value & MASK128, zone);
  }

  get is6(): boolean {
    return !this.is4;
  }

  /** 32 or 128. */
  get bitLen(): number {
    return this.is4 ? 32 : 128;
  }

  /** Go `Is4In6`: IPv6 in ::ffff:0:0/96. */
  get is4In6(): boolean {
    return this.is6 && this.value >> 32n === 0xffffn;
  }

  /** Go `Unmap`. */
  unmap(): Addr {
    return this.is4In6 ? Addr.from4(this.value) : this;
  }

  withoutZone(): Addr {
    return this.zone === "" ? this : Addr.from16(this.value);
  }

  /** Go `==` on `netip.Addr`: same family, bits and zone. */
  equals(o: Addr): boolean {
    return this.is4 === o.is4 && this.value === o.value && this.zone === o.zone;
  }

  /** Byte `i` (0-based) of the IPv4 address. */
  private v4(i: number): number {
    return Number((this.value >> BigInt((3 - i) * 8)) & 0xffn);
  }

  /** 16-bit group `i` (0-based) of the IPv6 form. */
  private v6u16(i: number): number {
    return Number((this.value >> BigInt((7 - i) * 16)) & 0xffffn);
  }

  isUnspecified(): boolean {
    return this.value === 0n && this.zone === "";
  }

  isLoopback(): boolean {
    const ip = this.unmap();
    return ip.is4 ? ip.v4(0) === 127 : ip.value === 1n;
  }

  isMulticast(): boolean {
    const ip = this.unmap();
    return ip.is4 ? (ip.v4(0) & 0xf0) === 0xe0 : ip.value >> 120n === 0xffn;
  }

  isLinkLocalMulticast(): boolean {
    const ip = this.unmap();
    if (ip.is4) return ip.v4(0) === 224 && ip.v4(1) === 0 && ip.v4(2) === 0;
    return (ip.v6u16(0) & 0xff0f) === 0xff02;
  }

  isLinkLocalUnicast(): boolean {
    const ip = this.unmap();
    if (ip.is4) return ip.v4(0) === 169 && ip.v4(1) === 254;
    return (ip.v6u16(0) & 0xffc0) === 0xfe80;
  }

  isGlobalUnicast(): boolean {
    const ip = this.unmap();
    if (ip.is4 && (ip.value === 0n || ip.value === 0xffff_ffffn)) return false;
    // Go compares with IPv6Unspecified() (no zone), so "::%eth0" is global unicast.
    if (ip.is6 && ip.value === 0n && ip.zone === "") return false;
    return !ip.isLoopback() && !ip.isMulticast() && !ip.isLinkLocalUnicast();
  }

  /** Go `Addr.String`. */
  toString(): string {
    if (this.is4) return this.string4();
    if (this.is4In6) {
      const s = "::ffff:" + this.unmap().string4();
      return this.zone === "" ? s : `${s}%${this.zone}`;
    }
    return this.string6();
  }

  private string4(): string {
    return `${this.v4(0)}.${this.v4(1)}.${this.v4(2)}.${this.v4(3)}`;
  }

  private string6(): string {
    // RFC 5952: elide the longest run (length ≥ 2, first one wins) of zero groups.
    let zeroStart = -1;
    let zeroEnd = -1;
    for (let i = 0; i < 8; i++) {
      let j = i;
      while (j < 8 && this.v6u16(j) === 0) j++;
      if (j - i >= 2 && j - i > zeroEnd - zeroStart) {
        zeroStart = i;
        zeroEnd = j;
      }
    }
    let out = "";
    for (let i = 0; i < 8; i++) {
      if (i === zeroStart) {
        out += "::";
        i = zeroEnd;
        if (i >= 8) break;
      } else if (i > 0) {
        out += ":";
      }
      out += this.v6u16(i).toString(16);
    }
    return this.zone === "" ? out : `${out}%${this.zone}`;
  }
}

const MASK128 = (1n << 128n) - 1n;

/** The top `bits` bits of an address of `bitLen` bits. */
function mask(bitLen: number, bits: number): bigint {
  const all = (1n << BigInt(bitLen)) - 1n;
  return all ^ ((1n << BigInt(bitLen - bits)) - 1n);
}

function addrError(input: string, msg: string, at = ""): GoParseError {
  const base = `ParseAddr(${goQuote(input)}): ${msg}`;
  return new GoParseError(at === "" ? base : `${base} (at ${goQuote(at)})`);
}

/** Go `netip.ParseAddr`. Throws {@link GoParseError}. */
export function parseAddr(s: string): Addr {
  for (let i = 0; i < s.length; i++) {
    switch (s[i]) {
      case ".":
        return parseIPv4(s);
      case ":":
        return parseIPv6(s);
      case "%":
        throw addrError(s, "missing IPv6 address");
    }
  }
  throw addrError(s, "unable to parse IP");
}

/** Go `parseIPv4Fields`: the dotted quad in `input[off:end]`; errors name the whole `input`. */
function parseIPv4Fields(input: string, off: number, end: number): bigint {
  const s = input.slice(off, end);
  const fields = [0, 0, 0, 0];
  let val = 0;
  let pos = 0;
  let digLen = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) {
      if (digLen === 1 && val === 0) throw addrError(input, "IPv4 field has octet with leading zero");
      val = val * 10 + (c - 0x30);
      digLen++;
      if (val > 255) throw addrError(input, "IPv4 field has value >255");
    } else if (c === 0x2e) {
      if (i === 0 || i === s.length - 1 || s[i - 1] === ".") {
        throw addrError(input, "IPv4 field must have at least one digit", s.slice(i));
      }
      if (pos === 3) throw addrError(input, "IPv4 address too long");
      fields[pos++] = val;
      val = 0;
      digLen = 0;
    } else {
      throw addrError(input, "unexpected character", s.slice(i));
    }
  }
  if (pos < 3) throw addrError(input, "IPv4 address too short");
  fields[3] = val;
  return (BigInt(fields[0]!) << 24n) | (BigInt(fields[1]!) << 16n) | (BigInt(fields[2]!) << 8n) | BigInt(fields[3]!);
}

function parseIPv4(s: string): Addr {
  return Addr.from4(parseIPv4Fields(s, 0, s.length));
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

function parseIPv6(input: string): Addr {
  let s = input;
  let zone = "";
  const pct = s.indexOf("%");
  if (pct !== -1) {
    zone = s.slice(pct + 1);
    s = s.slice(0, pct);
    if (zone === "") throw addrError(input, "zone must be a non-empty string");
  }

  const ip = new Array<number>(16).fill(0);
  let ellipsis = -1;
  if (s.length >= 2 && s[0] === ":" && s[1] === ":") {
    ellipsis = 0;
    s = s.slice(2);
    if (s.length === 0) return Addr.from16(0n, zone);
  }

  let i = 0;
  while (i < 16) {
    let off = 0;
    let acc = 0;
    for (; off < s.length; off++) {
      const h = hexValue(s.charCodeAt(off));
      if (h < 0) break;
      acc = acc * 16 + h;
      if (off > 3) throw addrError(input, "each group must have 4 or less digits", s);
      if (acc > 0xffff) throw addrError(input, "IPv6 field has value >=2^16", s);
    }
    if (off === 0) throw addrError(input, "each colon-separated field must have at least one digit", s);

    if (off < s.length && s[off] === ".") {
      if (ellipsis < 0 && i !== 12) {
        throw addrError(input, "embedded IPv4 address must replace the final 2 fields of the address", s);
      }
      if (i + 4 > 16) {
        throw addrError(input, "too many hex fields to fit an embedded IPv4 at the end of the address", s);
      }
      let end = input.length;
      if (zone.length > 0) end -= zone.length + 1;
      const v4 = parseIPv4Fields(input, end - s.length, end);
      ip[i] = Number((v4 >> 24n) & 0xffn);
      ip[i + 1] = Number((v4 >> 16n) & 0xffn);
      ip[i + 2] = Number((v4 >> 8n) & 0xffn);
      ip[i + 3] = Number(v4 & 0xffn);
      s = "";
      i += 4;
      break;
    }

    ip[i] = acc >> 8;
    ip[i + 1] = acc & 0xff;
    i += 2;

    s = s.slice(off);
    if (s.length === 0) break;
    if (s[0] !== ":") throw addrError(input, "unexpected character, want colon", s);
    if (s.length === 1) throw addrError(input, "colon must be followed by more characters", s);
    s = s.slice(1);
    if (s[0] === ":") {
      if (ellipsis >= 0) throw addrError(input, "multiple :: in address", s);
      ellipsis = i;
      s = s.slice(1);
      if (s.length === 0) break;
    }
  }

  if (s.length !== 0) throw addrError(input, "trailing garbage after address", s);

  if (i < 16) {
    if (ellipsis < 0) throw addrError(input, "address string too short");
    const n = 16 - i;
    for (let j = i - 1; j >= ellipsis; j--) ip[j + n] = ip[j]!;
    for (let j = ellipsis; j < ellipsis + n; j++) ip[j] = 0;
  } else if (ellipsis >= 0) {
    throw addrError(input, "the :: must expand to at least one field of zeros");
  }
  let value = 0n;
  for (const b of ip) value = (value << 8n) | BigInt(b);
  return Addr.from16(value, zone);
}

/** `netip.Prefix`: an address (never zoned) and a prefix length. */
export class Prefix {
  constructor(
    readonly addr: Addr,
    readonly bits: number,
  ) {}

  /** Go `==` on `netip.Prefix`. */
  equals(o: Prefix): boolean {
    return this.bits === o.bits && this.addr.equals(o.addr);
  }

  /** Go `Prefix.Masked`: host bits cleared. */
  masked(): Prefix {
    const a = this.addr;
    const v = a.value & mask(a.bitLen, this.bits);
    return new Prefix(a.is4 ? Addr.from4(v) : Addr.from16(v), this.bits);
  }

  /** Go `Prefix.Contains`: same family (a zoned address never matches) and same top bits. */
  contains(ip: Addr): boolean {
    if (ip.zone !== "" || ip.is4 !== this.addr.is4) return false;
    const m = mask(ip.bitLen, this.bits);
    return ((ip.value ^ this.addr.value) & m) === 0n;
  }

  /** Go `Prefix.Overlaps`. */
  overlaps(o: Prefix): boolean {
    if (this.equals(o)) return true;
    if (this.addr.is4 !== o.addr.is4) return false;
    const minBits = Math.min(this.bits, o.bits);
    if (minBits === 0) return true;
    const m = mask(this.addr.bitLen, minBits);
    return (this.addr.value & m) === (o.addr.value & m);
  }

  /** Go `Prefix.String`. */
  toString(): string {
    return `${this.addr.toString()}/${this.bits}`;
  }
}

function prefixError(input: string, msg: string): GoParseError {
  return new GoParseError(`netip.ParsePrefix(${goQuote(input)}): ${msg}`);
}

/** Go `netip.ParsePrefix` (host bits are kept). Throws {@link GoParseError}. */
export function parsePrefix(s: string): Prefix {
  const slash = s.lastIndexOf("/");
  if (slash < 0) throw prefixError(s, "no '/'");
  let ip: Addr;
  try {
    ip = parseAddr(s.slice(0, slash));
  } catch (e) {
    if (e instanceof GoParseError) throw prefixError(s, e.message);
    throw e;
  }
  if (ip.zone !== "") throw prefixError(s, "IPv6 zones cannot be present in a prefix");

  const bitsStr = s.slice(slash + 1);
  // Go rejects a sign and leading zeros before handing the rest to strconv.Atoi.
  if (bitsStr.length > 1 && !(bitsStr[0]! >= "1" && bitsStr[0]! <= "9")) {
    throw prefixError(s, `bad bits after slash: ${goQuote(bitsStr)}`);
  }
  // Atoi's syntax and range errors (beyond int64) both read "bad bits after slash".
  if (!/^[0-9]+$/.test(bitsStr) || BigInt(bitsStr) > 2n ** 63n - 1n) {
    throw prefixError(s, `bad bits after slash: ${goQuote(bitsStr)}`);
  }
  const bits = BigInt(bitsStr);
  if (bits > BigInt(ip.bitLen)) throw prefixError(s, "prefix length out of range");
  return new Prefix(ip, Number(bits));
}
