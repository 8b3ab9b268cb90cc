/**
 * How long a provider asks us to wait, from its response headers. The agent loop owns retrying,
 * so the provider only reports the wish; it never sleeps.
 *
 * `retry-after-ms` (OpenAI, Anthropic) is more precise than `retry-after`, so it wins when both
 * are present. `retry-after` is either delta-seconds (possibly fractional, as some gateways
 * send) or an HTTP date, which is turned into a delay from `now`.
 */
export function parseRetryAfterMs(
  headers: Headers | undefined,
  now: () => number = Date.now,
): number | undefined {
  if (!headers) return undefined;
  const precise = parseDelay(headers.get("retry-after-ms"), 1);
  if (precise !== undefined) return precise;
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  const seconds = parseDelay(value, 1000);
  if (seconds !== undefined) return seconds;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now());
}

function parseDelay(value: string | null, unitMs: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  // A strict number pattern: parseFloat would read "5 Wed, 21 Oct" as 5.
  if (!/^\d+(\.\d+)?$/.test(text)) return undefined;
  return Math.round(Number(text) * unitMs);
}
