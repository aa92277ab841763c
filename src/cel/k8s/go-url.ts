/**
 * Go's `net/url` as the Kubernetes URL and format libraries use it: `Parse`,
 * `ParseRequestURI`, `URL.Hostname`, `Port`, `EscapedPath`, `Query` and
 * `String`, with Go's error texts (Go 1.26: bracketed hosts must be IPv6
 * addresses, and `http`/`https` hosts may hold at most one colon).
 *
 * Go works on bytes. Every delimiter is ASCII, so the structure is found on
 * the JavaScript string; escaping and unescaping go through UTF-8 bytes, and
 * unescaped bytes that are not valid UTF-8 decode to U+FFFD.
 */
import { goQuote } from "../ext/go-format.js";
import { GoParseError, parseAddr } from "./netip.js";

export class GoURLError extends Error {
  override readonly name = "GoURLError";
}

type Mode = "path" | "pathSegment" | "host" | "zone" | "userPassword" | "queryComponent" | "fragment";

const isAlnum = (c: number): boolean => (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39);

/** Go `shouldEscape` for one byte. */
export function shouldEscape(c: number, mode: Mode): boolean {
  if (isAlnum(c)) return false;
  const ch = String.fromCharCode(c);
  if ((mode === "host" || mode === "zone") && `!$&'()*+,;=:[]<>"`.includes(ch)) return false;
  switch (ch) {
    case "-":
    case "_":
    case ".":
    case "~":
      return false;
    case "$":
    case "&":
    case "+":
    case ",":
    case "/":
    case ":":
    case ";":
    case "=":
    case "?":
    case "@":
      switch (mode) {
        case "path":
          return ch === "?";
        case "pathSegment":
          return ch === "/" || ch === ";" || ch === "," || ch === "?";
        case "userPassword":
          return ch === "@" || ch === "/" || ch === "?" || ch === ":";
        case "queryComponent":
          return true;
        case "fragment":
          return false;
      }
  }
  if (mode === "fragment" && "!()*".includes(ch)) return false;
  return true;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const ishex = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
const unhex = (c: number): number => (c <= 0x39 ? c - 0x30 : c <= 0x46 ? c - 0x41 + 10 : c - 0x61 + 10);

/** The bytes of `b` from `i` to `j` as Go would quote them: a string (invalid UTF-8 bytes become \xNN). */
function goQuoteBytes(b: Uint8Array): string {
  try {
    return goQuote(new TextDecoder("utf-8", { fatal: true }).decode(b));
  } catch {
    // Go's strconv.Quote escapes invalid bytes as \xNN.
    let out = '"';
    let i = 0;
    while (i < b.length) {
      let n = 1;
      const c = b[i]!;
      if (c >= 0x80) n = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
      const chunk = b.subarray(i, i + n);
      let text: string | undefined;
      if (n > 1) {
        try {
          text = new TextDecoder("utf-8", { fatal: true }).decode(chunk);
        } catch {
          text = undefined;
        }
      }
      if (c < 0x80) {
        out += goQuote(String.fromCharCode(c)).slice(1, -1);
        i++;
      } else if (text !== undefined) {
        out += goQuote(text).slice(1, -1);
        i += n;
      } else {
        out += "\\x" + c.toString(16).padStart(2, "0");
        i++;
      }
    }
    return out + '"';
  }
}

/** Go `unescape`. */
export function unescape(s: string, mode: Mode): string {
  const b = encoder.encode(s);
  let n = 0;
  let hasPlus = false;
  for (let i = 0; i < b.length; ) {
    const c = b[i]!;
    if (c === 0x25) {
      n++;
      if (i + 2 >= b.length || !ishex(b[i + 1]!) || !ishex(b[i + 2]!)) {
        throw new GoURLError(`invalid URL escape ${goQuoteBytes(b.subarray(i, Math.min(i + 3, b.length)))}`);
      }
      const three = String.fromCharCode(c, b[i + 1]!, b[i + 2]!);
      if (mode === "host" && unhex(b[i + 1]!) < 8 && three !== "%25") {
        throw new GoURLError(`invalid URL escape ${goQuoteBytes(b.subarray(i, i + 3))}`);
      }
      if (mode === "zone") {
        const v = (unhex(b[i + 1]!) << 4) | unhex(b[i + 2]!);
        if (three !== "%25" && v !== 0x20 && shouldEscape(v, "host")) {
          throw new GoURLError(`invalid URL escape ${goQuoteBytes(b.subarray(i, i + 3))}`);
        }
      }
      i += 3;
    } else if (c === 0x2b) {
      hasPlus = mode === "queryComponent";
      i++;
    } else {
      if ((mode === "host" || mode === "zone") && c < 0x80 && shouldEscape(c, mode)) {
        throw new GoURLError(`invalid character ${goQuote(String.fromCharCode(c))} in host name`);
      }
      i++;
    }
  }
  if (n === 0 && !hasPlus) return s;
  const out = new Uint8Array(b.length);
  let j = 0;
  for (let i = 0; i < b.length; i++) {
    const c = b[i]!;
    if (c === 0x25) {
      out[j++] = (unhex(b[i + 1]!) << 4) | unhex(b[i + 2]!);
      i += 2;
    } else if (c === 0x2b) {
      out[j++] = mode === "queryComponent" ? 0x20 : 0x2b;
    } else {
      out[j++] = c;
    }
  }
  return decoder.decode(out.subarray(0, j));
}

const HEX = "0123456789ABCDEF";

/** Go `escape`. */
export function escape(s: string, mode: Mode): string {
  const b = encoder.encode(s);
  let out = "";
  let changed = false;
  for (const c of b) {
    if (c === 0x20 && mode === "queryComponent") {
      out += "+";
      changed = true;
    } else if (shouldEscape(c, mode)) {
      out += "%" + HEX[c >> 4] + HEX[c & 15];
      changed = true;
    } else {
      out += String.fromCharCode(c);
    }
  }
  return changed ? out : s;
}

export interface GoURL {
  scheme: string;
  opaque: string;
  /** Userinfo: username and, when set, password (already unescaped). */
  user: { username: string; password: string | undefined } | undefined;
  host: string;
  path: string;
  rawPath: string;
  omitHost: boolean;
  forceQuery: boolean;
  rawQuery: string;
  fragment: string;
  rawFragment: string;
}

function getScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a)) continue;
    if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) {
      if (i === 0) return ["", raw];
      continue;
    }
    if (c === 0x3a) {
      if (i === 0) throw new GoURLError("missing protocol scheme");
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ["", raw];
  }
  return ["", raw];
}

const containsCTL = (s: string): boolean => {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
};

function validOptionalPort(port: string): boolean {
  if (port === "") return true;
  if (port[0] !== ":") return false;
  for (const ch of port.slice(1)) if (ch < "0" || ch > "9") return false;
  return true;
}

function validUserinfo(s: string): boolean {
  for (const ch of s) {
    if (isAlnum(ch.charCodeAt(0)) && ch.length === 1) continue;
    if ("-._:~!$&'()*+,;=%@".includes(ch)) continue;
    return false;
  }
  return true;
}

function parseHost(scheme: string, host: string): string {
  const open = host.lastIndexOf("[");
  if (open > 0) throw new GoURLError("invalid IP-literal");
  if (open === 0) {
    const close = host.lastIndexOf("]");
    if (close < 0) throw new GoURLError("missing ']' in host");
    const colonPort = host.slice(close + 1);
    if (!validOptionalPort(colonPort)) throw new GoURLError(`invalid port ${goQuote(colonPort)} after host`);
    const unescapedColonPort = unescape(colonPort, "host");
    const hostname = host.slice(1, close);
    let unescapedHostname: string;
    const zone = hostname.indexOf("%25");
    if (zone >= 0) {
      unescapedHostname = unescape(hostname.slice(0, zone), "host") + unescape(hostname.slice(zone), "zone");
    } else {
      unescapedHostname = unescape(hostname, "host");
    }
    // Only an IPv6 address may be enclosed by square brackets (IPv4-mapped ones included).
    try {
      if (parseAddr(unescapedHostname).is4) throw new GoURLError("invalid IP-literal");
    } catch (e) {
      if (e instanceof GoParseError) throw new GoURLError(`invalid host: ${e.message}`);
      throw e;
    }
    return "[" + unescapedHostname + "]" + unescapedColonPort;
  }
  let i = host.indexOf(":");
  if (i !== -1) {
    const last = host.lastIndexOf(":");
    // Colons in the host: strict for http and https, the last one starts the port otherwise.
    if (last !== i && scheme !== "http" && scheme !== "https") i = last;
    const colonPort = host.slice(i);
    if (!validOptionalPort(colonPort)) throw new GoURLError(`invalid port ${goQuote(colonPort)} after host`);
  }
  return unescape(host, "host");
}

function parseAuthority(scheme: string, authority: string): [GoURL["user"], string] {
  const i = authority.lastIndexOf("@");
  const host = parseHost(scheme, i < 0 ? authority : authority.slice(i + 1));
  if (i < 0) return [undefined, host];
  const userinfo = authority.slice(0, i);
  if (!validUserinfo(userinfo)) throw new GoURLError("net/url: invalid userinfo");
  const colon = userinfo.indexOf(":");
  if (colon < 0) return [{ username: unescape(userinfo, "userPassword"), password: undefined }, host];
  return [
    {
      username: unescape(userinfo.slice(0, colon), "userPassword"),
      password: unescape(userinfo.slice(colon + 1), "userPassword"),
    },
    host,
  ];
}

function setPath(u: GoURL, p: string): void {
  const path = unescape(p, "path");
  u.path = path;
  u.rawPath = escape(path, "path") === p ? "" : p;
}

function parse(raw: string, viaRequest: boolean): GoURL {
  if (containsCTL(raw)) throw new GoURLError("net/url: invalid control character in URL");
  if (raw === "" && viaRequest) throw new GoURLError("empty url");
  const u: GoURL = {
    scheme: "",
    opaque: "",
    user: undefined,
    host: "",
    path: "",
    rawPath: "",
    omitHost: false,
    forceQuery: false,
    rawQuery: "",
    fragment: "",
    rawFragment: "",
  };
  if (raw === "*") {
    u.path = "*";
    return u;
  }
  let [scheme, rest] = getScheme(raw);
  u.scheme = scheme.toLowerCase();
  if (rest.endsWith("?") && rest.indexOf("?") === rest.length - 1) {
    u.forceQuery = true;
    rest = rest.slice(0, -1);
  } else {
    const q = rest.indexOf("?");
    if (q >= 0) {
      u.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith("/")) {
    if (u.scheme !== "") {
      u.opaque = rest;
      return u;
    }
    if (viaRequest) throw new GoURLError("invalid URI for request");
    const slash = rest.indexOf("/");
    const segment = slash < 0 ? rest : rest.slice(0, slash);
    if (segment.includes(":")) throw new GoURLError("first path segment in URL cannot contain colon");
  }
  if ((u.scheme !== "" || (!viaRequest && !rest.startsWith("///"))) && rest.startsWith("//")) {
    let authority = rest.slice(2);
    rest = "";
    const i = authority.indexOf("/");
    if (i >= 0) {
      rest = authority.slice(i);
      authority = authority.slice(0, i);
    }
    [u.user, u.host] = parseAuthority(u.scheme, authority);
  } else if (u.scheme !== "" && rest.startsWith("/")) {
    u.omitHost = true;
  }
  setPath(u, rest);
  return u;
}

const wrap = (raw: string, f: () => GoURL): GoURL => {
  try {
    return f();
  } catch (e) {
    if (e instanceof GoURLError) throw new GoURLError(`parse ${goQuote(raw)}: ${e.message}`);
    throw e;
  }
};

/** Go `url.ParseRequestURI`; throws {@link GoURLError} with `*url.Error` text (`parse "…": …`). */
export function parseRequestURI(raw: string): GoURL {
  return wrap(raw, () => parse(raw, true));
}

/** Go `url.Parse`; throws {@link GoURLError} with `*url.Error` text. */
export function parseURL(raw: string): GoURL {
  const hash = raw.indexOf("#");
  const u0 = hash < 0 ? raw : raw.slice(0, hash);
  const u = wrap(u0, () => parse(u0, false));
  if (hash < 0) return u;
  const frag = raw.slice(hash + 1);
  if (frag === "") return u;
  return wrap(raw, () => {
    u.fragment = unescape(frag, "fragment");
    u.rawFragment = escape(u.fragment, "fragment") === frag ? "" : frag;
    return u;
  });
}

function validEncoded(s: string, mode: Mode): boolean {
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if ("!$&'()*+,;=:@[]%".includes(ch)) continue;
    const c = s.charCodeAt(i);
    // Non-ASCII: every UTF-8 byte of it needs escaping.
    if (c >= 0x80 || shouldEscape(c, mode)) return false;
  }
  return true;
}

/** `URL.EscapedPath`. */
export function escapedPath(u: GoURL): string {
  if (u.rawPath !== "" && validEncoded(u.rawPath, "path")) {
    try {
      if (unescape(u.rawPath, "path") === u.path) return u.rawPath;
    } catch (e) {
      if (!(e instanceof GoURLError)) throw e;
    }
  }
  if (u.path === "*") return "*";
  return escape(u.path, "path");
}

function escapedFragment(u: GoURL): string {
  if (u.rawFragment !== "" && validEncoded(u.rawFragment, "fragment")) {
    try {
      if (unescape(u.rawFragment, "fragment") === u.fragment) return u.rawFragment;
    } catch (e) {
      if (!(e instanceof GoURLError)) throw e;
    }
  }
  return escape(u.fragment, "fragment");
}

function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let port = "";
  const colon = host.lastIndexOf(":");
  if (colon !== -1 && validOptionalPort(host.slice(colon))) {
    port = host.slice(colon + 1);
    host = host.slice(0, colon);
  }
  if (host.startsWith("[") && host.endsWith("]")) host = host.slice(1, -1);
  return [host, port];
}

/** `URL.Hostname`. */
export const hostname = (u: GoURL): string => splitHostPort(u.host)[0];
/** `URL.Port`. */
export const port = (u: GoURL): string => splitHostPort(u.host)[1];

/** `URL.Query` (`ParseQuery`, malformed pairs dropped), keys in first-seen order. */
export function query(u: GoURL): Map<string, string[]> {
  const m = new Map<string, string[]>();
  let q = u.rawQuery;
  while (q !== "") {
    const amp = q.indexOf("&");
    let key = amp < 0 ? q : q.slice(0, amp);
    q = amp < 0 ? "" : q.slice(amp + 1);
    if (key.includes(";") || key === "") continue;
    const eq = key.indexOf("=");
    let value = "";
    if (eq >= 0) {
      value = key.slice(eq + 1);
      key = key.slice(0, eq);
    }
    try {
      key = unescape(key, "queryComponent");
      value = unescape(value, "queryComponent");
    } catch (e) {
      if (e instanceof GoURLError) continue;
      throw e;
    }
    const list = m.get(key);
    if (list === undefined) m.set(key, [value]);
    else list.push(value);
  }
  return m;
}

/** `URL.String`. */
export function urlString(u: GoURL): string {
  let buf = "";
  if (u.scheme !== "") buf += u.scheme + ":";
  if (u.opaque !== "") {
    buf += u.opaque;
  } else {
    if (u.scheme !== "" || u.host !== "" || u.user !== undefined) {
      if (u.omitHost && u.host === "" && u.user === undefined) {
        // Omit the empty authority.
      } else {
        if (u.host !== "" || u.path !== "" || u.user !== undefined) buf += "//";
        if (u.user !== undefined) {
          buf += escape(u.user.username, "userPassword");
          if (u.user.password !== undefined) buf += ":" + escape(u.user.password, "userPassword");
          buf += "@";
        }
        if (u.host !== "") buf += escape(u.host, "host");
      }
    }
    const path = escapedPath(u);
    if (path !== "" && path[0] !== "/" && u.host !== "") buf += "/";
    if (buf === "") {
      const slash = path.indexOf("/");
      const segment = slash < 0 ? path : path.slice(0, slash);
      if (segment.includes(":")) buf += "./";
    }
    buf += path;
  }
  if (u.forceQuery || u.rawQuery !== "") buf += "?" + u.rawQuery;
  if (u.fragment !== "") buf += "#" + escapedFragment(u);
  return buf;
}
