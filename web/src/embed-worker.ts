// The semantic module's Web Worker: the model loads (about a second of compiling) and queries
// are embedded here, apart from the keyword engine's worker, so keyword answers never wait
// for it. The protocol is backend.ts's; loading progress crosses as events.

import { serveInWorker } from "./backend.js";
import { EmbedHost, type EmbedRequests } from "./embed-host.js";
import { toMidashiError } from "./errors.js";

serveInWorker<EmbedRequests>((emit) => new EmbedHost(emit), (e) => toMidashiError(e).toJSON());
