import { describe, expect, test } from "vitest";
import { SchemaRegistry, type SchemaNode } from "../../kube/schema.js";
import type { JsonValue } from "../json.js";
import { mergeValues } from "./merge.js";
import { typeContext, UNTYPED_ATOMIC, validate } from "./typed.js";

// The merge triplets of structured-merge-diff v6.3.3 typed/merge_test.go (lhs, rhs, expected
// output), with their schemas written as schema nodes.
const ctx = typeContext(SchemaRegistry.builtin(), false);
const string: SchemaNode = { t: "scalar", s: "string" };
const numeric: SchemaNode = { t: "scalar", s: "number" };
const boolean: SchemaNode = { t: "scalar", s: "boolean" };

type Triplet = [string, string, string];

function run(root: SchemaNode, triplets: Triplet[]): void {
  test.each(triplets)("%s + %s = %s", (lhs, rhs, out) => {
    const l = JSON.parse(lhs) as JsonValue;
    const r = JSON.parse(rhs) as JsonValue;
    // The Go test validates lhs allowing duplicates, rhs without.
    expect(validate(ctx, root, l, { allowDuplicates: true, nullIsCelNull: false })).toEqual([]);
    expect(validate(ctx, root, r, { allowDuplicates: false, nullIsCelNull: false })).toEqual([]);
    expect(mergeValues(ctx, root, l, r)).toEqual(JSON.parse(out));
  });
}

describe("SMD merge: simple pair (untyped atomic value)", () => {
  run({ t: "struct", f: { key: string, value: UNTYPED_ATOMIC } }, [
    ['{"key":"foo","value":{}}', '{"key":"foo","value":1}', '{"key":"foo","value":1}'],
    ['{"key":"foo","value":1}', '{"key":"foo","value":{}}', '{"key":"foo","value":{}}'],
    ['{"key":"foo","value":null}', '{"key":"foo","value":{}}', '{"key":"foo","value":{}}'],
    ['{"key":"foo"}', '{"value":true}', '{"key":"foo","value":true}'],
  ]);
});

describe("SMD merge: null and empty map, struct, list", () => {
  const triplets = (empty: string): Triplet[] => [
    ["{}", `{"inner":${empty}}`, `{"inner":${empty}}`],
    ["{}", '{"inner":null}', '{"inner":null}'],
    ['{"inner":null}', `{"inner":${empty}}`, `{"inner":${empty}}`],
    [`{"inner":${empty}}`, '{"inner":null}', '{"inner":null}'],
    [`{"inner":${empty}}`, `{"inner":${empty}}`, `{"inner":${empty}}`],
  ];
  describe("map", () => run({ t: "struct", f: { inner: { t: "map", v: UNTYPED_ATOMIC } } }, triplets("{}")));
  describe("struct", () => run({ t: "struct", f: { inner: { t: "struct", f: { value: UNTYPED_ATOMIC } } } }, triplets("{}")));
  describe("list", () => run({ t: "struct", f: { inner: { t: "list", lt: "atomic", e: UNTYPED_ATOMIC } } }, triplets("[]")));
});

describe("SMD merge: struct grab bag (scalars and sets)", () => {
  run(
    {
      t: "struct",
      f: {
        numeric,
        string,
        bool: boolean,
        setStr: { t: "list", lt: "set", e: string },
        setBool: { t: "list", lt: "set", e: boolean },
        setNumeric: { t: "list", lt: "set", e: numeric },
      },
    },
    [
      ['{"numeric":1}', '{"numeric":3.14159}', '{"numeric":3.14159}'],
      ['{"numeric":3.14159}', '{"numeric":1}', '{"numeric":1}'],
      ['{"string":"aoeu"}', '{"bool":true}', '{"string":"aoeu","bool":true}'],
      ['{"setStr":["a","b","c"]}', '{"setStr":["a","b"]}', '{"setStr":["a","b","c"]}'],
      ['{"setStr":["a","b"]}', '{"setStr":["a","b","c"]}', '{"setStr":["a","b","c"]}'],
      ['{"setStr":["a","b","c"]}', '{"setStr":[]}', '{"setStr":["a","b","c"]}'],
      ['{"setStr":[]}', '{"setStr":["a","b","c"]}', '{"setStr":["a","b","c"]}'],
      ['{"setStr":["a","b"]}', '{"setStr":["b","a"]}', '{"setStr":["b","a"]}'],
      ['{"setStr":["a","b","c"]}', '{"setStr":["d","e","f"]}', '{"setStr":["a","b","c","d","e","f"]}'],
      ['{"setStr":["a","b","c"]}', '{"setStr":["c","d","e","f"]}', '{"setStr":["a","b","c","d","e","f"]}'],
      ['{"setStr":["a","b","c","g","f"]}', '{"setStr":["c","d","e","f"]}', '{"setStr":["a","b","c","g","d","e","f"]}'],
      ['{"setStr":["a","b","c"]}', '{"setStr":["d","e","f","x","y","z"]}', '{"setStr":["a","b","c","d","e","f","x","y","z"]}'],
      ['{"setStr":["c","d","e","f"]}', '{"setStr":["a","c","e"]}', '{"setStr":["a","c","d","e","f"]}'],
      ['{"setStr":["a","b","c","x","y","z"]}', '{"setStr":["d","e","f"]}', '{"setStr":["a","b","c","x","y","z","d","e","f"]}'],
      ['{"setStr":["a","b","c","x","y","z"]}', '{"setStr":["d","e","f","x","y","z"]}', '{"setStr":["a","b","c","d","e","f","x","y","z"]}'],
      ['{"setStr":["c","a","g","f"]}', '{"setStr":["c","f","a","g"]}', '{"setStr":["c","f","a","g"]}'],
      ['{"setStr":["a","b","c","d"]}', '{"setStr":["d","e","f","a"]}', '{"setStr":["b","c","d","e","f","a"]}'],
      ['{"setStr":["c","d","e","f","g","h","i","j"]}', '{"setStr":["2","h","3","e","4","k","l"]}', '{"setStr":["c","d","f","g","2","h","i","j","3","e","4","k","l"]}'],
      [
        '{"setStr":["a","b","c","d","e","f","g","h","i","j"]}',
        '{"setStr":["1","b","2","h","3","e","4","k","l"]}',
        '{"setStr":["a","1","b","c","d","f","g","2","h","i","j","3","e","4","k","l"]}',
      ],
      ['{"setStr":["a","b","b"]}', '{"setStr":["c"]}', '{"setStr":["a","b","b","c"]}'],
      ['{"setStr":["a","b","b"]}', '{"setStr":["b"]}', '{"setStr":["a","b"]}'],
      ['{"setStr":["a","b","b"]}', '{"setStr":["a"]}', '{"setStr":["a","b","b"]}'],
      ['{"setStr":["a","b","c","d","e","c"]}', '{"setStr":["1","b","2","e","d"]}', '{"setStr":["a","1","b","c","2","e","c","d"]}'],
      ['{"setStr":["a","b","c","d","e","c"]}', '{"setStr":["1","b","2","c","e","d"]}', '{"setStr":["a","1","b","2","c","e","d"]}'],
      ['{"setStr":["a","a","b","b"]}', '{"setStr":["b","c","d"]}', '{"setStr":["a","a","b","c","d"]}'],
      ['{"setStr":["a","a","b","b"]}', '{"setStr":[]}', '{"setStr":["a","a","b","b"]}'],
      ['{"setBool":[true]}', '{"setBool":[false]}', '{"setBool":[true, false]}'],
      ['{"setNumeric":[1,2,3.14159]}', '{"setNumeric":[1,2,3]}', '{"setNumeric":[1,2,3.14159,3]}'],
      ['{"setStr":["c","a","g","f","c","a"]}', '{"setStr":["c","f","a","g"]}', '{"setStr":["c","f","a","g"]}'],
      ['{"setNumeric":[1,2,3.14159,1,2]}', '{"setNumeric":[1,2,3]}', '{"setNumeric":[1,2,3.14159,3]}'],
      ['{"setBool":[true,false,true]}', '{"setBool":[false]}', '{"setBool":[true,false,true]}'],
      ['{"setBool":[true,false,true]}', '{"setBool":[true]}', '{"setBool":[true, false]}'],
    ],
  );
});

describe("SMD merge: associative list keyed by (key, id)", () => {
  const element: SchemaNode = { t: "struct", f: { key: string, id: numeric, value: { t: "map", v: string }, bv: boolean, nv: numeric } };
  run(
    {
      t: "struct",
      f: { list: { t: "list", lt: "map", keys: ["key", "id"], e: element }, atomicList: { t: "list", lt: "atomic", e: string } },
    },
    [
      ['{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}', '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}', '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}'],
      [
        '{"list":[{"key":"a","id":1,"value":{"a":"a"}}]}',
        '{"list":[{"key":"a","id":2,"value":{"a":"a"}}]}',
        '{"list":[{"key":"a","id":1,"value":{"a":"a"}},{"key":"a","id":2,"value":{"a":"a"}}]}',
      ],
      ['{"list":[{"key":"a","id":1},{"key":"b","id":1}]}', '{"list":[{"key":"a","id":1},{"key":"a","id":2}]}', '{"list":[{"key":"a","id":1},{"key":"b","id":1},{"key":"a","id":2}]}'],
      ['{"list":[{"key":"b","id":2}]}', '{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}', '{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}'],
      ['{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}', '{"list":[{"key":"c","id":3},{"key":"b","id":2}]}', '{"list":[{"key":"a","id":1},{"key":"c","id":3},{"key":"b","id":2}]}'],
      ['{"list":[{"key":"a","id":1},{"key":"b","id":2},{"key":"c","id":3}]}', '{"list":[{"key":"c","id":3},{"key":"a","id":1}]}', '{"list":[{"key":"b","id":2},{"key":"c","id":3},{"key":"a","id":1}]}'],
      ['{"atomicList":["a","a","a"]}', '{"atomicList":null}', '{"atomicList":null}'],
      ['{"atomicList":["a","b","c"]}', '{"atomicList":[]}', '{"atomicList":[]}'],
      ['{"atomicList":["a","a","a"]}', '{"atomicList":["a","a"]}', '{"atomicList":["a","a"]}'],
      [
        '{"list":[{"key":"a","id":1,"bv":true},{"key":"b","id":2},{"key":"a","id":1,"bv":false,"nv":2}]}',
        '{"list":[{"key":"a","id":1,"nv":3},{"key":"c","id":3},{"key":"b","id":2}]}',
        '{"list":[{"key":"a","id":1,"nv":3},{"key":"c","id":3},{"key":"b","id":2}]}',
      ],
      ['{"list":[{"key":"a","id":1,"nv":1},{"key":"a","id":1,"nv":2}]}', '{"list":[]}', '{"list":[{"key":"a","id":1,"nv":1},{"key":"a","id":1,"nv":2}]}'],
      ['{"list":[{"key":"a","id":1,"nv":1},{"key":"a","id":1,"nv":2}]}', "{}", '{"list":[{"key":"a","id":1,"nv":1},{"key":"a","id":1,"nv":2}]}'],
    ],
  );

  test("a patch may not hold a key twice; a live object may", () => {
    const root: SchemaNode = { t: "struct", f: { list: { t: "list", lt: "map", keys: ["key", "id"], e: element } } };
    const v = JSON.parse('{"list":[{"key":"a","id":1},{"key":"a","id":1}]}') as JsonValue;
    expect(validate(ctx, root, v, { allowDuplicates: false, nullIsCelNull: false })).toEqual([{ path: ".list", message: 'duplicate entries for key [id=1,key="a"]' }]);
    expect(validate(ctx, root, v, { allowDuplicates: true, nullIsCelNull: false })).toEqual([]);
  });
});
