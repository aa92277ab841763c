/**
 * Kyverno's image library (`kyverno.image`, kyverno/sdk
 * `extensions/cel/libs/image`): image references parsed as go-containerregistry's
 * `name.ParseReference` (non-strict, default registry `index.docker.io`).
 *
 * - `parseImageReference(string)` and the deprecated alias `image(string)` →
 *   `kyverno.image`; an unparsable reference is the error
 *   `could not parse reference: <s>`.
 * - `isImage(string)` → bool.
 * - `<img>.registry()`: `index.docker.io` when none is given (`docker.io` is
 *   rewritten to it); the first path segment is a registry only if it contains
 *   `.` or `:`.
 * - `<img>.repository()`: `library/` is prefixed to a one-segment Docker Hub repository.
 * - `<img>.tag()`: the tag, `latest` when a tag reference has none, `""` for a
 *   digest reference (a `name:tag@sha256:…` reference is a digest reference).
 * - `<img>.digest()`: `sha256:…` or `""`; `<img>.containsDigest()`.
 * - `<img>.identifier()`: the tag (tag reference) or the digest.
 * - `==` is Go's `reflect.DeepEqual` of the references, which includes the
 *   original string: `image('nginx') != image('nginx:latest')`.
 */
import { func, memberOverload, overload, type Library } from "../../cel/decls.js";
import { CelEvalError } from "../../cel/errors.js";
import { BOOL, STRING, opaqueType } from "../../cel/types.js";
import { CelObject, type CelValue } from "../../cel/values.js";

export const IMAGE_TYPE = opaqueType("kyverno.image");

const DEFAULT_REGISTRY = "index.docker.io";
const REGISTRY_ALIAS = "docker.io";
const DEFAULT_TAG = "latest";
const TAG_CHARS = /^[A-Za-z0-9_.-]*$/;
const REPOSITORY_CHARS = /^[a-z0-9_./-]*$/;
const TAG_CHARS_TEXT = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.";
const REPOSITORY_CHARS_TEXT = "abcdefghijklmnopqrstuvwxyz0123456789_-./";

class BadName extends Error {}

export interface ImageReference {
  /** "tag" or "digest" reference (Go `name.Tag` / `name.Digest`). */
  readonly kind: "tag" | "digest";
  readonly registry: string;
  /** As written (without the implicit `library/`). */
  readonly repository: string;
  /** Tag as written ("" when none); digest references have none. */
  readonly tag: string;
  readonly digest: string;
  readonly original: string;
}

function runeCount(s: string): number {
  return [...s].length;
}

function checkElement(what: string, element: string, allowed: RegExp, allowedText: string, min: number, max: number): void {
  const n = runeCount(element);
  if (n < min || n > max) throw new BadName(`${what} must be between ${min} and ${max} characters in length: ${element}`);
  if (!allowed.test(element)) throw new BadName(`${what} can only contain the characters \`${allowedText}\`: ${element}`);
}

/** `url.Parse("//" + name).Host == name`: host[:port], IPv6 in brackets. */
function checkRegistry(name: string): void {
  if (!/^(?:\[[0-9A-Fa-f:.]+(?:%[A-Za-z0-9._~-]+)?\]|[A-Za-z0-9._~!$&'()*+,;=-]*)(?::[0-9]*)?$/.test(name)) {
    throw new BadName(`registries must be valid RFC 3986 URI authorities: ${name}`);
  }
}

function newRepository(name: string): { registry: string; repository: string } {
  if (name.length === 0) throw new BadName("a repository name must be specified");
  let registry = "";
  let repo = name;
  const slash = name.indexOf("/");
  if (slash >= 0) {
    const first = name.slice(0, slash);
    if (first.includes(".") || first.includes(":")) {
      registry = first;
      repo = name.slice(slash + 1);
    }
  }
  checkElement("repository", repo, REPOSITORY_CHARS, REPOSITORY_CHARS_TEXT, 2, 255);
  checkRegistry(registry);
  if (registry === "") registry = DEFAULT_REGISTRY;
  if (registry === REGISTRY_ALIAS) registry = DEFAULT_REGISTRY;
  return { registry, repository: repo };
}

function newTag(name: string): ImageReference {
  let base = name;
  let tag = "";
  const parts = name.split(":");
  if (parts.length > 1 && !parts[parts.length - 1]!.includes("/")) {
    base = parts.slice(0, -1).join(":");
    tag = parts[parts.length - 1]!;
    if (tag === "") throw new BadName(`${name} must specify a tag name after the colon`);
  }
  if (tag !== "") checkElement("tag", tag, TAG_CHARS, TAG_CHARS_TEXT, 1, 128);
  const repo = newRepository(base);
  return { kind: "tag", ...repo, tag, digest: "", original: name };
}

function newDigest(name: string): ImageReference {
  const parts = name.split("@");
  if (parts.length !== 2) throw new BadName(`a digest must contain exactly one '@' separator (e.g. registry/repository@digest) saw: ${name}`);
  let base = parts[0]!;
  const dig = parts[1]!;
  if (!dig.startsWith("sha256:")) throw new BadName(`unsupported digest algorithm: ${dig}`);
  const hexPart = dig.slice("sha256:".length);
  if (hexPart.length !== 64) throw new BadName("invalid checksum digest length");
  if (!/^[a-f0-9]{64}$/.test(hexPart)) throw new BadName("invalid checksum digest format");
  try {
    const t = newTag(base);
    base = repositoryName(t);
  } catch (e) {
    if (!(e instanceof BadName)) throw e;
  }
  const repo = newRepository(base);
  return { kind: "digest", ...repo, tag: "", digest: dig, original: name };
}

/** Go `Repository.Name()`: registry/repository, with the registry omitted… never (go-containerregistry always writes it). */
function repositoryName(r: ImageReference): string {
  return `${r.registry}/${r.repository}`;
}

/** go-containerregistry `name.ParseReference` (non-strict); throws CelEvalError `could not parse reference: s`. */
export function parseReference(s: string): ImageReference {
  try {
    return newTag(s);
  } catch (e) {
    if (!(e instanceof BadName)) throw e;
  }
  try {
    return newDigest(s);
  } catch (e) {
    if (!(e instanceof BadName)) throw e;
  }
  throw new CelEvalError(`could not parse reference: ${s}`);
}

export class ImageValue extends CelObject {
  readonly celType = IMAGE_TYPE;
  constructor(readonly ref: ImageReference) {
    super();
  }
  get registry(): string {
    return this.ref.registry;
  }
  /** `RepositoryStr()`: `library/` added to a one-segment Docker Hub repository. */
  get repository(): string {
    const r = this.ref;
    return !r.repository.includes("/") && r.registry === DEFAULT_REGISTRY ? `library/${r.repository}` : r.repository;
  }
  get tag(): string {
    return this.ref.kind === "tag" ? (this.ref.tag === "" ? DEFAULT_TAG : this.ref.tag) : "";
  }
  get digest(): string {
    return this.ref.digest;
  }
  get identifier(): string {
    return this.ref.kind === "tag" ? this.tag : this.ref.digest;
  }
  /** Go `Reference.String()`: the original string. */
  override toString(): string {
    return this.ref.original;
  }
  toJSON(): string {
    return this.ref.original;
  }
  override equals(other: CelValue): boolean {
    if (!(other instanceof ImageValue)) throw new CelEvalError("no such overload");
    const a = this.ref;
    const b = other.ref;
    return a.kind === b.kind && a.original === b.original && a.registry === b.registry && a.repository === b.repository;
  }
}

function stringToImage(s: string): ImageValue {
  return new ImageValue(parseReference(s));
}

function isImage(s: string): boolean {
  try {
    parseReference(s);
    return true;
  } catch (e) {
    if (e instanceof CelEvalError) return false;
    throw e;
  }
}

const I = IMAGE_TYPE;

export const IMAGE_LIBRARY: Library = {
  name: "kyverno.image",
  types: [IMAGE_TYPE],
  functions: [
    func("image", overload("string_to_image_deprecated", [STRING], I, stringToImage)),
    func("parseImageReference", overload("string_to_image", [STRING], I, stringToImage)),
    func("isImage", overload("is_image_string", [STRING], BOOL, isImage)),
    func("containsDigest", memberOverload("image_contains_digest", [I], BOOL, (i: ImageValue) => i.ref.kind === "digest" && i.ref.digest !== "")),
    func("registry", memberOverload("image_registry", [I], STRING, (i: ImageValue) => i.registry)),
    func("repository", memberOverload("image_repository", [I], STRING, (i: ImageValue) => i.repository)),
    func("identifier", memberOverload("image_identifier", [I], STRING, (i: ImageValue) => i.identifier)),
    func("tag", memberOverload("image_tag", [I], STRING, (i: ImageValue) => i.tag)),
    func("digest", memberOverload("image_digest", [I], STRING, (i: ImageValue) => i.digest)),
  ],
};
