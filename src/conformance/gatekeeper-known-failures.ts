/**
 * Ledger of Gatekeeper conformance cases that fail through translation + the MAP pipeline,
 * with the reason (each is a real difference between Gatekeeper and MAP, not a translator
 * bug). Paths are `<section>/<case name>`.
 */
import type { KnownFailure } from "./suite.js";

export const GATEKEEPER_KNOWN_FAILURES: readonly KnownFailure[] = [
  {
    path: "assign/assign/keyed-terminal/append",
    reason:
      "the case writes an unknown field (containers[].foo) into a built-in Pod; MAP strictly decodes JSON-patched built-in objects and aborts with 500 (map.md §4.3), Gatekeeper's webhook patch does not care",
  },
  {
    path: "assign/assign/create-deep-object-path",
    reason: "unknown field spec.element on a built-in Pod: MAP's strict decoding answers 500 (map.md §4.3); Gatekeeper writes it",
  },
  {
    path: "assign/assign/create-missing-list-and-keyed-element",
    reason: "unknown field spec.element on a built-in Pod: MAP's strict decoding answers 500 (map.md §4.3); Gatekeeper writes it",
  },
  {
    path: "assign/assign/quoted-integer-key-is-string",
    reason:
      "Gatekeeper appends {containerPort: \"8888\"} (a string key value) to a Pod; MAP decodes the patched Pod into its Go type and fails (containerPort is int32) — the apiserver would reject that object after Gatekeeper too",
  },
  {
    path: "system/system/mutation-annotations",
    reason: "--mutation-annotations writes a random UUID and the list of applied mutators; a MAP has neither (gatekeeper.md §5.8)",
  },
  {
    path: "match/match/source-generated-both",
    reason: "the case runs the System with source Generated (expansion); admission never does, and a MAP only runs at admission",
  },
  {
    path: "match/match/source-original-vs-generated",
    reason: "the case runs the System with source Generated (expansion); admission never does, and a MAP only runs at admission",
  },
];

export const GATEKEEPER_ORACLE_KNOWN_FAILURES: readonly KnownFailure[] = [];
