// Search as you type: when queries come faster than answers, only the newest one matters.
// At most one query runs at a time and at most one waits; a newer call replaces the waiting
// one (which is never run) and makes the running one's answer stale. Every call settles:
// stale ones settle as "superseded" instead of queueing up behind each other.

/** What a supersedable call settles with. */
export type Outcome<T> = { superseded: true } | { superseded: false; value: T };

interface Job<T> {
  generation: number;
  run: () => Promise<T>;
  resolve(outcome: Outcome<T>): void;
  reject(err: unknown): void;
}

/** Runs the newest job; older ones settle as superseded. */
export class LatestOnly<T> {
  private generation = 0;
  private waiting?: Job<T>;
  private running = false;

  /** Submits a job; it settles superseded when a newer job or `bump()` comes first. */
  submit(run: () => Promise<T>): Promise<Outcome<T>> {
    return new Promise<Outcome<T>>((resolve, reject) => {
      this.bump();
      this.waiting = { generation: this.generation, run, resolve, reject };
      // Deferred by a microtask so a burst of synchronous calls only runs its last one.
      queueMicrotask(() => this.pump());
    });
  }

  /** Marks everything submitted so far as stale (e.g. the cache answered a newer query). */
  bump(): void {
    this.generation += 1;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.resolve({ superseded: true });
  }

  private pump(): void {
    if (this.running || !this.waiting) return;
    const job = this.waiting;
    this.waiting = undefined;
    this.running = true;
    const settle = (outcome: () => void): void => {
      this.running = false;
      if (job.generation !== this.generation) job.resolve({ superseded: true });
      else outcome();
      this.pump();
    };
    let promise: Promise<T>;
    try {
      promise = job.run();
    } catch (e) {
      promise = Promise.reject(e);
    }
    promise.then(
      (value) => settle(() => job.resolve({ superseded: false, value })),
      (err: unknown) => settle(() => job.reject(err)),
    );
  }
}
