/**
 * CEL highlighting: a stream language for the scratchpad, and marks on the CEL expressions inside
 * the YAML editors (the values of `expression`, `messageExpression`, `key`/`valueExpression` keys,
 * inline or as block scalars).
 */
import { StreamLanguage, type StringStream } from "@codemirror/language";
import { RangeSetBuilder, type Extension } from "@codemirror/state";
import { Decoration, ViewPlugin, type DecorationSet, type EditorView, type ViewUpdate } from "@codemirror/view";

const KEYWORDS = new Set(["true", "false", "null", "in"]);
const TOKEN = /\s+|"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?[uU]?|0x[0-9a-fA-F]+|[A-Za-z_][\w]*|&&|\|\||[=!<>]=|[-+*/%!<>?:.,()[\]{}]|\S/y;

type Kind = "string" | "number" | "keyword" | "function" | "type" | "variable" | "operator" | null;

function classify(tok: string, next: string): Kind {
  if (/^\s/.test(tok)) return null;
  if (tok[0] === '"' || tok[0] === "'") return "string";
  if (/^\d/.test(tok)) return "number";
  if (KEYWORDS.has(tok)) return "keyword";
  if (/^[A-Za-z_]/.test(tok)) {
    if (/^\s*\(/.test(next)) return "function";
    if (/^[A-Z]/.test(tok)) return "type";
    return "variable";
  }
  return "operator";
}

/** The scratchpad's language. */
export const celLanguage = StreamLanguage.define<object>({
  name: "cel",
  token(stream: StringStream): string | null {
    TOKEN.lastIndex = 0;
    const rest = stream.string.slice(stream.pos);
    const m = TOKEN.exec(rest);
    if (m === null || m[0] === "") {
      stream.next();
      return null;
    }
    stream.pos += m[0].length;
    const k = classify(m[0], rest.slice(m[0].length));
    return k === "type" ? "typeName" : k === "function" ? "propertyName" : k === "variable" ? "variableName" : k;
  },
});

const marks: Record<Exclude<Kind, null>, Decoration> = {
  string: Decoration.mark({ class: "cel-string" }),
  number: Decoration.mark({ class: "cel-number" }),
  keyword: Decoration.mark({ class: "cel-keyword" }),
  function: Decoration.mark({ class: "cel-function" }),
  type: Decoration.mark({ class: "cel-type" }),
  variable: Decoration.mark({ class: "cel-variable" }),
  operator: Decoration.mark({ class: "cel-operator" }),
};
const region = Decoration.line({ class: "cel-line" });

const CEL_KEY = /^(\s*(?:-\s+)?)(expression|messageExpression|keyExpression|valueExpression|condition):\s*(.*)$/;

function tokenize(builder: { add(from: number, to: number, d: Decoration): void }, text: string, offset: number): void {
  let pos = 0;
  while (pos < text.length) {
    TOKEN.lastIndex = pos;
    const m = TOKEN.exec(text);
    if (m === null || m[0] === "") break;
    const k = classify(m[0], text.slice(pos + m[0].length));
    if (k !== null) builder.add(offset + pos, offset + pos + m[0].length, marks[k]);
    pos += m[0].length;
  }
}

function build(view: EditorView): DecorationSet {
  const doc = view.state.doc;
  const builder = new RangeSetBuilder<Decoration>();
  for (let n = 1; n <= doc.lines; n++) {
    const line = doc.line(n);
    const m = CEL_KEY.exec(line.text);
    if (m === null) continue;
    const value = m[3]!;
    const valueStart = line.to - value.length;
    if (/^[|>][-+0-9]*\s*(#.*)?$/.test(value)) {
      // Block scalar: the following lines indented deeper than the key.
      const keyIndent = m[1]!.length;
      let k = n + 1;
      for (; k <= doc.lines; k++) {
        const l = doc.line(k);
        if (l.text.trim() === "") continue;
        const indent = /^\s*/.exec(l.text)![0].length;
        if (indent <= keyIndent) break;
        builder.add(l.from, l.from, region);
        tokenize(builder, l.text.slice(indent), l.from + indent);
      }
      n = k - 1;
    } else if (value !== "") {
      builder.add(line.from, line.from, region);
      const quoted = /^(["'])(.*)\1\s*$/.exec(value);
      if (quoted !== null) tokenize(builder, quoted[2]!, valueStart + 1);
      else tokenize(builder, value, valueStart);
    }
  }
  return builder.finish();
}

/** Every line is CEL (the scratchpad). */
function buildAll(view: EditorView): DecorationSet {
  const doc = view.state.doc;
  const builder = new RangeSetBuilder<Decoration>();
  for (let n = 1; n <= doc.lines; n++) {
    const line = doc.line(n);
    tokenize(builder, line.text, line.from);
  }
  return builder.finish();
}

function marker(fn: (view: EditorView) => DecorationSet): Extension {
  return ViewPlugin.fromClass(
    class {
      decorations: DecorationSet;
      constructor(view: EditorView) {
        this.decorations = fn(view);
      }
      update(u: ViewUpdate): void {
        if (u.docChanged) this.decorations = fn(u.view);
      }
    },
    { decorations: (v) => v.decorations },
  );
}

/** Marks CEL inside YAML. */
export function celInYaml(): Extension {
  return marker(build);
}

/** Marks a whole CEL document (the scratchpad's expression). */
export function celMarks(): Extension {
  return [celLanguage, marker(buildAll)];
}
