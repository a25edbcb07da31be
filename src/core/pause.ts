// A sleep that can be cut short: the workers wait for work this way, and are woken at once to stop (or,
// for the webhook worker, when an attempt finishes and leaves room for another).
export class Pause {
  private wakeUp: (() => void) | undefined;

  sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  wake(): void {
    this.wakeUp?.();
  }
}
