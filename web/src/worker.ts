// The Web Worker host: the engine runs here so that loading an index and running a query never
// block the page. Messages are `{ id, op, args }` in and `{ id, ok, value | error }` out;
// errors cross as `{ code, message }` because Error objects lose their own fields in
// structured cloning.

import { toMidashiError } from "./errors.js";
import { Host, type Op, type Requests } from "./host.js";

/** The part of a worker's global scope used here (the DOM lib types `self` as a Window). */
interface WorkerScope {
  onmessage: ((e: MessageEvent) => void) | null;
  postMessage(message: unknown): void;
}

export interface WorkerRequest {
  id: number;
  op: Op;
  args: Requests[Op]["args"];
}

export type WorkerReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; error: { code: string; message: string } };

const scope = globalThis as unknown as WorkerScope;
const host = new Host();

scope.onmessage = (e: MessageEvent) => {
  const { id, op, args } = e.data as WorkerRequest;
  host.handle(op, args).then(
    (value) => scope.postMessage({ id, ok: true, value } satisfies WorkerReply),
    (err: unknown) => scope.postMessage({ id, ok: false, error: toMidashiError(err).toJSON() } satisfies WorkerReply),
  );
};
