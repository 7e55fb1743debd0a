// Recorded HTTP responses (`inputs: recorded`, and the e2e bridge's answers) as fetch Responses.
//
// The runtime's own SDK parses them, exactly as it would parse a live response: build the SDK's client
// with `fetch: call.recordedFetch("response")` and call the method the runtime calls.

/** The bytes of a recorded body or chunk: UTF-8 text, or base64 when `encoding` says so. */
export function bytesOf(text, encoding) {
  return encoding === "base64" ? Buffer.from(text, "base64") : Buffer.from(text, "utf-8");
}

/**
 * The recorded headers. A few imported recordings have none at all (their source stripped them); the
 * provider always labels these bodies and the Node SDKs (unlike the Python ones) read an unlabelled
 * body as text, so a recording without a content-type gets the one the provider sends:
 * text/event-stream for a stream, application/json otherwise.
 */
export function headersOf(recorded, streamed) {
  const headers = new Headers();
  for (const [name, values] of Object.entries(recorded.headers || {})) {
    for (const value of values) headers.append(name, value);
  }
  if (!headers.has("content-type")) {
    headers.set("content-type", streamed ? "text/event-stream" : "application/json");
  }
  return headers;
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * A fetch Response for a recorded response (a protocol `recorded`). A streamed body (a `recordedHead`)
 * is pulled chunk by chunk with `pull` (resolving to bytes, or null at the end) only as the reader
 * asks, so incremental processing stays visible to the harness.
 */
export function responseOf(recorded, pull = null) {
  let body = null;
  if (pull) {
    body = new ReadableStream(
      {
        async pull(controller) {
          const chunk = await pull();
          if (chunk === null) controller.close();
          else controller.enqueue(new Uint8Array(chunk));
        },
      },
      new CountQueuingStrategy({ highWaterMark: 0 }), // read only when the SDK asks
    );
  } else if (!NULL_BODY_STATUSES.has(recorded.status)) {
    body = bytesOf(recorded.body ?? "", recorded.encoding);
  }
  return new Response(body, { status: recorded.status, headers: headersOf(recorded, Boolean(pull)) });
}
