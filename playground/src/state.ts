/**
 * The page's whole state, and its URL fragment form: `#s=<base64url(deflate-raw(JSON))>`
 * (CompressionStream), so a link reproduces a case. `#example=<name>` opens a gallery sample.
 */
import type { Operation } from "../../src/admission/index.js";
import type { KubernetesEnvKind } from "../../src/admission/environment.js";

export type View = "eval" | "cel" | "translate";
export type OutputTab = "admitted" | "diff" | "patch" | "trace" | "json";

export interface State {
  readonly view: View;
  readonly output: OutputTab;
  readonly policies: string;
  readonly namespaces: string;
  readonly resources: string;
  readonly operation: Operation;
  readonly username: string;
  readonly groups: string;
  readonly oldObject: string;
  readonly celExpression: string;
  readonly celEnv: KubernetesEnvKind;
  readonly celVars: string;
  readonly gatekeeper: string;
}

export const DEFAULT_CEL = {
  celExpression: "object.spec.containers.map(c, c.image)",
  celEnv: "mutation" as KubernetesEnvKind,
  celVars: `object:
  apiVersion: v1
  kind: Pod
  metadata:
    name: web
    labels: {app: web}
  spec:
    containers:
      - name: nginx
        image: nginx:1.27
      - name: proxy
        image: envoyproxy/envoy:v1.30.1
`,
};

export const EMPTY: State = {
  view: "eval",
  output: "admitted",
  policies: "",
  namespaces: "",
  resources: "",
  operation: "CREATE",
  username: "",
  groups: "",
  oldObject: "",
  gatekeeper: "",
  ...DEFAULT_CEL,
};

function toBase64Url(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array {
  const s = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

async function pipe(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const out = new Response(new Blob([bytes as BlobPart]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

export async function encodeState(state: State): Promise<string> {
  const json = new TextEncoder().encode(JSON.stringify(state));
  return `s=${toBase64Url(await pipe(json, new CompressionStream("deflate-raw")))}`;
}

/** The state a fragment names; an error message when it cannot be read. */
export async function decodeFragment(fragment: string): Promise<{ state?: Partial<State>; example?: string; error?: string }> {
  const params = new URLSearchParams(fragment.replace(/^#/, ""));
  const example = params.get("example");
  if (example !== null) return { example };
  const s = params.get("s");
  if (s === null) return {};
  try {
    const json = new TextDecoder().decode(await pipe(fromBase64Url(s), new DecompressionStream("deflate-raw")));
    const v = JSON.parse(json) as unknown;
    if (typeof v !== "object" || v === null || Array.isArray(v)) return { error: "the link's state is not an object" };
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (k in EMPTY && typeof x === typeof EMPTY[k as keyof State]) out[k] = x;
    return { state: out as Partial<State> };
  } catch (e) {
    return { error: `the link's state cannot be read (${e instanceof Error ? e.message : String(e)})` };
  }
}
