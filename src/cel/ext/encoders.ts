/**
 * cel-go's encoders extension (`ext.Encoders`): `base64.encode(bytes)` and
 * `base64.decode(string)`. Decoding is Go's `base64.StdEncoding` (padded;
 * `\r` and `\n` ignored), falling back to the unpadded `RawStdEncoding` when
 * the padded decode finds corrupt input.
 */
import { func, overload, type Library } from "../decls.js";
import { CelEvalError } from "../errors.js";
import { BYTES, STRING } from "../types.js";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const DECODE = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) DECODE[ALPHABET.charCodeAt(i)] = i;

export function base64Encode(bytes: Uint8Array): string {
  let out = "";
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + ALPHABET[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + "==";
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += ALPHABET[n >> 18]! + ALPHABET[(n >> 12) & 63]! + ALPHABET[(n >> 6) & 63]! + "=";
  }
  return out;
}

class Corrupt extends Error {
  constructor(readonly offset: number) {
    super(`illegal base64 data at input byte ${offset}`);
  }
}

/** Go's base64 decoding of `s` (as UTF-8 bytes), padded or raw. Throws {@link Corrupt}. */
function decode(s: string, padded: boolean): Uint8Array {
  const input = new TextEncoder().encode(s);
  const out: number[] = [];
  let si = 0;
  const next = (): number => {
    while (si < input.length && (input[si] === 0x0a || input[si] === 0x0d)) si++;
    return si < input.length ? input[si]! : -1;
  };
  for (;;) {
    const quantum: number[] = [];
    let j = 0;
    for (; j < 4; j++) {
      const c = next();
      if (c === -1) {
        if (j === 0) return Uint8Array.from(out);
        if (j === 1 || padded) throw new Corrupt(si - j);
        break;
      }
      const at = si;
      si++;
      if (c === 0x3d /* '=' */ && padded) {
        // Padding: only in the last two positions of a quantum, and nothing but newlines after.
        if (j < 2) throw new Corrupt(at);
        if (j === 2) {
          const c2 = next();
          if (c2 === -1) throw new Corrupt(input.length);
          if (c2 !== 0x3d) throw new Corrupt(si);
          si++;
        }
        if (next() !== -1) throw new Corrupt(si);
        break;
      }
      const v = c < 128 ? DECODE[c]! : -1;
      if (v === -1) throw new Corrupt(at);
      quantum.push(v);
    }
    const n = quantum.length;
    const bits = (quantum[0]! << 18) | ((quantum[1] ?? 0) << 12) | ((quantum[2] ?? 0) << 6) | (quantum[3] ?? 0);
    out.push((bits >> 16) & 255);
    if (n >= 3) out.push((bits >> 8) & 255);
    if (n >= 4) out.push(bits & 255);
    if (n < 4) return Uint8Array.from(out);
  }
}

export function base64Decode(s: string): Uint8Array {
  try {
    return decode(s, true);
  } catch (e) {
    if (!(e instanceof Corrupt)) throw e;
  }
  try {
    return decode(s, false);
  } catch (e) {
    if (e instanceof Corrupt) throw new CelEvalError(e.message);
    throw e;
  }
}

export const ENCODERS_LIBRARY: Library = {
  name: "cel.lib.ext.encoders",
  functions: [
    func("base64.decode", overload("base64_decode_string", [STRING], BYTES, base64Decode)),
    func("base64.encode", overload("base64_encode_bytes", [BYTES], STRING, base64Encode)),
  ],
};
