/**
 * What `node:fs` and `node:path` resolve to in the playground bundle. Only src/io/load.ts imports
 * them (for its file readers, which the playground never calls: it parses editor text with
 * `parseDocuments`). The bundle check (vite.config.ts) fails the build if this stub survives
 * tree-shaking, i.e. if anything in the page could reach a file API.
 */
function unavailable(name: string): never {
  throw new Error(`celmap playground: ${name} is not available in the browser (NODE_STUB_REACHED)`);
}
export const readFileSync = (): never => unavailable("readFileSync");
export const readdirSync = (): never => unavailable("readdirSync");
export const statSync = (): never => unavailable("statSync");
export const join = (): never => unavailable("path.join");
