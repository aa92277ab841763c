import { describe, expect, it } from "vitest";
import type { Library } from "../decls.js";
import { CelEvalError } from "../errors.js";
import { CelUint, type CelValue } from "../values.js";
import { stringToDuration, stringToTimestamp } from "../std/time.js";
import { listsLibrary } from "./lists.js";
import { SETS_LIBRARY } from "./sets.js";

function impl(lib: Library, id: string): (...args: any[]) => unknown {
  for (const f of lib.functions ?? []) for (const o of f.overloads) if (o.id === id) return o.impl!;
  throw new Error(`no overload ${id}`);
}
const lists = listsLibrary(3);
const call = (id: string, ...args: unknown[]) => impl(lists, id)(...args);
const err = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    if (e instanceof CelEvalError) return e.message;
    throw e;
  }
  throw new Error("expected a CelEvalError");
};

describe("lists versions", () => {
  const names = (v: number) => (listsLibrary(v).functions ?? []).map((f) => f.name);
  it("adds functions by version", () => {
    expect(names(0)).toEqual(["slice"]);
    expect(names(1)).toEqual(["slice", "flatten"]);
    expect(names(2)).toEqual(["slice", "flatten", "sort", "@sortByAssociatedKeys", "lists.range", "reverse", "distinct"]);
    expect(names(3)).toEqual(names(2));
  });
  it("uses cel-go's overload ids", () => {
    const ids = (lists.functions ?? []).flatMap((f) => f.overloads.map((o) => o.id));
    expect(ids).toContain("list_google.protobuf.Timestamp_sort");
    expect(ids).toContain("list_int_sortByAssociatedKeys");
    expect(ids).toContain("list_flatten_int");
  });
});

describe("lists functions", () => {
  it.each<[string, unknown[], unknown]>([
    ["list_slice", [[1n, 2n, 3n, 4n], 1n, 3n], [2n, 3n]],
    ["list_slice", [[1n, 2n, 3n, 4n], 0n, 0n], []],
    ["list_slice", [[1n, 2n, 3n, 4n], 4n, 4n], []],
    ["list_flatten", [[1n, [2n, [3n]], [], [[4n]]]], [1n, 2n, [3n], [4n]]],
    ["list_flatten_int", [[1n, [2n, [3n, [4n]]]], 0n], [1n, [2n, [3n, [4n]]]]],
    ["list_flatten_int", [[1n, [2n, [3n, [4n]]]], 2n], [1n, 2n, 3n, [4n]]],
    ["list_flatten_int", [[1n, [2n, [3n, [4n]]]], 10n], [1n, 2n, 3n, 4n]],
    ["lists_range", [4n], [0n, 1n, 2n, 3n]],
    ["lists_range", [0n], []],
    ["lists_range", [-3n], []],
    ["list_reverse", [[1n, "a", null]], [null, "a", 1n]],
    ["list_distinct", [[1n, 2n, 2n, 1n, 3n]], [1n, 2n, 3n]],
    ["list_distinct", [[1n, 1.0, new CelUint(1n), "1", [1n], [1.0]]], [1n, "1", [1n]]],
    ["list_distinct", [[]], []],
    ["list_int_sort", [[3n, 1n, 2n]], [1n, 2n, 3n]],
    ["list_string_sort", [["b", "a", "😀", "\uffff"]], ["a", "b", "\uffff", "😀"]],
    ["list_double_sort", [[2.5, -1, 0]], [-1, 0, 2.5]],
    ["list_bool_sort", [[true, false]], [false, true]],
    ["list_int_sortByAssociatedKeys", [["c", "a", "b", "a2"], [3n, 1n, 2n, 1n]], ["a", "a2", "b", "c"]],
    ["list_int_sort", [[]], []],
  ])("%s %#", (id, args, want) => {
    expect(call(id, ...args)).toEqual(want);
  });

  it("sorts timestamps, durations and bytes", () => {
    const t = (s: string) => stringToTimestamp(s);
    const [a, b] = [t("2020-01-01T00:00:00Z"), t("2019-01-01T00:00:00Z")];
    expect(call("list_google.protobuf.Timestamp_sort", [a, b])).toEqual([b, a]);
    const [x, y] = [stringToDuration("2s"), stringToDuration("1s")];
    expect(call("list_google.protobuf.Duration_sort", [x, y])).toEqual([y, x]);
    expect(call("list_bytes_sort", [new Uint8Array([2]), new Uint8Array([1, 9])])).toEqual([new Uint8Array([1, 9]), new Uint8Array([2])]);
  });

  it.each<[string, unknown[], string]>([
    ["list_slice", [[1n, 2n], -1n, 1n], "cannot slice(-1, 1), negative indexes not supported"],
    ["list_slice", [[1n, 2n], 2n, 1n], "cannot slice(2, 1), start index must be less than or equal to end index"],
    ["list_slice", [[1n, 2n], 0n, 3n], "cannot slice(0, 3), list is length 2"],
    ["list_flatten_int", [[[1n]], -1n], "level must be non-negative"],
    ["list_int_sort", [[1n, "a"]], "list elements must have the same type"],
    ["list_int_sort", [[1n, 1.5]], "list elements must have the same type"],
    ["list_int_sort", [[[1n], [2n]]], "list elements must be comparable"],
    ["list_int_sortByAssociatedKeys", [[1n], [1n, 2n]], "@sortByAssociatedKeys() expected a list of the same size as the associated keys list, but got 1 and 2 elements respectively"],
  ])("%s error %#", (id, args, want) => {
    expect(err(() => call(id, ...args))).toBe(want);
  });
});

describe("sets", () => {
  const s = (id: string, a: CelValue[], b: CelValue[]) => impl(SETS_LIBRARY, id)(a, b);
  it.each<[string, CelValue[], CelValue[], boolean]>([
    ["list_sets_contains_list", [], [], true],
    ["list_sets_contains_list", [1n], [], true],
    ["list_sets_contains_list", [], [1n], false],
    ["list_sets_contains_list", [1n, 2n, 3n], [3n, 1n], true],
    ["list_sets_contains_list", [1n, 2n], [2n, 2n, 2n], true],
    ["list_sets_contains_list", [1n], [1.0, new CelUint(1n)], true],
    ["list_sets_contains_list", [[1n], [2n, 3n]], [[2n, 3.0]], true],
    ["list_sets_contains_list", ["1"], [1n], false],
    ["list_sets_equivalent_list", [], [], true],
    ["list_sets_equivalent_list", [1n, 2n, 2n], [2n, 1n], true],
    ["list_sets_equivalent_list", [1n], [1n, 2n], false],
    ["list_sets_equivalent_list", [1n, 2.0, new CelUint(3n)], [new CelUint(1n), 2n, 3.0], true],
    ["list_sets_intersects_list", [], [], false],
    ["list_sets_intersects_list", [1n], [], false],
    ["list_sets_intersects_list", [1n, 2n], [2n, 3n], true],
    ["list_sets_intersects_list", [1n], [1.0], true],
    ["list_sets_intersects_list", [[1n]], [[1.0]], true],
    ["list_sets_intersects_list", [1n], [2n], false],
  ])("%s %#", (id, a, b, want) => {
    expect(s(id, a, b)).toBe(want);
  });
});

describe("Go sort.Slice", () => {
  it("sorts any input (pdqsort paths: insertion, partitions, heap fallback, patterns)", async () => {
    const { goSortSlice } = await import("./go-sort.js");
    let seed = 12345;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed;
    };
    for (const n of [0, 1, 2, 12, 13, 50, 51, 100, 1000]) {
      for (const shape of ["random", "sorted", "reversed", "dups", "sawtooth"]) {
        const data = Array.from({ length: n }, (_, i) =>
          shape === "random" ? rnd() % 1000 : shape === "sorted" ? i : shape === "reversed" ? n - i : shape === "dups" ? rnd() % 3 : i % 7,
        );
        const want = [...data].sort((a, b) => a - b);
        goSortSlice(
          n,
          (i, j) => data[i]! < data[j]!,
          (i, j) => {
            [data[i], data[j]] = [data[j]!, data[i]!];
          },
        );
        expect(data).toEqual(want);
      }
    }
  });
  it("sortBy keeps input order for equal keys on short lists (insertion sort)", () => {
    const keys = [2n, 1n, 2n, 1n, 0n];
    expect(call("list_int_sortByAssociatedKeys", ["a", "b", "c", "d", "e"], keys)).toEqual(["e", "b", "d", "a", "c"]);
  });
});
