/**
 * `celmap` as users run it: the built executable in a child process. Usage
 * errors, help, the compile-error format, YAML and JSON inputs, exact integers.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assertBuilt, limiter, runCli as spawnCli, type CliResult } from "./support/cli.js";

const limit = limiter(2);
const cli = (...args: string[]): Promise<CliResult> => limit(() => spawnCli(args));

let dir = "";
beforeAll(() => {
  assertBuilt();
  dir = mkdtempSync(join(tmpdir(), "celmap-cli-"));
});
afterAll(() => {
  if (dir !== "") rmSync(dir, { recursive: true, force: true });
});

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe("usage errors exit 2 with a clear message", () => {
  it("no arguments: prints the help on stderr", async () => {
    const r = await cli();
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("Usage: celmap <command>");
    expect(r.stdout).toBe("");
  });

  it("unknown command: lists the commands", async () => {
    const r = await cli("frobnicate");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown command 'frobnicate'");
    expect(r.stderr).toMatch(/^\s+cel\s+Evaluate/m);
  });

  it("cel without an expression", async () => {
    const r = await cli("cel");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("missing the CEL expression");
    expect(r.stderr).toContain("celmap cel --help");
  });

  it("two expressions (unquoted expression split by the shell)", async () => {
    const r = await cli("cel", "1", "+", "2");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("quote the whole expression");
  });

  it("unknown option", async () => {
    const r = await cli("cel", "1", "--nope");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--nope");
  });

  it("--var value that is not JSON, with a hint about string quoting", async () => {
    const r = await cli("cel", "x", "--var", "x=abc");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--var x: the value is not valid JSON");
    expect(r.stderr).toContain(`--var x='"abc"'`);
  });

  it("--var without '='", async () => {
    const r = await cli("cel", "x", "--var", "x");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("expected name=<json>");
  });

  it("--var with a name that is not a CEL identifier or is reserved", async () => {
    expect((await cli("cel", "1", "--var", "a-b=1")).stderr).toContain("not a valid CEL variable name");
    const r = await cli("cel", "1", "--var", "namespace=1");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("reserved word");
  });

  it("--vars file that does not exist", async () => {
    const r = await cli("cel", "1", "--vars", join(dir, "missing.yaml"));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("cannot read the file");
    expect(r.stderr).toContain("missing.yaml");
  });

  it("--vars file with invalid YAML or JSON", async () => {
    const y = await cli("cel", "1", "--vars", file("bad.yaml", "object: [1, 2\n"));
    expect(y.code).toBe(2);
    expect(y.stderr).toContain("not valid YAML");
    const j = await cli("cel", "1", "--vars", file("bad.json", '{"object": }'));
    expect(j.code).toBe(2);
    expect(j.stderr).toContain("not valid JSON");
  });

  it("--vars file that is not a mapping", async () => {
    const r = await cli("cel", "1", "--vars", file("list.yaml", "- 1\n- 2\n"));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("expected a mapping from variable names to values");
  });
});

describe("help", () => {
  it("celmap --help teaches the commands with examples, exit 0", async () => {
    const r = await cli("--help");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Usage: celmap <command>");
    expect(r.stdout).toContain("Commands:");
    expect(r.stdout).toContain("Examples:");
    expect(r.stdout).toContain("celmap cel '1 + 2'");
    expect(r.stderr).toBe("");
  });

  it("celmap cel --help documents every option, examples, value mapping and exit codes", async () => {
    const r = await cli("cel", "--help");
    expect(r.code).toBe(0);
    for (const s of [
      "--var name=<json>",
      "--vars <file>",
      "--env <kind>",
      "--object <file>",
      "--old-object <file>",
      "--params <file>",
      "--namespace <file>",
      "--cost",
      "--strict",
      "--pretty",
      "--help",
      "Examples:",
      "Environments (--env):",
      "How results print",
      "Exit codes:",
    ]) {
      expect(r.stdout).toContain(s);
    }
    expect((await cli("help", "cel")).stdout).toBe(r.stdout);
    expect((await cli("cel", "-h")).stdout).toBe(r.stdout);
  });

  it("--version prints the package version", async () => {
    const r = await cli("--version");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe("evaluation", () => {
  it("prints the result as JSON, exit 0", async () => {
    const r = await cli("cel", "1 + 2");
    expect(r).toEqual({ code: 0, stdout: "3\n", stderr: "" });
  });

  it("compile errors: cel-go's format on stderr, exit 1", async () => {
    const r = await cli("cel", "1 + ");
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^ERROR: <input>:1:\d+: /);
    expect(r.stderr).toContain("\n | 1 + \n | ");
  });

  it("type errors point at the offending operator", async () => {
    const r = await cli("cel", "1 + 'a'");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^ERROR: <input>:1:3: found no matching overload for '_\+_' applied to '\(int, string\)'/);
    expect(r.stderr).toContain(" | 1 + 'a'\n | ..^");
  });

  it("undeclared variables are compile errors", async () => {
    const r = await cli("cel", "nope + 1");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("undeclared reference to 'nope'");
  });

  it("evaluation errors: message on stderr, exit 1", async () => {
    const r = await cli("cel", "1 / 0");
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("division by zero");
  });

  it("expressions starting with '-' are not options; '--' works too", async () => {
    expect((await cli("cel", "-1 + 2")).stdout).toBe("1\n");
    expect((await cli("cel", "--", "-1 - 2")).stdout).toBe("-3\n");
  });

  it("YAML --vars: the shipped example", async () => {
    const r = await cli("cel", "object.spec.template.spec.containers.map(c, c.image)", "--vars", "examples/deployment.yaml");
    expect(r).toEqual({ code: 0, stdout: '["nginx:1.25","envoyproxy/envoy:v1.30.1"]\n', stderr: "" });
    const labels = await cli("cel", "object.metadata.labels['app'] == 'nginx'", "--vars", "examples/deployment.yaml");
    expect(labels.stdout).toBe("true\n");
  });

  it("YAML integers are int (exact), other numbers double", async () => {
    const vars = file("nums.yaml", "i: 3\nd: 3.5\nbig: 9223372036854775807\n");
    expect((await cli("cel", "[type(i), type(d)]", "--vars", vars)).stdout).toBe('["int","double"]\n');
    expect((await cli("cel", "i + 1", "--vars", vars)).stdout).toBe("4\n");
    expect((await cli("cel", "d * 2.0", "--vars", vars)).stdout).toBe("7.0\n");
    expect((await cli("cel", "big - 1", "--vars", vars)).stdout).toBe("9223372036854775806\n");
  });

  it("variables named like Object.prototype members are ordinary variables", async () => {
    expect((await cli("cel", "__proto__ + constructor", "--var", "__proto__=1", "--var", "constructor=2")).stdout).toBe("3\n");
    const vars = file("proto.json", '{"__proto__": {"a": 1}, "toString": "x"}');
    expect((await cli("cel", "[__proto__.a, toString]", "--vars", vars)).stdout).toBe('[1,"x"]\n');
  });

  it("JSON --vars and --var: later ones override earlier ones", async () => {
    const a = file("a.json", '{"x": 1, "y": "from a"}');
    const b = file("b.yaml", "x: 2\n");
    expect((await cli("cel", "[x, y]", "--vars", a, "--vars", b)).stdout).toBe('[2,"from a"]\n');
    expect((await cli("cel", "x", "--vars", a, "--var", "x=3")).stdout).toBe("3\n");
  });

  it("big integers print exactly, beyond 2^53", async () => {
    expect((await cli("cel", "9223372036854775807")).stdout).toBe("9223372036854775807\n");
    expect((await cli("cel", "-9223372036854775807 - 1")).stdout).toBe("-9223372036854775808\n");
    expect((await cli("cel", "18446744073709551615u")).stdout).toBe("18446744073709551615\n");
    expect((await cli("cel", "n + 1", "--var", "n=9007199254740993")).stdout).toBe("9007199254740994\n");
    expect((await cli("cel", "[n, n]", "--var", "n=9223372036854775807")).stdout).toBe("[9223372036854775807,9223372036854775807]\n");
  });

  it("int64 overflow is an error, exit 1", async () => {
    const r = await cli("cel", "n * 2", "--var", "n=4611686018427387904");
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/overflow/);
  });

  it("non-JSON values print as documented", async () => {
    expect((await cli("cel", "timestamp('2024-01-01T00:00:00.000000001Z')")).stdout).toBe('"2024-01-01T00:00:00.000000001Z"\n');
    expect((await cli("cel", "duration('1h30m')")).stdout).toBe('"5400s"\n');
    expect((await cli("cel", "b'abc'")).stdout).toBe('"YWJj"\n');
    expect((await cli("cel", "type(1)")).stdout).toBe('"int"\n');
    expect((await cli("cel", "[dyn(type([1])), dyn(type({})), dyn(type(null)), dyn(type(type(1)))]")).stdout).toBe('["list","map","null_type","type"]\n');
    expect((await cli("cel", "[optional.of(1), optional.none()]")).stdout).toBe("[1,null]\n");
    expect((await cli("cel", "{1: 'a', 2: 'b'}")).stdout).toBe('{"1":"a","2":"b"}\n');
    expect((await cli("cel", "1.0 / 0.0")).stdout).toBe('"Infinity"\n');
    expect((await cli("cel", "2.0")).stdout).toBe("2.0\n");
  });

  it("regular expressions are RE2: no catastrophic backtracking, RE2 syntax", async () => {
    const start = Date.now();
    const r = await cli("cel", "s.matches('^(a+)+$')", "--var", `s=${JSON.stringify(`${"a".repeat(30)}!`)}`);
    expect(r).toEqual({ code: 0, stdout: "false\n", stderr: "" });
    expect(Date.now() - start).toBeLessThan(10_000); // process start included; backtracking would take hours
    expect((await cli("cel", "'ABC'.matches('(?i)abc')")).stdout).toBe("true\n");
  });

  it("Kubernetes libraries and literal validation are in the environment", async () => {
    expect((await cli("cel", "quantity('1Gi').isGreaterThan(quantity('500Mi')) && [3, 1, 2].sum() == 6")).stdout).toBe("true\n");
    expect((await cli("cel", "cidr('10.0.0.0/8').containsIP(ip('10.1.2.3'))")).stdout).toBe("true\n");
    const bad = await cli("cel", "duration('1 hour')");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^ERROR: <input>:1:10: /); // rejected at compile time, as in Kubernetes
  });

  it("--pretty indents", async () => {
    expect((await cli("cel", "{'a': [1, 2]}", "--pretty")).stdout).toBe('{\n  "a": [\n    1,\n    2\n  ]\n}\n');
  });
});

describe("Kubernetes environments (--env) and admission variables", () => {
  // One file per call: a child process of another test may be reading an earlier one.
  let pods = 0;
  const pod = () =>
    file(
      `pod-${pods++}.yaml`,
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels:\n    app: a\nspec:\n  containers:\n  - name: c\n    image: nginx\n    ports:\n    - containerPort: 9223372036854775807\n",
    );

  it("mutation is the default: Object and JSONPatch print as JSON", async () => {
    const r = await cli("cel", "Object{metadata: Object.metadata{labels: {'team': string(object.metadata.name)}}}", "--object", pod());
    expect(r).toEqual({ code: 0, stdout: '{"metadata":{"labels":{"team":"web"}}}\n', stderr: "" });
    const p = await cli("cel", "[JSONPatch{op: 'add', path: '/metadata/labels/' + jsonpatch.escapeKey('k8s.io/x~y'), value: 'v'}]");
    expect(p.stdout).toBe('[{"op":"add","path":"/metadata/labels/k8s.io~1x~0y","value":"v"}]\n');
  });

  it("--object reads exact integers", async () => {
    expect((await cli("cel", "object.spec.containers[0].ports[0].containerPort", "--object", pod())).stdout).toBe("9223372036854775807\n");
  });

  it("each environment declares what the apiserver's does", async () => {
    const obj = pod();
    const cases: [string[], number][] = [
      [["Object{}", "--env", "base"], 1],
      [["Object{}", "--env", "variables"], 1],
      [["jsonpatch.escapeKey('a')", "--env", "match"], 1],
      [["variables == variables", "--env", "match"], 1],
      [["object.metadata.name", "--env", "base"], 1], // base declares no admission variables...
      [["object.metadata.name", "--env", "base", "--object", obj], 0], // ...but given ones are dyn
      [["request.kind", "--env", "base"], 1],
      [["oldObject == null && namespaceObject == null", "--env", "match"], 0],
      [["authorizer.group('').resource('pods').check('get').allowed()", "--env", "variables"], 0],
      [["cel.bind(x, 1, x)"], 1],
      [["math.greatest(1, 2)"], 1],
      [["base64.encode(b'a')"], 1],
      [["'a'.reverse()"], 1],
      [["type(ip('1.2.3.4')) == net.IP && [1].first() == optional.of(1)"], 0],
    ];
    for (const [args, code] of cases) {
      const r = await cli("cel", ...args);
      expect({ args, code: r.code }).toEqual({ args, code });
    }
  });

  it("params is declared only when given (a policy with a paramKind)", async () => {
    const params = file("params.json", '{"data": {"team": "x"}}');
    expect((await cli("cel", "params.data.team", "--params", params)).stdout).toBe('"x"\n');
    const r = await cli("cel", "params");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("undeclared reference to 'params'");
  });

  it("--old-object and --namespace bind oldObject and namespaceObject", async () => {
    const ns = file("ns.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: prod\n  labels:\n    env: prod\n");
    const r = await cli("cel", "namespaceObject.metadata.labels['env'] + '/' + oldObject.metadata.name", "--namespace", ns, "--old-object", pod());
    expect(r).toEqual({ code: 0, stdout: '"prod/web"\n', stderr: "" });
  });

  it("request and namespaceObject fields are typed", async () => {
    const r = await cli("cel", "request.uid");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("undefined field 'uid'");
  });

  it("bad --env and input files are usage errors", async () => {
    const e = await cli("cel", "1", "--env", "nope");
    expect(e.code).toBe(2);
    expect(e.stderr).toContain("--env nope: expected one of base, mutation, variables, match");
    const two = await cli("cel", "1", "--object", file("two.yaml", "a: 1\n---\nb: 2\n"));
    expect(two.code).toBe(2);
    expect(two.stderr).toContain("expected one document, found 2");
    const missing = await cli("cel", "1", "--object", join(dir, "missing.yaml"));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--object");
  });

  it("--strict: Object types and fields checked against the object's built-in schema", async () => {
    const obj = pod();
    const typo = await cli("cel", "Object{spec: Object.spec{containerz: []}}", "--object", obj, "--strict");
    expect(typo.code).toBe(1);
    expect(typo.stderr).toContain("undefined field 'containerz'");
    const ok = await cli("cel", "Object{spec: Object.spec{containers: [Object.spec.containers{name: 'c', image: 'x'}]}}", "--object", obj, "--strict");
    expect(ok).toEqual({ code: 0, stdout: '{"spec":{"containers":[{"name":"c","image":"x"}]}}\n', stderr: "" });
    expect((await cli("cel", "Object{spec: Object.spec{containerz: []}}", "--object", obj)).code).toBe(0); // as Kubernetes
    expect((await cli("cel", "1", "--strict")).code).toBe(2);
  });

  it("Kubernetes types decide == themselves", async () => {
    const r = await cli("cel", "dyn(ip('1.2.3.4')) == '1.2.3.4'");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("no such overload");
  });

  it("--cost prints the run-time cost on stderr and applies the per-call limit", async () => {
    const r = await cli("cel", "[1, 2, 3].map(x, x * 2)", "--cost");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("[2,4,6]\n");
    expect(r.stderr).toMatch(/^cost: \d+\n$/);
    const big = await cli("cel", "lists.range(2000).all(i, lists.range(2000).all(j, true))", "--cost");
    expect(big.code).toBe(1);
    expect(big.stderr).toContain("operation cancelled: actual cost limit exceeded");
  });
});
