/**
 * A real HTTPS server for `http.*` calls, in a **child process**: the synchronous HTTP provider
 * blocks the calling thread (Atomics.wait) until the worker thread has the answer, so a server in
 * the test's own thread could never answer.
 *
 * Routes: `/json` → `{"team":"payments","replicas":3}`; `/list` → `[1,"two"]`; `/text` → `not json`;
 * `/missing` → 404 `{"error":"nope"}`; `/slow?ms=N` → `{"slow":true}` after N ms; `/big?bytes=N` → a
 * JSON string of N bytes; `/echo` → `{method, body, headers}` of the request.
 */
import { spawn, type ChildProcess } from "node:child_process";
import type { Pki } from "./support.js";

const SERVER = String.raw`
const https = require("node:https");
const fs = require("node:fs");
const [cert, key] = process.argv.slice(1);
const server = https.createServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key) }, (req, res) => {
  const url = new URL(req.url, "https://x");
  const json = (status, v) => { res.writeHead(status, { "content-type": "application/json" }); res.end(typeof v === "string" ? v : JSON.stringify(v)); };
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    switch (url.pathname) {
      case "/json": return json(200, { team: "payments", replicas: 3 });
      case "/list": return json(200, [1, "two"]);
      case "/text": return json(200, "not json");
      case "/missing": return json(404, { error: "nope" });
      case "/slow": return setTimeout(() => json(200, { slow: true }), Number(url.searchParams.get("ms")));
      case "/big": return json(200, JSON.stringify("x".repeat(Number(url.searchParams.get("bytes")))));
      case "/echo": return json(200, { method: req.method, body: Buffer.concat(chunks).toString("utf8"), headers: req.headers });
      default: return json(404, {});
    }
  });
});
server.listen(0, "127.0.0.1", () => process.stdout.write(String(server.address().port) + "\n"));
`;

export interface HttpTarget {
  readonly port: number;
  readonly url: (path: string) => string;
  close(): Promise<void>;
}

export async function startHttpTarget(pki: Pki): Promise<HttpTarget> {
  const child: ChildProcess = spawn(process.execPath, ["-e", SERVER, pki.serverCert, pki.serverKey], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString("utf8");
      if (out.includes("\n")) resolve(Number(out.trim()));
    });
    child.on("exit", (code) => reject(new Error(`http target exited with ${code}`)));
  });
  return {
    port,
    url: (path) => `https://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise<void>((r) => {
        if (child.exitCode !== null) return r();
        child.once("exit", () => r());
        child.kill();
      }),
  };
}
