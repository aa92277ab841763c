/**
 * ANSI colours for terminal output. Colour is used only when the stream is a terminal and the
 * `NO_COLOR` environment variable is unset or empty (https://no-color.org).
 */
export interface Palette {
  readonly red: (s: string) => string;
  readonly green: (s: string) => string;
  readonly yellow: (s: string) => string;
  readonly cyan: (s: string) => string;
  readonly dim: (s: string) => string;
  readonly bold: (s: string) => string;
}

const plain = (s: string): string => s;
const sgr = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;

export const NO_COLOR_PALETTE: Palette = { red: plain, green: plain, yellow: plain, cyan: plain, dim: plain, bold: plain };
export const ANSI_PALETTE: Palette = {
  red: sgr(31, 39),
  green: sgr(32, 39),
  yellow: sgr(33, 39),
  cyan: sgr(36, 39),
  dim: sgr(2, 22),
  bold: sgr(1, 22),
};

/** Whether to colour a stream: a TTY, and NO_COLOR unset or empty. */
export function colorWanted(isTTY: boolean | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  const noColor = env["NO_COLOR"];
  return isTTY === true && (noColor === undefined || noColor === "");
}

export function palette(color: boolean): Palette {
  return color ? ANSI_PALETTE : NO_COLOR_PALETTE;
}
