// Where requests run: in a Web Worker (browsers, the default) or on the calling thread (Node,
// or `{ worker: false }`). Both answer the same requests (host.ts) the same way.

import { MidashiError, reviveError } from "./errors.js";
import { Host, type Op, type Requests } from "./host.js";
import type { WorkerReply, WorkerRequest } from "./worker.js";

/** Runs host requests somewhere. */
export interface Backend {
  call<K extends Op>(op: K, args: Requests[K]["args"]): Promise<Requests[K]["result"]>;
  close(): void;
}

/** The host on this thread. */
export class DirectBackend implements Backend {
  private readonly host = new Host();
  private closed = false;

  call<K extends Op>(op: K, args: Requests[K]["args"]): Promise<Requests[K]["result"]> {
    if (this.closed) return Promise.reject(new MidashiError("CLOSED", "this Midashi instance was closed; load the index again"));
    return this.host.handle(op, args);
  }

  close(): void {
    this.closed = true;
  }
}

interface Pending {
  resolve(value: unknown): void;
  reject(err: MidashiError): void;
}

/** The host in a Web Worker. */
export class WorkerBackend implements Backend {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failure?: MidashiError;

  constructor(workerUrl: string | URL) {
    this.worker = new Worker(workerUrl, { type: "module", name: "midashi" });
    this.worker.onmessage = (e: MessageEvent) => {
      const reply = e.data as WorkerReply;
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      if (reply.ok) p.resolve(reply.value);
      else p.reject(reviveError(reply.error));
    };
    // The worker script failed to load or threw outside a request: nothing it was asked will
    // be answered, so every waiting call is rejected now rather than hanging.
    this.worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      this.fail(
        new MidashiError(
          "INTERNAL",
          `midashi's search worker failed (${e.message || "it could not be started"}); check that worker.js is served next to index.js as JavaScript, or pass { worker: false }`,
        ),
      );
    };
    this.worker.onmessageerror = () => {
      this.fail(new MidashiError("INTERNAL", "a message from midashi's search worker could not be read; this is a bug, please report it"));
    };
  }

  private fail(err: MidashiError): void {
    this.failure = err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  call<K extends Op>(op: K, args: Requests[K]["args"]): Promise<Requests[K]["result"]> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.worker.postMessage({ id, op, args } satisfies WorkerRequest);
    });
  }

  close(): void {
    this.worker.terminate();
    this.fail(new MidashiError("CLOSED", "this Midashi instance was closed; load the index again"));
  }
}
