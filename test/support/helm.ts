/**
 * The Helm chart rendered without helm: OUR renderer of the Go-template subset the chart uses
 * (`{{ .Values.x }}`, `.Release`/`.Chart` fields, `define`/`include` of simple names,
 * `if`/`else`/`end`, `range` over lists, `toYaml`, `nindent`, `quote`, `default`, `{{-`/`-}}`
 * trimming). Used by test/deploy.test.ts (schema validation, manifests in sync) and the e2e suite
 * (the rendered objects created with server-side dry-run). Keep the chart to this subset.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { parseDocuments } from "../../src/io/load.js";

const chartDir = join(resolve(import.meta.dirname, "../.."), "deploy/helm/celmap");

// ---------------------------------------------------------------------------------------------
// The Go-template subset

type Node =
  | { t: "text"; v: string }
  | { t: "action"; p: string }
  | { t: "if"; cond: string; then: Node[]; else: Node[] }
  | { t: "range"; expr: string; body: Node[] }
  | { t: "define"; name: string; body: Node[] };

function tokenize(src: string): ({ t: "text"; v: string } | { t: "tag"; v: string })[] {
  const out: ({ t: "text"; v: string } | { t: "tag"; v: string })[] = [];
  let i = 0;
  while (i < src.length) {
    const open = src.indexOf("{{", i);
    if (open < 0) {
      out.push({ t: "text", v: src.slice(i) });
      break;
    }
    const close = src.indexOf("}}", open);
    if (close < 0) throw new Error(`unclosed action at ${open}`);
    let text = src.slice(i, open);
    let inner = src.slice(open + 2, close);
    if (inner.startsWith("-")) {
      text = text.replace(/\s+$/, "");
      inner = inner.slice(1);
    }
    let next = close + 2;
    if (inner.endsWith("-")) {
      inner = inner.slice(0, -1);
      while (next < src.length && /\s/.test(src[next]!)) next++;
    }
    out.push({ t: "text", v: text }, { t: "tag", v: inner.trim() });
    i = next;
  }
  return out;
}

export function parseTemplate(src: string): Node[] {
  const tokens = tokenize(src);
  let pos = 0;
  const block = (): { nodes: Node[]; end: "end" | "else" | "eof" } => {
    const nodes: Node[] = [];
    while (pos < tokens.length) {
      const tok = tokens[pos++]!;
      if (tok.t === "text") {
        if (tok.v !== "") nodes.push({ t: "text", v: tok.v });
        continue;
      }
      const v = tok.v;
      if (v.startsWith("/*")) continue;
      if (v === "end") return { nodes, end: "end" };
      if (v === "else") return { nodes, end: "else" };
      let m: RegExpExecArray | null;
      if ((m = /^if\s+(.+)$/.exec(v)) !== null) {
        const a = block();
        let els: Node[] = [];
        if (a.end === "else") {
          const b = block();
          if (b.end !== "end") throw new Error("if/else without end");
          els = b.nodes;
        } else if (a.end !== "end") throw new Error("if without end");
        nodes.push({ t: "if", cond: m[1]!, then: a.nodes, else: els });
      } else if ((m = /^range\s+(.+)$/.exec(v)) !== null) {
        const a = block();
        if (a.end !== "end") throw new Error("range without end");
        nodes.push({ t: "range", expr: m[1]!, body: a.nodes });
      } else if ((m = /^define\s+"([^"]+)"$/.exec(v)) !== null) {
        const a = block();
        if (a.end !== "end") throw new Error("define without end");
        nodes.push({ t: "define", name: m[1]!, body: a.nodes });
      } else if (/^(with|else if|template|block)\b/.test(v) || v.includes("$") && !/^\$(\.|$)/.test(v)) {
        throw new Error(`outside the supported subset: {{ ${v} }}`);
      } else nodes.push({ t: "action", p: v });
    }
    return { nodes, end: "eof" };
  };
  const r = block();
  if (r.end !== "eof") throw new Error(`unexpected {{ ${r.end} }}`);
  return r.nodes;
}

interface Scope {
  readonly root: Record<string, unknown>;
  readonly dot: unknown;
  readonly defines: Map<string, Node[]>;
}

function truthy(v: unknown): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === "") return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object") return Object.keys(v).length > 0;
  return true;
}

/** Splits on spaces outside double quotes. */
function words(s: string): string[] {
  return s.match(/"(?:[^"\\]|\\.)*"|\S+/g) ?? [];
}

function operand(w: string, sc: Scope): unknown {
  if (w.startsWith('"')) return JSON.parse(w) as unknown;
  if (/^-?\d+$/.test(w)) return Number(w);
  if (w === "true" || w === "false") return w === "true";
  if (w === ".") return sc.dot;
  if (w === "$") return sc.root;
  if (w.startsWith(".") || w.startsWith("$.")) {
    let cur: unknown = w.startsWith("$") ? sc.root : sc.dot;
    for (const part of w.replace(/^\$/, "").slice(1).split(".")) {
      if (cur === null || typeof cur !== "object") return undefined;
      cur = (cur as Record<string, unknown>)[part];
    }
    return cur;
  }
  throw new Error(`outside the supported subset: operand ${w}`);
}

function toYaml(v: unknown): string {
  if (v === undefined || v === null) return "null";
  return stringifyYaml(v, { lineWidth: 0 }).replace(/\n$/, "");
}

function callFn(name: string, args: unknown[], sc: Scope): unknown {
  switch (name) {
    case "include": {
      const body = sc.defines.get(String(args[0]));
      if (body === undefined) throw new Error(`include of undefined template ${String(args[0])}`);
      return exec(body, { ...sc, dot: args[1] });
    }
    case "toYaml":
      return toYaml(args[0]);
    case "nindent":
      return "\n" + String(args[1]).split("\n").map((l) => " ".repeat(Number(args[0])) + l).join("\n");
    case "quote":
      return JSON.stringify(args[0] === undefined || args[0] === null ? "" : String(args[0]));
    case "default":
      return truthy(args[1]) ? args[1] : args[0];
    default:
      throw new Error(`outside the supported subset: function ${name}`);
  }
}

function pipeline(p: string, sc: Scope): unknown {
  let result: unknown;
  p.split("|").forEach((cmd, i) => {
    const ws = words(cmd.trim());
    const head = ws[0]!;
    if (/^[a-zA-Z]/.test(head) && head !== "true" && head !== "false") {
      const args = ws.slice(1).map((w) => operand(w, sc));
      if (i > 0) args.push(result);
      result = callFn(head, args, sc);
    } else {
      if (i > 0 || ws.length !== 1) throw new Error(`outside the supported subset: ${cmd}`);
      result = operand(head, sc);
    }
  });
  return result;
}

function exec(nodes: Node[], sc: Scope): string {
  let out = "";
  for (const n of nodes) {
    switch (n.t) {
      case "text":
        out += n.v;
        break;
      case "action": {
        const v = pipeline(n.p, sc);
        out += v === undefined || v === null ? "" : typeof v === "object" ? JSON.stringify(v) : String(v);
        break;
      }
      case "if":
        out += exec(truthy(pipeline(n.cond, sc)) ? n.then : n.else, sc);
        break;
      case "range": {
        const list = pipeline(n.expr, sc);
        if (list !== undefined && list !== null && !Array.isArray(list)) throw new Error("range over a non-list");
        for (const item of (list as unknown[] | undefined) ?? []) out += exec(n.body, { ...sc, dot: item });
        break;
      }
      case "define":
        break;
    }
  }
  return out;
}

function collectDefines(nodes: Node[], into: Map<string, Node[]>): void {
  for (const n of nodes) if (n.t === "define") into.set(n.name, n.body);
}

function deepMerge(a: unknown, b: unknown): unknown {
  if (a !== null && b !== null && typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
    const out: Record<string, unknown> = { ...(a as Record<string, unknown>) };
    for (const [k, v] of Object.entries(b as Record<string, unknown>)) out[k] = deepMerge(out[k], v);
    return out;
  }
  return b === undefined ? a : b;
}

/** `helm template <release> deploy/helm/celmap -n <namespace> --set ...` with our renderer. */
export function renderChart(release: string, namespace: string, overrides: Record<string, unknown> = {}): string {
  const chart = parseYaml(readFileSync(join(chartDir, "Chart.yaml"), "utf8")) as Record<string, unknown>;
  const values = deepMerge(parseYaml(readFileSync(join(chartDir, "values.yaml"), "utf8")), overrides);
  const files = readdirSync(join(chartDir, "templates")).sort();
  const defines = new Map<string, Node[]>();
  const parsed = files.map((f) => ({ f, nodes: parseTemplate(readFileSync(join(chartDir, "templates", f), "utf8")) }));
  for (const p of parsed) collectDefines(p.nodes, defines);
  const root = {
    Values: values,
    Release: { Name: release, Namespace: namespace, Service: "Helm" },
    Chart: { Name: chart["name"], Version: chart["version"], AppVersion: chart["appVersion"] },
  };
  const out: string[] = [];
  for (const p of parsed) {
    if (p.f.startsWith("_") || !p.f.endsWith(".yaml")) continue;
    const text = exec(p.nodes, { root, dot: root, defines }).trim();
    if (text !== "") out.push(`# Source: celmap/templates/${p.f}\n${text}\n`);
  }
  return out.map((t) => `---\n${t}`).join("");
}

export function documents(text: string, file: string): Record<string, unknown>[] {
  const r = parseDocuments(text, file);
  if (r.errors.length > 0) throw new Error(r.errors.map((e) => `${e.line}: ${e.message}`).join("\n"));
  return r.documents.map((d) => d.value).filter((v): v is Record<string, unknown> => v !== null && typeof v === "object");
}
