/**
 * The errors of expected outcomes (a model output that does not decode is a verdict, not a
 * bug). Capturing a stack trace is most of what an Error costs, and the checker makes many of
 * these, so none is captured.
 */
export class QuietError extends Error {
  constructor(message?: string, options?: ErrorOptions) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message, options);
    Error.stackTraceLimit = limit;
  }
}
