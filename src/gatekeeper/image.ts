/**
 * AssignImage's image-reference handling (`mutators/assignimage/imageparser.go`, v3.23.0):
 * splitting into domain / path / tag, recomposition, and the parameter validation that keeps
 * the mutation idempotent. Go's `\w` and `\d` are ASCII, as in these JS regexes.
 */
import { goQuote as goq } from "../diag/index.js";

const DOMAIN_RE = /(^\w[\w\-_]*\.[\w\-_.]*[\w](:\d+)?$)|(^localhost(:\d+)?$)/;
const PATH_RE = /^[a-z0-9]+(?:(?:(?:[._/]|__|[-]*)[a-z0-9]+)+)?/;
const TAG_RE = /(^:[\w][\w.-]{0,127}$)|(^@[A-Za-z][A-Za-z0-9]*([-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}$)/;

export interface ImageRef {
  readonly domain: string;
  readonly path: string;
  /** Starts with `:` or `@` (or is empty); runs to the end of the reference. */
  readonly tag: string;
}

/** `splitDomain`: a domain exists iff there is a `/` and the text before it has `.`/`:` or is `localhost`. */
export function splitDomain(name: string): [domain: string, remainder: string] {
  const i = name.indexOf("/");
  if (i === -1) return ["", name];
  const head = name.slice(0, i);
  if (!/[.:]/.test(head) && head !== "localhost") return ["", name];
  return [head, name.slice(i + 1)];
}

/** `splitTag`: the first `:` or `@` starts the tag. */
export function splitTag(remainder: string): [path: string, tag: string] {
  const m = /[:@]/.exec(remainder);
  if (m === null) return [remainder, ""];
  return [remainder.slice(0, m.index), remainder.slice(m.index)];
}

export function parseImage(ref: string): ImageRef {
  const [domain, rest] = splitDomain(ref);
  const [path, tag] = splitTag(rest);
  return { domain, path, tag };
}

export function formatImage(img: ImageRef): string {
  return (img.domain !== "" ? img.domain + "/" : "") + img.path + img.tag;
}

/** `mutateImage`: each non-empty component replaces the old one. */
export function mutateImage(domain: string, path: string, tag: string, ref: string): string {
  const old = parseImage(ref);
  return formatImage({
    domain: domain !== "" ? domain : old.domain,
    path: path !== "" ? path : old.path,
    tag: tag !== "" ? tag : old.tag,
  });
}

/** `validateImageParts`; returns Gatekeeper's error text or undefined. */
export function validateImageParts(domain: string, path: string, tag: string): { field: "assignDomain" | "assignPath" | "assignTag" | undefined; message: string } | undefined {
  if (domain === "" && path === "" && tag === "") {
    return { field: undefined, message: "at least one of [assignDomain, assignPath, assignTag] must be set" };
  }
  if (domain !== "") {
    if (!DOMAIN_RE.test(domain)) {
      return { field: "assignDomain", message: `assignDomain ${goq(domain)} must be a fully-qualified domain name or localhost` };
    }
    const [d, r] = splitDomain(domain + "/");
    if (d !== domain || r !== "") {
      return { field: "assignDomain", message: `domain ${goq(domain)} could not be recognized as a valid domain` };
    }
  }
  if (path !== "") {
    const m = PATH_RE.exec(path);
    if (m === null || m[0] !== path) return { field: "assignPath", message: `assignPath ${goq(path)} must be a valid docker image path` };
  }
  if (tag !== "") {
    if (!TAG_RE.test(tag)) {
      return { field: "assignTag", message: `assignTag ${goq(tag)} must be a valid docker image tag or digest starting with ':' or '@'` };
    }
    const [p, t] = splitTag(tag);
    if (t !== tag || p !== "") return { field: "assignTag", message: `tag ${goq(tag)} could not be recognized as a valid tag or digest` };
  }
  if (domain === "") {
    const [d] = splitDomain(path);
    if (d !== "") {
      return {
        field: "assignPath",
        message: `assignDomain must be set if the first part of assignPath ${goq(path)} can be interpretted as part of a domain`,
      };
    }
  }
  return undefined;
}
