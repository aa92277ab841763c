/**
 * Kyverno's gzip library (`kyverno.gzip`, kyverno/sdk `extensions/cel/libs/gzip`):
 *
 * - `gzip.compress(dyn) → bytes` (the argument must be a string at run time):
 *   a gzip member with modification time 0 and OS 255, as Go's `gzip.Writer`
 *   writes it. The deflate stream here uses stored blocks: the bytes differ from
 *   Go's `compress/flate` output (a documented deviation) but decompress to the
 *   same data with any gzip reader.
 * - `gzip.decompress(bytes) → string`: RFC 1952/1951 (concatenated members
 *   accepted, as Go's reader does). Errors are Go's: `gzip: invalid header`,
 *   `unexpected EOF`, `gzip: invalid checksum`, `flate: corrupt input before offset N`.
 */
import { func, overload, type Library } from "../../cel/decls.js";
import { CelEvalError } from "../../cel/errors.js";
import { BYTES, DYN, STRING } from "../../cel/types.js";
import type { CelValue } from "../../cel/values.js";
import { fromUtf8, notAStringError, utf8 } from "./common.js";

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(data: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < data.length; i++) c = CRC_TABLE[(c ^ data[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export function gzipCompress(data: Uint8Array): Uint8Array {
  const blocks = Math.max(1, Math.ceil(data.length / 65535));
  const out = new Uint8Array(10 + data.length + blocks * 5 + 8);
  out.set([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);
  let p = 10;
  for (let b = 0; b < blocks; b++) {
    const chunk = data.subarray(b * 65535, Math.min(data.length, (b + 1) * 65535));
    out[p++] = b === blocks - 1 ? 1 : 0; // BFINAL, BTYPE=00
    out[p++] = chunk.length & 0xff;
    out[p++] = chunk.length >>> 8;
    out[p++] = ~chunk.length & 0xff;
    out[p++] = (~chunk.length >>> 8) & 0xff;
    out.set(chunk, p);
    p += chunk.length;
  }
  const view = new DataView(out.buffer);
  view.setUint32(p, crc32(data), true);
  view.setUint32(p + 4, data.length >>> 0, true);
  return out;
}

class Eof extends Error {}
class Corrupt extends Error {}

const LEN_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258];
const LEN_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0];
const DIST_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577];
const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13];
const CL_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/** A canonical Huffman decoder: counts per length and symbols in code order. */
interface Huffman {
  counts: number[];
  symbols: number[];
}

function huffman(lengths: readonly number[]): Huffman {
  const counts = new Array<number>(16).fill(0);
  for (const l of lengths) counts[l]!++;
  counts[0] = 0;
  const offs = new Array<number>(16).fill(0);
  for (let i = 1; i < 16; i++) offs[i] = offs[i - 1]! + counts[i - 1]!;
  const symbols = new Array<number>(lengths.length);
  lengths.forEach((l, s) => {
    if (l !== 0) symbols[offs[l]!++] = s;
  });
  return { counts, symbols };
}

class Inflater {
  private bit = 0;
  private bitCount = 0;
  readonly out: number[] = [];
  constructor(
    private readonly data: Uint8Array,
    public pos: number,
  ) {}

  private need(n: number): number {
    while (this.bitCount < n) {
      if (this.pos >= this.data.length) throw new Eof();
      this.bit |= this.data[this.pos++]! << this.bitCount;
      this.bitCount += 8;
    }
    const v = this.bit & ((1 << n) - 1);
    this.bit >>>= n;
    this.bitCount -= n;
    return v;
  }

  private decode(h: Huffman): number {
    let code = 0;
    let first = 0;
    let index = 0;
    for (let len = 1; len < 16; len++) {
      code |= this.need(1);
      const count = h.counts[len]!;
      if (code - count < first) return h.symbols[index + (code - first)]!;
      index += count;
      first += count;
      first <<= 1;
      code <<= 1;
    }
    throw new Corrupt();
  }

  run(): void {
    let final = 0;
    while (final === 0) {
      final = this.need(1);
      const type = this.need(2);
      if (type === 0) {
        this.bit = 0;
        this.bitCount = 0;
        if (this.pos + 4 > this.data.length) throw new Eof();
        const len = this.data[this.pos]! | (this.data[this.pos + 1]! << 8);
        const nlen = this.data[this.pos + 2]! | (this.data[this.pos + 3]! << 8);
        if (len !== (~nlen & 0xffff)) throw new Corrupt();
        this.pos += 4;
        if (this.pos + len > this.data.length) throw new Eof();
        for (let i = 0; i < len; i++) this.out.push(this.data[this.pos + i]!);
        this.pos += len;
      } else if (type === 1) {
        const l = new Array<number>(288);
        l.fill(8, 0, 144).fill(9, 144, 256).fill(7, 256, 280).fill(8, 280, 288);
        this.codes(huffman(l), huffman(new Array<number>(30).fill(5)));
      } else if (type === 2) {
        const hlit = this.need(5) + 257;
        const hdist = this.need(5) + 1;
        const hclen = this.need(4) + 4;
        const cl = new Array<number>(19).fill(0);
        for (let i = 0; i < hclen; i++) cl[CL_ORDER[i]!] = this.need(3);
        const clh = huffman(cl);
        const lengths: number[] = [];
        while (lengths.length < hlit + hdist) {
          const sym = this.decode(clh);
          if (sym < 16) lengths.push(sym);
          else if (sym === 16) {
            if (lengths.length === 0) throw new Corrupt();
            const prev = lengths[lengths.length - 1]!;
            for (let r = 3 + this.need(2); r > 0; r--) lengths.push(prev);
          } else if (sym === 17) for (let r = 3 + this.need(3); r > 0; r--) lengths.push(0);
          else for (let r = 11 + this.need(7); r > 0; r--) lengths.push(0);
        }
        if (lengths.length > hlit + hdist) throw new Corrupt();
        this.codes(huffman(lengths.slice(0, hlit)), huffman(lengths.slice(hlit)));
      } else throw new Corrupt();
    }
  }

  private codes(lit: Huffman, dist: Huffman): void {
    for (;;) {
      const sym = this.decode(lit);
      if (sym < 256) this.out.push(sym);
      else if (sym === 256) return;
      else {
        const li = sym - 257;
        if (li >= 29) throw new Corrupt();
        const len = LEN_BASE[li]! + this.need(LEN_EXTRA[li]!);
        const di = this.decode(dist);
        if (di >= 30) throw new Corrupt();
        const d = DIST_BASE[di]! + this.need(DIST_EXTRA[di]!);
        if (d > this.out.length) throw new Corrupt();
        for (let k = 0; k < len; k++) this.out.push(this.out[this.out.length - d]!);
      }
    }
  }
}

export function gzipDecompress(data: Uint8Array): Uint8Array {
  const chunks: number[] = [];
  let pos = 0;
  let member = 0;
  while (member === 0 || pos < data.length) {
    if (data.length - pos < 10) {
      if (member === 0 || data.length - pos > 0) throw new CelEvalError(member === 0 && data.length === 0 ? "EOF" : "unexpected EOF");
    }
    if (data[pos] !== 0x1f || data[pos + 1] !== 0x8b || data[pos + 2] !== 8) throw new CelEvalError("gzip: invalid header");
    const flg = data[pos + 3]!;
    let p = pos + 10;
    try {
      if (flg & 4) {
        if (p + 2 > data.length) throw new Eof();
        p += 2 + (data[p]! | (data[p + 1]! << 8));
      }
      for (const bit of [8, 16]) {
        if (flg & bit) {
          while (p < data.length && data[p] !== 0) p++;
          if (p >= data.length) throw new Eof();
          p++;
        }
      }
      if (flg & 2) p += 2;
      if (p > data.length) throw new Eof();
      const inf = new Inflater(data, p);
      inf.run();
      p = inf.pos;
      if (p + 8 > data.length) throw new Eof();
      const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
      const out = Uint8Array.from(inf.out);
      if (view.getUint32(p, true) !== crc32(out) || view.getUint32(p + 4, true) !== (out.length >>> 0)) {
        throw new CelEvalError("gzip: invalid checksum");
      }
      for (const b of out) chunks.push(b);
      pos = p + 8;
    } catch (e) {
      if (e instanceof Eof) throw new CelEvalError("unexpected EOF");
      if (e instanceof Corrupt) throw new CelEvalError(`flate: corrupt input before offset ${p - pos}`);
      throw e;
    }
    member++;
  }
  return Uint8Array.from(chunks);
}

function compress(v: CelValue): Uint8Array {
  if (typeof v !== "string") throw notAStringError(v);
  return gzipCompress(utf8(v));
}

export const GZIP_LIBRARY: Library = {
  name: "kyverno.gzip",
  functions: [
    func("gzip.decompress", overload("decompress_bytes_string", [BYTES], STRING, (b: Uint8Array) => fromUtf8(gzipDecompress(b)))),
    func("gzip.compress", overload("compress_any_bytes", [DYN], BYTES, compress)),
  ],
};
