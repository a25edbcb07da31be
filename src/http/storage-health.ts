// A storage fault (disk full, read-only, I/O error) seen by any request makes the instance not ready for a
// while, so a load balancer takes it out of rotation instead of sending it writes that will fail.
const UNREADY_FOR_MS = 30_000;

export class StorageHealth {
  private lastFailure = -Infinity;

  failed(now: Date): void {
    this.lastFailure = now.getTime();
  }

  /** The last fault within the last 30 s, or undefined. */
  recentFailure(now: Date): Date | undefined {
    return now.getTime() - this.lastFailure < UNREADY_FOR_MS ? new Date(this.lastFailure) : undefined;
  }
}
