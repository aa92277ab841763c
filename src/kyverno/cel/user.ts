/**
 * Kyverno's user library (`kyverno.user`, kyverno/sdk `extensions/cel/libs/user`):
 * `parseServiceAccount(string)` and (since 1.18) `user.parseServiceAccount(string)`
 * → `user.ServiceAccount`, a Go struct registered with `ext.NativeTypes` without
 * struct tags, so its fields are **`Name` and `Namespace`** (capitalized).
 *
 * `system:serviceaccount:<ns>:<name>` splits at the first `:` after the prefix
 * (`<name>` may contain `:`); any other string, or a prefix without a second
 * `:`, gives empty fields.
 */
import { func, overload, type Library, type TypeProvider } from "../../cel/decls.js";
import { CelEvalError } from "../../cel/errors.js";
import { STRING, messageType, type CelType } from "../../cel/types.js";
import { CelObject, type CelValue } from "../../cel/values.js";

export const SERVICE_ACCOUNT_TYPE = messageType("user.ServiceAccount");
const PREFIX = "system:serviceaccount:";

export class ServiceAccountValue extends CelObject {
  readonly celType = SERVICE_ACCOUNT_TYPE;
  constructor(
    readonly Name: string,
    readonly Namespace: string,
  ) {
    super();
  }
  override getField(name: string): CelValue | undefined {
    if (name === "Name") return this.Name;
    if (name === "Namespace") return this.Namespace;
    return undefined;
  }
  override hasField(name: string): boolean | undefined {
    if (name === "Name") return this.Name !== "";
    if (name === "Namespace") return this.Namespace !== "";
    return undefined;
  }
  override isZeroValue(): boolean {
    return this.Name === "" && this.Namespace === "";
  }
  override equals(other: CelValue): boolean {
    if (!(other instanceof ServiceAccountValue)) return false;
    return other.Name === this.Name && other.Namespace === this.Namespace;
  }
  /** The struct's JSON tags (`name,omitempty`, `namespace,omitempty`). */
  toJSON(): Record<string, string> {
    return { ...(this.Name === "" ? {} : { name: this.Name }), ...(this.Namespace === "" ? {} : { namespace: this.Namespace }) };
  }
}

export function parseServiceAccount(user: string): ServiceAccountValue {
  if (user.startsWith(PREFIX)) {
    const rest = user.slice(PREFIX.length);
    const sep = rest.indexOf(":");
    if (sep !== -1) return new ServiceAccountValue(rest.slice(sep + 1), rest.slice(0, sep));
  }
  return new ServiceAccountValue("", "");
}

const FIELDS: ReadonlyMap<string, CelType> = new Map([
  ["Name", STRING],
  ["Namespace", STRING],
]);

/** Knows `user.ServiceAccount` and its fields (so `parseServiceAccount(u).Name` type-checks); also constructible, as native types are. */
export const USER_TYPE_PROVIDER: TypeProvider = {
  findType: (name) => (name === SERVICE_ACCOUNT_TYPE.name ? SERVICE_ACCOUNT_TYPE : undefined),
  findFieldType: (typeName, field) => (typeName === SERVICE_ACCOUNT_TYPE.name ? FIELDS.get(field) : undefined),
  newValue: (typeName, fields) => {
    if (typeName !== SERVICE_ACCOUNT_TYPE.name) throw new CelEvalError(`unknown type: ${typeName}`);
    const get = (f: string): string => {
      const v = fields.get(f);
      if (v === undefined) return "";
      if (typeof v !== "string") throw new CelEvalError("no such overload");
      return v;
    };
    return new ServiceAccountValue(get("Name"), get("Namespace"));
  },
};

export const USER_LIBRARY: Library = {
  name: "kyverno.user",
  functions: [
    func("parseServiceAccount", overload("parse_service_account_string_non_prefixed", [STRING], SERVICE_ACCOUNT_TYPE, parseServiceAccount)),
    func("user.parseServiceAccount", overload("parse_service_account_string_prefixed", [STRING], SERVICE_ACCOUNT_TYPE, parseServiceAccount)),
  ],
};
