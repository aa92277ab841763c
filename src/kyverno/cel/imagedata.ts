/**
 * Kyverno's image data library (`kyverno.imagedata`, kyverno/sdk
 * `extensions/cel/libs/imagedata`): the variable `image` of type
 * `imagedata.Context` with `GetMetadata(ref)` (camelCase `getMetadata` since
 * 1.18) → `dyn`.
 *
 * Live, it fetches the image from its registry and returns
 * `{image, resolvedImage, registry, repository, identifier, tag, digest,
 * imageIndex, manifest, config}` (OCI JSON, numbers as doubles). Errors read
 * `failed to get image data: <err>`; the CLI's offline data answers a missing
 * image with `image data for <ref> not found in the context`.
 *
 * The variable `image` and the function `image(string)` of the image library
 * coexist: `image('nginx')` is a global call, `image.GetMetadata(x)` a member call.
 */
import { func, memberOverload, type Library } from "../../cel/decls.js";
import { CelEvalError } from "../../cel/errors.js";
import { DYN, STRING, opaqueType } from "../../cel/types.js";
import { CelObject, type CelValue } from "../../cel/values.js";
import { ProviderError, fromGoJson, type JsonObject } from "./common.js";

export const IMAGE_DATA_CONTEXT_TYPE = opaqueType("imagedata.Context");

/** Registry access for `image.GetMetadata` (Kyverno's `imagedata.ContextInterface`). Throw {@link ProviderError} on failure. */
export interface ImageDataProvider {
  getImageData(image: string): JsonObject;
}

export class ImageDataContext extends CelObject {
  readonly celType = IMAGE_DATA_CONTEXT_TYPE;
  constructor(readonly provider: ImageDataProvider) {
    super();
  }
}

function getMetadata(c: CelValue, image: string): CelValue {
  if (!(c instanceof ImageDataContext)) throw new CelEvalError("no such overload");
  try {
    return fromGoJson(c.provider.getImageData(image));
  } catch (e) {
    if (e instanceof ProviderError) throw new CelEvalError(`failed to get image data: ${e.message}`);
    throw e;
  }
}

const decl = (name: string, suffix: string) =>
  func(name, memberOverload(`imagedata_get_string_${suffix}`, [IMAGE_DATA_CONTEXT_TYPE, STRING], DYN, getMetadata));

/** Declares `image`; bind it to `new ImageDataContext(provider)` at evaluation. */
export const IMAGE_DATA_LIBRARY: Library = {
  name: "kyverno.imagedata",
  variables: [{ name: "image", type: IMAGE_DATA_CONTEXT_TYPE }],
  functions: [decl("GetMetadata", "pascal"), decl("getMetadata", "camel")],
};
