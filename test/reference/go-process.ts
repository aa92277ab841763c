/**
 * A long-running reference program (reference/bin/<name>): one JSON line in, one JSON line
 * out, in order. Requests are pipelined; `ask` resolves with the matching answer.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";

export class GoProcess {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting: { resolve: (v: unknown) => void; reject: (e: Error) => void }[] = [];
  private stderr = "";
  private exited: Error | undefined;

  constructor(readonly binary: string) {
    this.child = spawn(binary, [], { stdio: ["pipe", "pipe", "pipe"] });
    this.child.stderr.on("data", (d: Buffer) => {
      this.stderr = (this.stderr + d.toString()).slice(-4000);
    });
    createInterface({ input: this.child.stdout, crlfDelay: Infinity }).on("line", (line) => {
      const w = this.waiting.shift();
      if (w === undefined) return;
      try {
        w.resolve(JSON.parse(line));
      } catch (e) {
        w.reject(new Error(`${binary}: unreadable answer ${JSON.stringify(line.slice(0, 200))}: ${String(e)}`));
      }
    });
    this.child.on("exit", (code, signal) => {
      this.exited = new Error(`${binary} exited (${signal ?? code}): ${this.stderr.trim()}`);
      for (const w of this.waiting.splice(0)) w.reject(this.exited);
    });
  }

  ask<T>(request: unknown): Promise<T> {
    if (this.exited !== undefined) return Promise.reject(this.exited);
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ resolve: resolve as (v: unknown) => void, reject });
      this.child.stdin.write(JSON.stringify(request) + "\n");
    });
  }

  /** Asks all at once (pipelined), answers in request order. */
  askAll<T>(requests: readonly unknown[]): Promise<T[]> {
    return Promise.all(requests.map((r) => this.ask<T>(r)));
  }

  close(): void {
    this.child.stdin.end();
  }
}
