/**
 * Container image references, as far as defaulting needs them: kubelet's `parsers.ParseImageName`
 * (docker's `reference.ParseNormalizedNamed`) gives the tag; a reference with neither tag nor
 * digest is tagged `latest`; a reference that does not parse has no tag at all.
 *
 *     imageTag("nginx")            // "latest"
 *     imageTag("nginx:1.27")       // "1.27"
 *     imageTag("nginx@sha256:…")   // ""   (digest, no tag)
 *     imageTag("Bad/Name")         // undefined (not a reference)
 */

const DOMAIN_COMPONENT = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[0-9a-fA-F:.]+\\])(?::[0-9]+)?`;
const PATH_COMPONENT = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
const TAG = "[\\w][\\w.-]{0,127}";
const DIGEST = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}";
const REFERENCE = new RegExp(`^((?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*)(?::(${TAG}))?(?:@(${DIGEST}))?$`);
const IDENTIFIER = /^[a-f0-9]{64}$/;

/** The tag `ParseImageName` reports for `image` (`latest` when none is written), or undefined when it is not a valid reference. */
export function imageTag(image: string): string | undefined {
  const m = REFERENCE.exec(image);
  if (m === null) return undefined;
  const name = m[1]!;
  if (name.length > 255 || IDENTIFIER.test(name)) return undefined;
  const tag = m[2] ?? "";
  const digest = m[3] ?? "";
  return tag === "" && digest === "" ? "latest" : tag;
}

/** `SetDefaults_Container`'s pull policy for an image: `Always` for `:latest` (written or implied), else `IfNotPresent`. */
export function defaultPullPolicy(image: string): "Always" | "IfNotPresent" {
  return imageTag(image) === "latest" ? "Always" : "IfNotPresent";
}
