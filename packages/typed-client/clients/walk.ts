/**
 * What a client's walk through its example saw, for the test to check against the server. Each
 * example's client (`<example>.ts`) exports `walk(baseUrl, people)`; the people are those of
 * `PEOPLE` in the test, each signed in with an API token.
 */
export interface Person {
  id: string;
  token: string;
}

export interface Walk {
  /** The record created, as the create call answered it. */
  created: { id: string; state: string | null };
  /** The same record read back by id. */
  got: { id: string };
  /** The ids of the first page of the list. */
  listed: string[];
  /** The record's state after a transition. */
  moved: { state: string };
  /**
   * A write the server refused: its status, the problem's catalogue code (one rule's own code when
   * it alone refused), and the field at fault with its rule's code.
   */
  refused: { status: number; code: string; field: string | null; fieldCode: string | null };
  /**
   * A file uploaded with the record (multipart/form-data) and downloaded back through the app's
   * file URL: the bytes sent and received, and the download's Content-Type and Content-Disposition.
   */
  receipt?: { sent: number[]; received: number[]; type: string | null; disposition: string | null };
}

/** A bearer token's header, the way every example's API takes one. */
export function bearer(person: Person): { authorization: string } {
  return { authorization: `Bearer ${person.token}` };
}

/** The data of a call that must succeed; a refusal throws with its problem's code and detail. */
export function ok<T>(answer: { data?: T; error?: { code: string; detail: string }; response: Response }): T {
  if (answer.data === undefined) {
    const problem = answer.error ? `${answer.error.code}: ${answer.error.detail}` : 'no body';
    throw new Error(`${answer.response.url} answered ${answer.response.status} (${problem})`);
  }
  return answer.data;
}

/** A date `days` from today (UTC), as the API writes dates. */
export function inDays(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}
