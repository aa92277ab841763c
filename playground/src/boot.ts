/** What main.ts prepares before the page's UI code loads: the worker, the first state and its evaluation. */
import { findSample, SAMPLES } from "./gallery.js";
import { decodeFragment, EMPTY, type State } from "./state.js";
import type { Job } from "./protocol.js";
import type { Outcome, WorkerClient } from "./worker-client.js";

export interface Initial {
  readonly state: State;
  /** The gallery sample it is, when it is one. */
  readonly sample?: string;
  /** Something to tell about the fragment (unknown sample, unreadable link). */
  readonly message?: string;
}

export interface Boot {
  readonly worker: WorkerClient;
  readonly initial: Initial;
  readonly firstEval: { readonly key: string; readonly outcome: Promise<Outcome> };
}

export function sampleState(name: string): State | undefined {
  const s = findSample(name);
  if (s === undefined) return undefined;
  return { ...EMPTY, ...s.state, view: s.state.gatekeeper !== undefined && s.state.policies === undefined ? "translate" : "eval" };
}

/** The state the URL fragment names (`#example=<name>`, `#s=<compressed state>`), else the quick start. */
export async function initialState(): Promise<Initial> {
  const f = await decodeFragment(location.hash);
  if (f.example !== undefined) {
    const st = sampleState(f.example);
    if (st !== undefined) return { state: st, sample: f.example };
    return { state: sampleState("quick-start")!, sample: "quick-start", message: `no sample named ${JSON.stringify(f.example)}; the samples are: ${SAMPLES.map((s) => s.name).join(", ")}` };
  }
  if (f.state !== undefined) return { state: { ...EMPTY, ...f.state }, ...(f.error !== undefined ? { message: f.error } : {}) };
  return { state: sampleState("quick-start")!, sample: "quick-start", ...(f.error !== undefined ? { message: f.error } : {}) };
}

export function evalJob(s: State): Job {
  return { kind: "eval", input: { policies: s.policies, namespaces: s.namespaces, resources: s.resources, operation: s.operation, username: s.username, groups: s.groups, oldObject: s.oldObject } };
}
