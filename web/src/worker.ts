// The keyword engine's Web Worker: loading an index and running a query never block the page.
// The protocol (requests in, answers and events out) is backend.ts's.

import { serveInWorker } from "./backend.js";
import { toMidashiError } from "./errors.js";
import { Host, type Requests } from "./host.js";

serveInWorker<Requests>(() => new Host(), (e) => toMidashiError(e).toJSON());
