import { describe, expect, it } from "vitest";
import { err, m, run, v, type Outcome } from "./test-harness.js";

// kyverno/sdk extensions/cel/libs/json/impl_test.go, then Go encoding/json behaviour.
describe("json library", () => {
  it.each<[string, Outcome]>([
    [`json.marshal({"key": "value"})`, v(`{"key":"value"}`)],
    [`json.marshal([1, 2, 3])`, v(`[1,2,3]`)],
    [`json.marshal("hello")`, v(`"hello"`)],
    [`json.marshal(42)`, v(`42`)],
    [`json.marshal(3.14)`, v(`3.14`)],
    [`json.marshal(true)`, v(`true`)],
    [`json.marshal({})`, v(`{}`)],
    [`json.marshal([])`, v(`[]`)],
    [`json.marshal({"outer": {"inner": "value"}})`, v(`{"outer":{"inner":"value"}}`)],
    [`json.marshal(json.unmarshal("{\\"a\\":\\"b\\"}"))`, v(`{"a":"b"}`)],
    [`json.unmarshal('{"foo":"bar"}')`, v(m({ foo: "bar" }))],
    // Go details: numbers decode as doubles; keys sorted; HTML escaped; 1.0 prints 1; null is cel-go's NullValue enum (0)
    [`json.unmarshal('{"n": 1}').n`, v(1)],
    [`type(json.unmarshal('{"n": 1}').n) == double`, v(true)],
    [`json.unmarshal('[1, "a", null, true, {"x": []}]')`, v([1, "a", null, true, m({ x: [] })])],
    [`json.marshal({"b": 1, "a": 2})`, v(`{"a":2,"b":1}`)],
    [`json.marshal("<a&b>")`, v(`"\\u003ca\\u0026b\\u003e"`)],
    [`json.marshal(1.0)`, v(`1`)],
    [`json.marshal(9223372036854775807)`, v(`9223372036854775807`)],
    [`json.marshal(b"hi")`, v(`"aGk="`)],
    [`json.marshal(null)`, v(`0`)],
    [`json.marshal({"a": null})`, v(`{"a":0}`)],
    [`json.marshal(json.unmarshal('{"z": [1.5, 2]}'))`, v(`{"z":[1.5,2]}`)],
    [`json.unmarshal('"\\u00e9"')`, v("é")],
    // errors: Go's messages
    [`json.unmarshal('{"a":')`, err("unexpected end of JSON input")],
    [`json.unmarshal('')`, err("unexpected end of JSON input")],
    [`json.unmarshal('x')`, err("invalid character 'x' looking for beginning of value")],
    [`json.unmarshal('{"a" 1}')`, err("invalid character '1' after object key")],
    [`json.unmarshal('[1 2]')`, err("invalid character '2' after array element")],
    [`json.unmarshal('{"a":1}}')`, err("invalid character '}' after top-level value")],
    [`json.unmarshal('tru')`, err("unexpected end of JSON input")],
    [`json.unmarshal('nul!')`, err("invalid character '!' in literal null (expecting 'l')")],
    [`json.unmarshal('{a:1}')`, err("invalid character 'a' looking for beginning of object key string")],
    [`json.unmarshal(dyn(1))`, err("unsupported type conversion from 'int' to string")],
    [`json.unmarshal(dyn(true))`, err("type conversion error from bool to 'string'")],
    [`json.marshal(1.0 / 0.0)`, err("json: unsupported value: +Inf")],
  ])("%s", (expr, want) => {
    expect(run(expr)).toEqual(want);
  });

  it.each([`json.marshal()`, `json.unmarshal("a", "b")`, `json.parse("x")`])("rejects %s at compile time", (expr) => {
    expect(run(expr)).toHaveProperty("compileError");
  });
});
