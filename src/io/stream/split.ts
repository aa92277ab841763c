/**
 * Splitting a YAML stream into its documents line by line, without parsing them, numbered as the
 * `yaml` package numbers them (src/io/parse.ts's `file#N`): a `---` line starts a document (an empty
 * one when nothing follows), a `...` line ends one (an empty one when nothing came before it), and
 * other text before the first marker or after a `...` is a document only when it holds more than
 * comments and blank lines. Directives (`%YAML`)
 * stay with the document their `---` starts.
 */

export interface YamlChunk {
  /** 0-based document index in the file. */
  readonly docIndex: number;
  /** 1-based line of the chunk's first line in the file. */
  readonly startLine: number;
  /** The document's lines (markers included), each ending with "\n". */
  readonly text: string;
}

const START = /^---(?:[ \t]|$)/;
const END = /^\.\.\.(?:[ \t]|$)/;
const BLANK_OR_COMMENT = /^[ \t]*(?:#|$)/;

export class YamlSplitter {
  private lines: string[] = [];
  private explicit = false;
  private content = false;
  private directive = false;
  private startLine = 1;
  private lineNo = 0;
  private docIndex = 0;

  /** Feeds one line (without its "\n"; a trailing "\r" is kept); returns the chunks it completed. */
  push(line: string, out: YamlChunk[]): void {
    this.lineNo++;
    const bare = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (START.test(bare)) {
      if (this.directive && !this.content) {
        // `%YAML 1.2\n---`: the directive belongs to this document.
        this.directive = false;
        this.explicit = true;
        this.lines.push(line);
        if (!BLANK_OR_COMMENT.test(bare.slice(3))) this.content = true;
        return;
      }
      this.flush(out, this.lineNo);
      this.explicit = true;
      this.lines.push(line);
      if (!BLANK_OR_COMMENT.test(bare.slice(3))) this.content = true;
      return;
    }
    this.lines.push(line);
    if (END.test(bare)) {
      this.flush(out, this.lineNo + 1, true);
      return;
    }
    if (!this.content && bare.startsWith("%")) this.directive = true;
    else if (!BLANK_OR_COMMENT.test(bare)) this.content = true;
  }

  /** The last chunk, at the end of the text. */
  end(out: YamlChunk[]): void {
    this.flush(out, this.lineNo + 1);
  }

  private flush(out: YamlChunk[], nextStart: number, ended = false): void {
    if (ended || this.explicit || this.content || this.directive) {
      out.push({ docIndex: this.docIndex++, startLine: this.startLine, text: this.lines.length === 0 ? "" : `${this.lines.join("\n")}\n` });
    }
    this.lines = [];
    this.explicit = false;
    this.content = false;
    this.directive = false;
    this.startLine = nextStart;
  }
}

/** All chunks of a text (for tests and whole-text callers). */
export function splitYaml(text: string): YamlChunk[] {
  const out: YamlChunk[] = [];
  const s = new YamlSplitter();
  const ls = text.split("\n");
  if (ls[ls.length - 1] === "") ls.pop();
  for (const l of ls) s.push(l, out);
  s.end(out);
  return out;
}
