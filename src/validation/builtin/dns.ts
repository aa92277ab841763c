/**
 * DNS name checks of `k8s.io/apimachinery/pkg/util/validation` (v0.36.3), which object names,
 * container names, port names and the like go through: one copy, in src/policy/names.ts. They say
 * "characters" where the `validate/content` variants used for label keys say "bytes".
 */
export { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, maxLenCharacters } from "../../policy/names.js";
