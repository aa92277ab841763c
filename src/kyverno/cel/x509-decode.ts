/**
 * PEM → the JSON Kyverno's `x509.decode` produces (kyverno/sdk
 * `extensions/cel/libs/x509/impl.go`): a DER reader for X.509 certificates and
 * PKCS #10 requests, giving Go's field names and JSON encodings.
 *
 * Certificates give `CertificateOutput`: `Raw`, `RawTBSCertificate`,
 * `RawSubjectPublicKeyInfo`, `RawSubject`, `RawIssuer`, `Signature` (base64),
 * `PublicKeyAlgorithm` (Go's enum: RSA = 1), `PublicKey` `{N: decimal string, E}`,
 * `SerialNumber` (`big.Int.Int64()`), `Issuer` (pkix.Name: `Country`,
 * `Organization`, `OrganizationalUnit`, `Locality`, `Province`,
 * `StreetAddress`, `PostalCode`, `SerialNumber`, `CommonName`, `Names`,
 * `ExtraNames`), `NotBefore`/`NotAfter` (RFC 3339), `KeyUsage` (bit set),
 * `Extensions` (`{Id, Critical, Value}`), `ExtKeyUsage` (Go's enum), basic
 * constraints (`BasicConstraintsValid`, `IsCA`, `MaxPathLen`, `MaxPathLenZero`),
 * `AuthorityKeyId`, `OCSPServer`, `IssuingCertificateURL`, `DNSNames`,
 * `EmailAddresses`, `IPAddresses`, `CRLDistributionPoints`, `PolicyIdentifiers`,
 * and the name-constraint fields. Go's nil slices are `null`.
 *
 * Gaps (as read; not reproduced): name constraints are not parsed (their
 * fields stay empty, `PermittedDNSDomainsCritical` false); a request's
 * `Attributes` is always `[]` and its `URIs` `null`.
 */
import { CelEvalError } from "../../cel/errors.js";
import { base64 } from "./common.js";

interface Der {
  readonly tag: number;
  /** Content bytes. */
  readonly body: Uint8Array;
  /** The whole element (header and content). */
  readonly raw: Uint8Array;
}

class DerError extends Error {}

function readDer(buf: Uint8Array, pos: number): { el: Der; next: number } {
  if (pos + 2 > buf.length) throw new DerError("x509: malformed certificate");
  const tag = buf[pos]!;
  let len = buf[pos + 1]!;
  let p = pos + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    if (n === 0 || n > 4 || p + n > buf.length) throw new DerError("x509: malformed certificate");
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + buf[p + i]!;
    p += n;
  }
  if (p + len > buf.length) throw new DerError("x509: malformed certificate");
  return { el: { tag, body: buf.subarray(p, p + len), raw: buf.subarray(pos, p + len) }, next: p + len };
}

function children(el: Der): Der[] {
  const out: Der[] = [];
  for (let p = 0; p < el.body.length; ) {
    const { el: c, next } = readDer(el.body, p);
    out.push(c);
    p = next;
  }
  return out;
}

function oid(el: Der): number[] {
  const b = el.body;
  if (b.length === 0) return [];
  const out: number[] = [];
  let v = 0;
  for (let i = 0; i < b.length; i++) {
    v = v * 128 + (b[i]! & 0x7f);
    if ((b[i]! & 0x80) === 0) {
      if (out.length === 0) {
        const first = v < 80 ? Math.floor(v / 40) : 2;
        out.push(first, v - first * 40);
      } else out.push(v);
      v = 0;
    }
  }
  return out;
}

const oidStr = (o: readonly number[]): string => o.join(".");

function bigUnsigned(b: Uint8Array): bigint {
  let v = 0n;
  for (const x of b) v = (v << 8n) | BigInt(x);
  return v;
}

function bigSigned(b: Uint8Array): bigint {
  const v = bigUnsigned(b);
  return b.length > 0 && b[0]! & 0x80 ? v - (1n << BigInt(b.length * 8)) : v;
}

/** `big.Int.Int64()`: the low 64 bits of |x| as an int64, negated for negative x. */
function int64Of(x: bigint): number {
  const abs = x < 0n ? -x : x;
  const low = BigInt.asIntN(64, abs & ((1n << 64n) - 1n));
  return Number(x < 0n ? -low : low);
}

function text(el: Der): string {
  if (el.tag === 0x1e) {
    // BMPString: UTF-16BE
    let s = "";
    for (let i = 0; i + 1 < el.body.length; i += 2) s += String.fromCharCode((el.body[i]! << 8) | el.body[i + 1]!);
    return s;
  }
  return new TextDecoder().decode(el.body);
}

function time(el: Der): string {
  const s = new TextDecoder().decode(el.body);
  let iso: string;
  if (el.tag === 0x17) {
    const yy = Number(s.slice(0, 2));
    iso = `${yy < 50 ? 2000 + yy : 1900 + yy}-${s.slice(2, 4)}-${s.slice(4, 6)}T${s.slice(6, 8)}:${s.slice(8, 10)}:${s.slice(10, 12)}Z`;
  } else {
    iso = `${s.slice(0, 4)}-${s.slice(4, 6)}-${s.slice(6, 8)}T${s.slice(8, 10)}:${s.slice(10, 12)}:${s.slice(12, 14)}Z`;
  }
  return iso;
}

const NAME_FIELDS: Record<number, string> = { 6: "Country", 10: "Organization", 11: "OrganizationalUnit", 7: "Locality", 8: "Province", 9: "StreetAddress", 17: "PostalCode" };

/** pkix.Name filled from an RDNSequence. */
function pkixName(el: Der): Record<string, unknown> {
  const name: Record<string, unknown> = {
    Country: null,
    Organization: null,
    OrganizationalUnit: null,
    Locality: null,
    Province: null,
    StreetAddress: null,
    PostalCode: null,
    SerialNumber: "",
    CommonName: "",
    Names: null,
    ExtraNames: null,
  };
  const names: unknown[] = [];
  for (const rdn of children(el)) {
    for (const atv of children(rdn)) {
      const [t, val] = children(atv);
      const type = oid(t!);
      const isString = [0x0c, 0x13, 0x14, 0x16, 0x1a, 0x1c, 0x1e, 0x12].includes(val!.tag);
      const value = isString ? text(val!) : null;
      names.push({ Type: type, Value: value });
      if (!isString) continue;
      if (type.length === 4 && type[0] === 2 && type[1] === 5 && type[2] === 4) {
        const k = type[3]!;
        if (k === 3) name.CommonName = value;
        else if (k === 5) name.SerialNumber = value;
        else if (NAME_FIELDS[k] !== undefined) {
          const f = NAME_FIELDS[k]!;
          name[f] = [...((name[f] as string[] | null) ?? []), value];
        }
      }
    }
  }
  if (names.length > 0) name.Names = names;
  return name;
}

const PK_ALGOS: Record<string, number> = { "1.2.840.113549.1.1.1": 1, "1.2.840.10040.4.1": 2, "1.2.840.10045.2.1": 3, "1.3.101.112": 4 };
const SIG_ALGOS: Record<string, number> = {
  "1.2.840.113549.1.1.2": 1,
  "1.2.840.113549.1.1.4": 2,
  "1.2.840.113549.1.1.5": 3,
  "1.2.840.113549.1.1.11": 4,
  "1.2.840.113549.1.1.12": 5,
  "1.2.840.113549.1.1.13": 6,
  "1.2.840.10040.4.3": 7,
  "2.16.840.1.101.3.4.3.2": 8,
  "1.2.840.10045.4.1": 9,
  "1.2.840.10045.4.3.2": 10,
  "1.2.840.10045.4.3.3": 11,
  "1.2.840.10045.4.3.4": 12,
  "1.2.840.113549.1.1.10": 13,
  "1.3.101.112": 16,
};
const EXT_KEY_USAGE: Record<string, number> = {
  "2.5.29.37.0": 0,
  "1.3.6.1.5.5.7.3.1": 1,
  "1.3.6.1.5.5.7.3.2": 2,
  "1.3.6.1.5.5.7.3.3": 3,
  "1.3.6.1.5.5.7.3.4": 4,
  "1.3.6.1.5.5.7.3.5": 5,
  "1.3.6.1.5.5.7.3.6": 6,
  "1.3.6.1.5.5.7.3.7": 7,
  "1.3.6.1.5.5.7.3.8": 8,
  "1.3.6.1.5.5.7.3.9": 9,
  "1.3.6.1.4.1.311.10.3.3": 10,
  "2.16.840.1.113730.4.1": 11,
  "1.3.6.1.4.1.311.2.1.22": 12,
  "1.3.6.1.4.1.311.61.1.1": 13,
};

/** The RSA public key of a SubjectPublicKeyInfo, as Kyverno's `parseSubjectPublicKeyInfo`. */
function rsaKey(spki: Der): { N: string; E: number } {
  const [, bits] = children(spki);
  if (bits === undefined || bits.tag !== 0x03) throw new CelEvalError("failed to parse subject public key info");
  const key = readDer(bits.body.subarray(1), 0).el;
  const [n, e] = children(key);
  if (n === undefined || e === undefined) throw new CelEvalError("failed to parse subject public key info");
  return { N: bigUnsigned(n.body).toString(), E: Number(bigSigned(e.body)) };
}

function formatIP(b: Uint8Array): string {
  if (b.length === 4) return [...b].join(".");
  if (b.length === 16) {
    if (b.subarray(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff) return [...b.subarray(12)].join(".");
    const groups: number[] = [];
    for (let i = 0; i < 16; i += 2) groups.push((b[i]! << 8) | b[i + 1]!);
    let bestStart = -1;
    let bestLen = 0;
    for (let i = 0; i < 8; ) {
      if (groups[i] !== 0) {
        i++;
        continue;
      }
      let j = i;
      while (j < 8 && groups[j] === 0) j++;
      if (j - i > bestLen && j - i >= 2) [bestStart, bestLen] = [i, j - i];
      i = j;
    }
    const hex = groups.map((g) => g.toString(16));
    if (bestStart < 0) return hex.join(":");
    return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLen).join(":")}`;
  }
  return `?${base64(b)}`;
}

function generalNames(seq: Der, out: { dns: string[]; email: string[]; ip: string[]; uri: string[] }): void {
  for (const g of children(seq)) {
    const t = g.tag & 0x1f;
    if (t === 1) out.email.push(text(g));
    else if (t === 2) out.dns.push(text(g));
    else if (t === 6) out.uri.push(text(g));
    else if (t === 7) out.ip.push(formatIP(g.body));
  }
}

const orNull = <T>(xs: T[]): T[] | null => (xs.length === 0 ? null : xs);

function extensionsOf(list: Der | undefined): { json: unknown[]; parsed: Record<string, unknown> } {
  const json: unknown[] = [];
  const names = { dns: [] as string[], email: [] as string[], ip: [] as string[], uri: [] as string[] };
  const parsed: Record<string, unknown> = {};
  for (const ext of list === undefined ? [] : children(list)) {
    const parts = children(ext);
    const id = oid(parts[0]!);
    const critical = parts.length === 3 && parts[1]!.tag === 0x01 && parts[1]!.body[0] !== 0;
    const value = parts[parts.length - 1]!.body;
    json.push({ Id: id, Critical: critical, Value: base64(value) });
    const inner = readDer(value, 0).el;
    switch (oidStr(id)) {
      case "2.5.29.15": {
        const unused = inner.body[0] ?? 0;
        const bytes = inner.body.subarray(1);
        let usage = 0;
        for (let i = 0; i < 9; i++) {
          const byte = i >> 3;
          if (byte < bytes.length && (byte < bytes.length - 1 || 7 - (i & 7) >= unused) && bytes[byte]! & (0x80 >> (i & 7))) usage |= 1 << i;
        }
        parsed.KeyUsage = usage;
        break;
      }
      case "2.5.29.19": {
        const cs = children(inner);
        let isCA = false;
        let maxPathLen = -1;
        for (const c of cs) {
          if (c.tag === 0x01) isCA = c.body[0] !== 0;
          if (c.tag === 0x02) maxPathLen = Number(bigSigned(c.body));
        }
        parsed.BasicConstraintsValid = true;
        parsed.IsCA = isCA;
        parsed.MaxPathLen = maxPathLen;
        parsed.MaxPathLenZero = maxPathLen === 0;
        break;
      }
      case "2.5.29.37":
        parsed.ExtKeyUsage = orNull(children(inner).map((o) => EXT_KEY_USAGE[oidStr(oid(o))]).filter((x): x is number => x !== undefined));
        break;
      case "2.5.29.17":
        generalNames(inner, names);
        break;
      case "2.5.29.35":
        for (const c of children(inner)) if (c.tag === 0x80) parsed.AuthorityKeyId = base64(c.body);
        break;
      case "1.3.6.1.5.5.7.1.1": {
        const ocsp: string[] = [];
        const issuers: string[] = [];
        for (const ad of children(inner)) {
          const [method, loc] = children(ad);
          if (loc === undefined || (loc.tag & 0x1f) !== 6) continue;
          const m = oidStr(oid(method!));
          if (m === "1.3.6.1.5.5.7.48.1") ocsp.push(text(loc));
          else if (m === "1.3.6.1.5.5.7.48.2") issuers.push(text(loc));
        }
        parsed.OCSPServer = orNull(ocsp);
        parsed.IssuingCertificateURL = orNull(issuers);
        break;
      }
      case "2.5.29.31": {
        const urls: string[] = [];
        for (const dp of children(inner)) {
          for (const f of children(dp)) {
            if (f.tag !== 0xa0) continue;
            for (const full of children(f)) {
              if (full.tag !== 0xa0) continue;
              for (const g of children(full)) if ((g.tag & 0x1f) === 6) urls.push(text(g));
            }
          }
        }
        parsed.CRLDistributionPoints = orNull(urls);
        break;
      }
      case "2.5.29.32":
        parsed.PolicyIdentifiers = orNull(children(inner).map((pi) => oid(children(pi)[0]!)));
        break;
    }
  }
  parsed.DNSNames = orNull(names.dns);
  parsed.EmailAddresses = orNull(names.email);
  parsed.IPAddresses = orNull(names.ip);
  parsed.URIs = orNull(names.uri);
  return { json, parsed };
}

function algorithmOf(algId: Der): string {
  return oidStr(oid(children(algId)[0]!));
}

function decodeCertificate(der: Uint8Array): Record<string, unknown> {
  const cert = readDer(der, 0).el;
  const [tbs, , sig] = children(cert);
  if (tbs === undefined || sig === undefined) throw new DerError("x509: malformed certificate");
  let fields = children(tbs);
  if (fields[0]!.tag === 0xa0) fields = fields.slice(1); // version
  const [serial, , issuer, validity, subject, spki, ...rest] = fields;
  if (serial === undefined || issuer === undefined || validity === undefined || subject === undefined || spki === undefined) {
    throw new DerError("x509: malformed tbs certificate");
  }
  const [notBefore, notAfter] = children(validity);
  if (PK_ALGOS[algorithmOf(children(spki)[0]!)] !== 1) throw new CelEvalError("certificate should use rsa algorithm");
  const extWrapper = rest.find((r) => r.tag === 0xa3);
  const { json: extensions, parsed } = extensionsOf(extWrapper === undefined ? undefined : children(extWrapper)[0]);
  return {
    Raw: base64(cert.raw),
    RawTBSCertificate: base64(tbs.raw),
    RawSubjectPublicKeyInfo: base64(spki.raw),
    RawSubject: base64(subject.raw),
    RawIssuer: base64(issuer.raw),
    Signature: base64(sig.body.subarray(1)),
    PublicKeyAlgorithm: 1,
    PublicKey: rsaKey(spki),
    SerialNumber: int64Of(bigSigned(serial.body)),
    Issuer: pkixName(issuer),
    NotBefore: time(notBefore!),
    NotAfter: time(notAfter!),
    KeyUsage: parsed.KeyUsage ?? 0,
    Extensions: orNull(extensions),
    ExtraExtensions: null,
    ExtKeyUsage: parsed.ExtKeyUsage ?? null,
    BasicConstraintsValid: parsed.BasicConstraintsValid ?? false,
    IsCA: parsed.IsCA ?? false,
    MaxPathLen: parsed.MaxPathLen ?? 0,
    MaxPathLenZero: parsed.MaxPathLenZero ?? false,
    AuthorityKeyId: parsed.AuthorityKeyId ?? null,
    OCSPServer: parsed.OCSPServer ?? null,
    IssuingCertificateURL: parsed.IssuingCertificateURL ?? null,
    DNSNames: parsed.DNSNames,
    EmailAddresses: parsed.EmailAddresses,
    IPAddresses: parsed.IPAddresses,
    PermittedDNSDomainsCritical: false,
    PermittedDNSDomains: null,
    ExcludedDNSDomains: null,
    PermittedIPRanges: null,
    ExcludedIPRanges: null,
    PermittedEmailAddresses: null,
    ExcludedEmailAddresses: null,
    PermittedURIDomains: null,
    ExcludedURIDomains: null,
    CRLDistributionPoints: parsed.CRLDistributionPoints ?? null,
    PolicyIdentifiers: parsed.PolicyIdentifiers ?? null,
  };
}

function decodeRequest(der: Uint8Array): Record<string, unknown> {
  const csr = readDer(der, 0).el;
  const [info, sigAlg, sig] = children(csr);
  if (info === undefined || sigAlg === undefined || sig === undefined) throw new DerError("x509: malformed certificate request");
  const [version, subject, spki, attrs] = children(info);
  if (version === undefined || subject === undefined || spki === undefined) throw new DerError("x509: malformed certificate request");
  if (PK_ALGOS[algorithmOf(children(spki)[0]!)] !== 1) throw new CelEvalError("certificate should use rsa algorithm");
  let extList: Der | undefined;
  for (const attr of attrs === undefined ? [] : children(attrs)) {
    const [type, values] = children(attr);
    if (oidStr(oid(type!)) === "1.2.840.113549.1.9.14" && values !== undefined) extList = children(values)[0];
  }
  const { json: extensions, parsed } = extensionsOf(extList);
  return {
    Raw: base64(csr.raw),
    RawTBSCertificateRequest: base64(info.raw),
    RawSubjectPublicKeyInfo: base64(spki.raw),
    RawSubject: base64(subject.raw),
    Version: Number(bigSigned(version.body)),
    Signature: base64(sig.body.subarray(1)),
    SignatureAlgorithm: SIG_ALGOS[algorithmOf(sigAlg)] ?? 0,
    PublicKeyAlgorithm: 1,
    PublicKey: rsaKey(spki),
    Subject: pkixName(subject),
    Attributes: [],
    Extensions: orNull(extensions),
    ExtraExtensions: null,
    DNSNames: parsed.DNSNames,
    EmailAddresses: parsed.EmailAddresses,
    IPAddresses: parsed.IPAddresses,
    URIs: null,
  };
}

/** Go `pem.Decode`: the first block, its type and DER bytes; undefined when there is none. */
export function pemDecode(pem: string): { type: string; der: Uint8Array } | undefined {
  const m = /-----BEGIN ([^\n-]*)-----\r?\n([\s\S]*?)-----END \1-----/.exec(pem);
  if (m === null) return undefined;
  const body = m[2]!
    .split(/\r?\n/)
    .filter((l) => !l.includes(":"))
    .join("")
    .replace(/\s+/g, "");
  try {
    const bin = atob(body);
    const der = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) der[i] = bin.charCodeAt(i);
    return { type: m[1]!, der };
  } catch {
    return undefined;
  }
}

export function decodePem(pem: string): unknown {
  const block = pemDecode(pem);
  if (block === undefined) throw new CelEvalError("failed to decode PEM block");
  try {
    if (block.type === "CERTIFICATE") return decodeCertificate(block.der);
    if (block.type === "CERTIFICATE REQUEST") return decodeRequest(block.der);
  } catch (e) {
    if (e instanceof DerError) throw new CelEvalError(e.message);
    if (e instanceof TypeError || e instanceof RangeError) throw new CelEvalError("x509: malformed certificate");
    throw e;
  }
  throw new CelEvalError("PEM block neither contains a CERTIFICATE or CERTIFICATE REQUEST");
}
