/**
 * A stand-in for the person's browser during an OAuth sign-in: it opens the authorization URL
 * and follows the redirects (the test authorization servers approve at once) until the last one,
 * the app's loopback redirect, has been delivered. Used by tests and by the conformance runner,
 * where no person is there to click.
 */
export interface HeadlessBrowser {
  open(url: string): Promise<void>;
  /** Every URL opened, in order. */
  readonly opened: string[];
}

export function headlessBrowser(): HeadlessBrowser {
  const opened: string[] = [];
  return {
    opened,
    async open(url) {
      opened.push(url);
      let next: string | undefined = url;
      for (let hop = 0; next && hop < 10; hop++) {
        const response: Response = await fetch(next, { redirect: 'manual' });
        await response.body?.cancel();
        const location = response.headers.get('location');
        next = response.status >= 300 && response.status < 400 && location ? new URL(location, next).href : undefined;
      }
    },
  };
}
