// Where requests run: in a Web Worker (browsers, the default) or on the calling thread (Node,
// or `{ worker: false }`). Both answer the same requests the same way. Two kinds of host use
// this: the keyword engine (host.ts, worker.ts) and the semantic module (embed-host.ts,
// embed-worker.ts), each in a worker of its own so that loading the model never holds back a
// keyword query.

import { MidashiError, reviveError } from "./errors.js";

/** Requests a host answers, by operation: the shape of each one's arguments and result. */
export type RequestMap<R> = { [K in keyof R]: { args: unknown; result: unknown } };

/** Something that answers requests of `R` (a host). */
export interface Handler<R extends RequestMap<R>> {
  handle<K extends keyof R & string>(op: K, args: R[K]["args"]): Promise<R[K]["result"]>;
  /** The backend closed: give back what the host holds. */
  dispose?(): void;
}

/** Runs host requests somewhere. */
export interface Backend<R extends RequestMap<R>> {
  call<K extends keyof R & string>(op: K, args: R[K]["args"]): Promise<R[K]["result"]>;
  close(): void;
}

/** A message to a worker. */
export interface WorkerRequest {
  id: number;
  op: string;
  args: unknown;
}

/**
 * A message from a worker: the answer to request `id`, or (without an id) an event the host
 * emitted, such as loading progress.
 */
export type WorkerReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: { code: string; message: string } }
  | { event: unknown };

/** The host on this thread. */
export class DirectBackend<R extends RequestMap<R>> implements Backend<R> {
  private closed = false;

  constructor(private readonly host: Handler<R>) {}

  call<K extends keyof R & string>(op: K, args: R[K]["args"]): Promise<R[K]["result"]> {
    if (this.closed) return Promise.reject(new MidashiError("CLOSED", "this Midashi instance was closed; load the index again"));
    return this.host.handle(op, args);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.host.dispose?.();
  }
}

interface Pending {
  resolve(value: unknown): void;
  reject(err: MidashiError): void;
}

/** The host in a Web Worker. */
export class WorkerBackend<R extends RequestMap<R>> implements Backend<R> {
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failure?: MidashiError;

  /** `onEvent` receives the events the host in the worker emits. */
  constructor(workerUrl: string | URL, name: string, onEvent?: (event: unknown) => void) {
    this.worker = new Worker(workerUrl, { type: "module", name });
    this.worker.onmessage = (e: MessageEvent) => {
      const reply = e.data as WorkerReply;
      if ("event" in reply) {
        onEvent?.(reply.event);
        return;
      }
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
          `midashi's ${name} worker failed (${e.message || "it could not be started"}); check that ${String(workerUrl).split("/").pop()} is served next to index.js as JavaScript, or pass { worker: false }`,
        ),
      );
    };
    this.worker.onmessageerror = () => {
      this.fail(new MidashiError("INTERNAL", `a message from midashi's ${name} worker could not be read; this is a bug, please report it`));
    };
  }

  private fail(err: MidashiError): void {
    this.failure = err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  call<K extends keyof R & string>(op: K, args: R[K]["args"]): Promise<R[K]["result"]> {
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

/** The part of a worker's global scope used by worker entry points. */
interface WorkerScope {
  onmessage: ((e: MessageEvent) => void) | null;
  postMessage(message: unknown): void;
}

/**
 * Serves `makeHost`'s host from inside a Web Worker: requests in, answers (and the host's
 * events) out. Errors cross as `{ code, message }`: Error objects lose their own fields in
 * structured cloning.
 */
export function serveInWorker<R extends RequestMap<R>>(makeHost: (emit: (event: unknown) => void) => Handler<R>, toError: (e: unknown) => { code: string; message: string }): void {
  const scope = globalThis as unknown as WorkerScope;
  const host = makeHost((event) => scope.postMessage({ event } satisfies WorkerReply));
  scope.onmessage = (e: MessageEvent) => {
    const { id, op, args } = e.data as WorkerRequest;
    host.handle(op as keyof R & string, args as R[keyof R & string]["args"]).then(
      (value) => scope.postMessage({ id, ok: true, value } satisfies WorkerReply),
      (err: unknown) => scope.postMessage({ id, ok: false, error: toError(err) } satisfies WorkerReply),
    );
  };
}
