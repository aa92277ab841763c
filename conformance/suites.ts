/**
 * The conformance suites `npm run conformance` runs, loaded the same way in the
 * main process and in the worker that runs their cases.
 */
import { celConformanceSuite, celParseSuite, loadAstToProto, loadExtensionLibraries } from "./cel/runner.js";
import { ProtoTypeProvider } from "./cel/proto-types.js";
import { gatekeeperSuites } from "./gatekeeper/runner.js";
import { mapSuites } from "./map/runner.js";
import { celmapMapSuite } from "./cases/map/suite.js";
import type { Suite } from "./suite.js";

/** Every suite, in report order. `notes` receives one-line remarks on what was wired. */
export async function loadSuites(notes: string[] = []): Promise<Suite[]> {
  const ext = await loadExtensionLibraries();
  notes.push(`libraries: standard, ${ext.found.join(", ")}`);
  for (const p of ext.problems) notes.push(`library problem: ${p}`);
  const ast = await loadAstToProto();
  if (ast.problem !== undefined) notes.push(`parser suite: ${ast.problem}`);
  const provider = new ProtoTypeProvider();
  // TODO(map, gatekeeper): add the MAP and Gatekeeper case files (../shared/conformance/*.yaml) as suites here.
  return [celConformanceSuite({ provider, libraries: ext.libraries }), celParseSuite(ast.convert, ast.problem), ...mapSuites(), celmapMapSuite(), ...gatekeeperSuites()];
}
