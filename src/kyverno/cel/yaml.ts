/**
 * Kyverno's YAML library (`kyverno.yaml`, kyverno/sdk `extensions/cel/libs/yaml`):
 * the variable `yaml` of type `yaml.Yaml` with `yaml.parse(string) → dyn`.
 *
 * Kyverno uses `sigs.k8s.io/yaml.Unmarshal` into `any`: YAML is converted to
 * JSON, then decoded by `encoding/json`, so numbers are doubles, keys are
 * strings, and anchors/aliases are resolved. celmap's engine has no YAML parser
 * of its own (`src/cel` imports nothing but `@bufbuild/re2`): the caller
 * supplies one ({@link YamlParser}). sigs.k8s.io/yaml parses with go-yaml v2,
 * i.e. YAML 1.1 (`yes`/`no`/`on`/`off` are booleans): the `yaml` package's
 * `parse(text, { version: "1.1" })` matches it for ordinary documents. Parser
 * failures are wrapped as `error converting YAML to JSON: <message>` (the
 * message is the parser's, not go-yaml's).
 */
import { func, memberOverload, type Library } from "../../cel/decls.js";
import { CelEvalError } from "../../cel/errors.js";
import { DYN, STRING, opaqueType } from "../../cel/types.js";
import { CelObject, type CelValue } from "../../cel/values.js";
import { fromGoJson } from "./common.js";

export const YAML_TYPE = opaqueType("yaml.Yaml");

/** Parses one YAML document to JSON-compatible data; throws an Error with a message on invalid YAML. */
export type YamlParser = (text: string) => unknown;

export class YamlContext extends CelObject {
  readonly celType = YAML_TYPE;
  constructor(readonly parser: YamlParser | undefined) {
    super();
  }
}

function parse(c: CelValue, text: string): CelValue {
  if (!(c instanceof YamlContext)) throw new CelEvalError("no such overload");
  if (c.parser === undefined) throw new CelEvalError("yaml.parse: no YAML parser was configured for this environment");
  let data: unknown;
  try {
    data = c.parser(text);
  } catch (e) {
    if (e instanceof CelEvalError) throw e;
    throw new CelEvalError(`error converting YAML to JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  // Go's JSON decoding of the converted document: numbers are float64.
  return fromGoJson(data === undefined ? null : data);
}

/** Declares `yaml`; bind it to `new YamlContext(parser)` at evaluation. */
export const YAML_LIBRARY: Library = {
  name: "kyverno.yaml",
  variables: [{ name: "yaml", type: YAML_TYPE }],
  functions: [func("parse", memberOverload("parse_string_dyn", [YAML_TYPE, STRING], DYN, parse))],
};
