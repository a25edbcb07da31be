// A list call returns a PagePromise: `await` it for the first page, or `for await` over it to walk every
// object across all pages, following `next_cursor` one request at a time.
import type { ResponseInfo } from './response.js';

export class Page<T> implements AsyncIterable<T> {
  constructor(
    /** The objects on this page: at most `limit`, and possibly fewer, even none, while `hasMore` is true. */
    readonly data: T[],
    readonly hasMore: boolean,
    /** Pass as `cursor` to get the next page; null on the last page. */
    readonly nextCursor: string | null,
    readonly requestId: string | null,
    private readonly fetchPage: (cursor: string) => Promise<Page<T>>,
    /** The response this page came in (status, request id, headers). */
    readonly lastResponse: ResponseInfo = { status: 200, requestId, etag: null, headers: {} },
  ) {}

  /** The following page, or null when this is the last one. */
  async nextPage(): Promise<Page<T> | null> {
    return this.hasMore && this.nextCursor !== null ? this.fetchPage(this.nextCursor) : null;
  }

  /** Every object from this page to the end of the list. */
  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let page: Page<T> | null = this;
    while (page) {
      yield* page.data;
      page = await page.nextPage();
    }
  }
}

export class PagePromise<T> implements Promise<Page<T>>, AsyncIterable<T> {
  private promise: Promise<Page<T>> | undefined;
  /** A Promise in full (then, catch, finally and this), so a list call goes where a Promise is expected. */
  readonly [Symbol.toStringTag] = 'PagePromise';

  /** The request is made on first use, so an unused PagePromise costs nothing. */
  constructor(private readonly load: () => Promise<Page<T>>) {}

  private page(): Promise<Page<T>> {
    this.promise ??= this.load();
    return this.promise;
  }

  then<A = Page<T>, B = never>(
    onFulfilled?: ((page: Page<T>) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.page().then(onFulfilled, onRejected);
  }

  catch<B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<Page<T> | B> {
    return this.page().catch(onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<Page<T>> {
    return this.page().finally(onFinally);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    yield* await this.page();
  }
}
