/**
 * CodeMirror 6 editors: YAML with CEL marks, the CEL scratchpad, problems shown at their line.
 * An editor's view is created when its pane is first shown (`materialize`), so the first result
 * does not wait for editors nobody looks at; until then it holds its text.
 */
import { basicSetup } from "codemirror";
import { yaml } from "@codemirror/lang-yaml";
import { EditorState, type Extension } from "@codemirror/state";
import { EditorView } from "@codemirror/view";
import { lintGutter, setDiagnostics, type Diagnostic } from "@codemirror/lint";
import { celInYaml, celMarks } from "./cel-highlight.js";

export interface EditorProblem {
  readonly line?: number;
  readonly message: string;
}

export interface Editor {
  text(): string;
  setText(text: string): void;
  /** Shows these problems (1-based lines; a problem without a line goes on line 1). */
  showProblems(problems: readonly EditorProblem[]): void;
  /** Creates the view if needed and returns it. */
  materialize(): EditorView;
  readonly created: boolean;
}

export function createEditor(parent: HTMLElement, opts: { language: "yaml" | "cel"; name: string; onChange: () => void }): Editor {
  let view: EditorView | undefined;
  let text = "";
  let problems: readonly EditorProblem[] = [];
  parent.dataset["editor"] = opts.name;

  const apply = (v: EditorView): void => {
    const doc = v.state.doc;
    const diagnostics: Diagnostic[] = problems.map((p) => {
      const line = doc.line(Math.min(Math.max(p.line ?? 1, 1), doc.lines));
      const indent = /^\s*/.exec(line.text)![0].length;
      return { from: line.from + Math.min(indent, line.length), to: line.to, severity: "error", message: p.message };
    });
    v.dispatch(setDiagnostics(v.state, diagnostics));
  };

  const materialize = (): EditorView => {
    if (view !== undefined) return view;
    const extensions: Extension[] = [
      basicSetup,
      lintGutter(),
      opts.language === "yaml" ? [yaml(), celInYaml()] : celMarks(),
      EditorView.updateListener.of((u) => {
        if (u.docChanged) opts.onChange();
      }),
      EditorView.contentAttributes.of({ "aria-label": `${opts.name} editor` }),
    ];
    view = new EditorView({ parent, state: EditorState.create({ doc: text, extensions }) });
    apply(view);
    return view;
  };

  return {
    get created() {
      return view !== undefined;
    },
    materialize,
    text: () => (view !== undefined ? view.state.doc.toString() : text),
    setText(t: string) {
      text = t;
      if (view === undefined || t === view.state.doc.toString()) return;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: t } });
    },
    showProblems(list) {
      problems = list;
      if (view !== undefined) apply(view);
    },
  };
}
